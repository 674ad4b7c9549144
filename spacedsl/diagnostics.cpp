#include "spacedsl/diagnostics.h"

namespace sculpt::spacedsl {

void Diagnostics::error(SourceLocation loc, std::string message, std::string source_line) {
  errors_.push_back({std::move(loc), std::move(message), std::move(source_line)});
}

void Diagnostics::print(std::ostream& out) const {
  for (const Diagnostic& d : errors_) {
    out << d.loc.file << ':' << d.loc.line << ':' << d.loc.column << ": error: " << d.message
        << '\n';
    if (d.source_line.empty()) continue;
    out << "  " << d.source_line << "\n  ";
    // Copy the tabs of the line so that the caret lines up in any terminal.
    for (int i = 0; i + 1 < d.loc.column && static_cast<std::size_t>(i) < d.source_line.size();
         ++i) {
      out << (d.source_line[i] == '\t' ? '\t' : ' ');
    }
    out << "^\n";
  }
}

}  // namespace sculpt::spacedsl
