#pragma once
// The event log of a search, `DIR/log.jsonl`: a header line, then one line per evaluated
// candidate, appended and flushed as each evaluation ends (ARCHITECTURE.md, "Contracts"). A log is
// never rewritten; a crash loses at most the evaluation in flight.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "spacegen/runtime/candidate.h"

namespace sculpt::explorer {

struct LogHeader {
  int format = 1;
  std::string kernel;
  std::vector<std::pair<std::string, std::int64_t>> sizes;  // in the kernel's order
  std::string device;
  std::uint64_t space_hash = 0;
  std::uint64_t seed = 0;
  std::string algorithm;
  friend bool operator==(const LogHeader&, const LogHeader&) = default;
};

struct LogEvaluation {
  std::int64_t id = 0;
  std::vector<spacegen::Action> actions;
  std::optional<double> bound_ns;
  std::optional<double> time_ns;  // median of the timed runs; absent when not run
  std::string check;              // ok | wrong | fault | timeout | compile_error
  double t = 0;                   // seconds since the search started
  double spread_ns = 0;
  int runs = 0;
  bool cut_short = false;  // timed less than planned: slower than the search's cutoff
  std::string message;
};

/// A parsed log, or the first problem found with where it is.
struct LogContents {
  LogHeader header;
  std::vector<LogEvaluation> evaluations;
  std::string error;  // "log.jsonl:3: ..." when the log is corrupt or foreign
  /// Bytes up to the end of the last complete line: what a search appends after.
  std::uintmax_t complete_bytes = 0;
  bool ok() const { return error.empty(); }
};

/// Reads a whole log. A truncated last line (a crash while writing it) is dropped, not an error.
LogContents read_log(const std::filesystem::path& path);

class EventLog {
 public:
  /// Starts a new log; the file must not exist. Throws std::runtime_error when it cannot be
  /// written (with the path and the reason).
  static EventLog create(const std::filesystem::path& path, const LogHeader& header);
  /// Appends to the log that read_log read as `contents`, first cutting the truncated last line
  /// it skipped.
  static EventLog append_to(const std::filesystem::path& path, const LogContents& contents);

  /// Appends one line and flushes it. Throws std::runtime_error when it cannot (a full disk),
  /// with the path and the reason: the line may then be partly written (a truncated last line).
  void write(const LogEvaluation& evaluation);

 private:
  EventLog(std::filesystem::path path, std::ofstream out)
      : path_(std::move(path)), out_(std::move(out)) {}
  void write_line(const std::string& line);

  std::filesystem::path path_;
  std::ofstream out_;
};

}  // namespace sculpt::explorer
