#include "spacedsl/diagnostics.h"

#include <algorithm>
#include <string_view>
#include <utility>

namespace sculpt::spacedsl {

namespace {

/// Longer lines (generated or minified files) are shown as this many bytes around the column.
constexpr std::size_t kShownBytes = 100;
constexpr std::string_view kCut = "...";

/// The shown part of `line` and where the column falls in it (0-based).
std::pair<std::string, std::size_t> shown_part(std::string_view line, int column) {
  const std::size_t at = column > 1 ? static_cast<std::size_t>(column - 1) : 0;
  if (line.size() <= kShownBytes) return {std::string(line), at};
  const std::size_t start =
      at > kShownBytes / 2 ? std::min(at - kShownBytes / 2, line.size() - kShownBytes) : 0;
  std::string part(line.substr(start, kShownBytes));
  if (start + kShownBytes < line.size()) part += kCut;
  if (start == 0) return {part, at};
  return {std::string(kCut) + part, at - start + kCut.size()};
}

}  // namespace

void Diagnostics::error(SourceLocation loc, std::string message, std::string_view source_line) {
  auto [line, caret] = shown_part(source_line, loc.column);
  add({std::move(loc), std::move(message), std::move(line), caret});
}

void Diagnostics::add(Diagnostic diagnostic) {
  if (errors_.size() == kMaxErrors) {
    ++dropped_;
    return;
  }
  errors_.push_back(std::move(diagnostic));
}

void Diagnostics::print(std::ostream& out) const {
  for (const Diagnostic& d : errors_) {
    out << d.loc.file << ':' << d.loc.line << ':' << d.loc.column << ": error: " << d.message
        << '\n';
    const std::string& line = d.source_line;
    if (line.empty()) continue;
    out << "  " << line << "\n  ";
    // Copy the tabs of the line so that the caret lines up in any terminal.
    for (std::size_t i = 0; i < d.caret && i < line.size(); ++i) {
      out << (line[i] == '\t' ? '\t' : ' ');
    }
    out << "^\n";
  }
  if (dropped_ > 0)
    out << "and " << dropped_ << " more error" << (dropped_ == 1 ? "" : "s") << "\n";
}

}  // namespace sculpt::spacedsl
