#pragma once
// C-like text (generated C++, C, CUDA) built line by line with indentation: the one emission
// mechanism of spacegen and of codegen's printers.
#include <string>
#include <string_view>

namespace sculpt::support {

class CodeWriter {
 public:
  /// One line at the current indentation (an empty argument writes an empty line).
  CodeWriter& line(std::string_view text = {});
  /// `text {` then indents.
  CodeWriter& open(std::string_view text);
  /// A line one space into the enclosing block: access specifiers (`public:`).
  CodeWriter& label(std::string_view text);
  /// Dedents then `}` followed by `suffix`.
  CodeWriter& close(std::string_view suffix = {});
  /// Several lines of a comment, each prefixed with `prefix` ("// " or "/// ").
  CodeWriter& comment(std::string_view text, std::string_view prefix = "// ");
  /// The lines another writer wrote, indented from here: code written before what must
  /// precede it is known.
  CodeWriter& lines(const CodeWriter& inner);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  int indent_ = 0;
};

}  // namespace sculpt::support
