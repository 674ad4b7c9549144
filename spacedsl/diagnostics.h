#pragma once
// Located user errors for `.space` files, printed as
//   file:line:column: error: message
//     <the source line>
//     ^
#include <ostream>
#include <string>
#include <vector>

#include "spacedsl/source_location.h"

namespace sculpt::spacedsl {

struct Diagnostic {
  SourceLocation loc;
  std::string message;
  std::string source_line;  // the offending line, without its newline; may be empty
};

class Diagnostics {
 public:
  void error(SourceLocation loc, std::string message, std::string source_line = {});
  bool has_errors() const { return !errors_.empty(); }
  const std::vector<Diagnostic>& errors() const { return errors_; }
  /// Prints every error in the format above, in the order they were found.
  void print(std::ostream& out) const;

 private:
  std::vector<Diagnostic> errors_;
};

}  // namespace sculpt::spacedsl
