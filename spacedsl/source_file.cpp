#include "spacedsl/source_file.h"

#include <algorithm>

namespace sculpt::spacedsl {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

SourceLocation SourceFile::location(std::size_t offset) const {
  offset = std::min(offset, text_.size());
  auto next = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  std::size_t line = static_cast<std::size_t>(next - line_starts_.begin());
  return {name_, static_cast<int>(line), static_cast<int>(offset - line_starts_[line - 1] + 1)};
}

std::string_view SourceFile::line_view(int line) const {
  if (line < 1 || static_cast<std::size_t>(line) > line_starts_.size()) return {};
  std::size_t begin = line_starts_[line - 1];
  std::size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

}  // namespace sculpt::spacedsl
