#include "support/code_writer.h"

#include "support/check.h"

namespace sculpt::support {

CodeWriter& CodeWriter::line(std::string_view text) {
  if (!text.empty()) text_.append(static_cast<std::size_t>(indent_) * 2, ' ');
  text_.append(text);
  text_.push_back('\n');
  return *this;
}

CodeWriter& CodeWriter::open(std::string_view text) {
  line(std::string(text) + (text.empty() ? "{" : " {"));
  ++indent_;
  return *this;
}

CodeWriter& CodeWriter::label(std::string_view text) {
  SCULPT_CHECK(indent_ > 0) << "a label outside a block";
  text_.append(static_cast<std::size_t>(indent_) * 2 - 1, ' ');
  text_.append(text);
  text_.push_back('\n');
  return *this;
}

CodeWriter& CodeWriter::close(std::string_view suffix) {
  SCULPT_CHECK(indent_ > 0) << "unbalanced close in generated code";
  --indent_;
  return line("}" + std::string(suffix));
}

CodeWriter& CodeWriter::comment(std::string_view text, std::string_view prefix) {
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view piece = text.substr(start, end - start);
    if (piece.empty()) {
      line(prefix.substr(0, prefix.find_last_not_of(' ') + 1));
    } else {
      line(std::string(prefix) + std::string(piece));
    }
    start = end + 1;
  }
  return *this;
}

CodeWriter& CodeWriter::lines(const CodeWriter& inner) {
  SCULPT_CHECK(inner.indent_ == 0) << "an unclosed block spliced into generated code";
  std::string_view text = inner.text_;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    line(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  return *this;
}

}  // namespace sculpt::support
