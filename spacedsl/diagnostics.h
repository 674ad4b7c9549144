#pragma once
// Located user errors for `.space` files, printed as
//   file:line:column: error: message
//     <the source line>
//     ^
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "spacedsl/source_location.h"

namespace sculpt::spacedsl {

struct Diagnostic {
  SourceLocation loc;
  std::string message;
  /// The offending line, without its newline (may be empty); of a long line (a generated or
  /// minified file), the 100 bytes around the column, cut with "...".
  std::string source_line;
  /// Where the column falls in `source_line`, in bytes from 0.
  std::size_t caret = 0;
};

class Diagnostics {
 public:
  /// A file reports at most this many errors: the rest are counted, not kept, so that an input
  /// with an error every few bytes cannot fill memory with them.
  static constexpr std::size_t kMaxErrors = 100;

  void error(SourceLocation loc, std::string message, std::string_view source_line = {});
  /// An error made by another Diagnostics, kept as it is, and those it dropped.
  void add(Diagnostic diagnostic);
  void add_dropped(std::size_t n) { dropped_ += n; }
  bool has_errors() const { return !errors_.empty(); }
  const std::vector<Diagnostic>& errors() const { return errors_; }
  /// Errors past kMaxErrors, not kept.
  std::size_t dropped() const { return dropped_; }
  /// Prints every error in the format above, in the order they were found, then how many were
  /// dropped.
  void print(std::ostream& out) const;

 private:
  std::vector<Diagnostic> errors_;
  std::size_t dropped_ = 0;
};

}  // namespace sculpt::spacedsl
