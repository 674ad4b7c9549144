#pragma once
// The one error type for what a user or the machine did wrong, in every stage: a bad request, a
// malformed file, a file that cannot be written, a device that does not answer. Each has a kind,
// a message, where in a file it is when it is in one, and the exit code the command line ends
// with. Broken invariants are not errors of this kind: they are SCULPT_CHECK's.
//
// Part of the library call's interface (explorer/sculpt.h), installed with it.
#include <optional>
#include <stdexcept>
#include <string>

namespace sculpt {

class Error : public std::runtime_error {
 public:
  enum class Kind {
    /// A request that cannot be met: a bad option, an unknown kernel, malformed sizes.
    usage,
    /// What a user gave is malformed: a definition, a log, a `.space` file.
    input,
    /// The machine refused: a file cannot be written, a device or a rank does not answer.
    environment,
    /// A stop was asked (a Ctrl-C) before the work began.
    interrupted,
    /// A search ran and found no valid candidate.
    nothing_valid,
  };

  /// Where in a file: its path and line, and column when known (0: not).
  struct Location {
    std::string file;
    int line = 0;
    int column = 0;
  };

  /// what() is the message, after "file:line:column: " when there is a location.
  Error(Kind kind, const std::string& message, std::optional<Location> location = std::nullopt);

  Kind kind() const { return kind_; }
  /// The message without its location.
  const std::string& message() const { return message_; }
  const std::optional<Location>& location() const { return location_; }
  /// 1 for nothing_valid, 128 for interrupted (a command adds the signal's number), else 2.
  int exit_code() const;

 private:
  Kind kind_;
  std::string message_;
  std::optional<Location> location_;
};

}  // namespace sculpt
