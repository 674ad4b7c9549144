#include "spacedsl/diagnostics.h"

#include <algorithm>
#include <string_view>
#include <utility>

namespace sculpt::spacedsl {

void Diagnostics::error(SourceLocation loc, std::string message, std::string source_line) {
  errors_.push_back({std::move(loc), std::move(message), std::move(source_line)});
}

namespace {

/// Longer lines (generated or minified files) are shown as this many bytes around the column.
constexpr std::size_t kShownBytes = 100;
constexpr std::string_view kCut = "...";

/// The shown part of `line` and where the column falls in it (0-based).
std::pair<std::string, std::size_t> shown_part(const std::string& line, int column) {
  const std::size_t at = column > 1 ? static_cast<std::size_t>(column - 1) : 0;
  if (line.size() <= kShownBytes) return {line, at};
  const std::size_t start =
      at > kShownBytes / 2 ? std::min(at - kShownBytes / 2, line.size() - kShownBytes) : 0;
  std::string part = line.substr(start, kShownBytes);
  if (start + kShownBytes < line.size()) part += kCut;
  if (start == 0) return {part, at};
  return {std::string(kCut) + part, at - start + kCut.size()};
}

}  // namespace

void Diagnostics::print(std::ostream& out) const {
  for (const Diagnostic& d : errors_) {
    out << d.loc.file << ':' << d.loc.line << ':' << d.loc.column << ": error: " << d.message
        << '\n';
    if (d.source_line.empty()) continue;
    const auto [line, at] = shown_part(d.source_line, d.loc.column);
    out << "  " << line << "\n  ";
    // Copy the tabs of the line so that the caret lines up in any terminal.
    for (std::size_t i = 0; i < at && i < line.size(); ++i) out << (line[i] == '\t' ? '\t' : ' ');
    out << "^\n";
  }
}

}  // namespace sculpt::spacedsl
