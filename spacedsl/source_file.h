#pragma once
// The text of one `.space` file and the mapping from byte offsets to lines and columns.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "spacedsl/source_location.h"

namespace sculpt::spacedsl {

class SourceFile {
 public:
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  /// Line and column (both from 1, columns in bytes) of a byte offset; an offset past the end
  /// maps to the end of the text.
  SourceLocation location(std::size_t offset) const;
  /// The text of a line (from 1) without its line break; empty when out of range.
  std::string line_text(int line) const { return std::string(line_view(line)); }
  std::string_view line_view(int line) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<std::size_t> line_starts_;
};

}  // namespace sculpt::spacedsl
