#include "spacedsl/parse_support.h"

#include "spacedsl/parser.h"

namespace sculpt::spacedsl::parse_support {

std::size_t skip_blank(const std::string& text, std::size_t pos, std::string_view comment) {
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      ++pos;
    } else if (text.compare(pos, comment.size(), comment) == 0) {
      pos = text.find('\n', pos);
      if (pos == std::string::npos) return text.size();
    } else {
      break;
    }
  }
  return pos;
}

std::size_t next_line_starting_with(const std::string& text, std::size_t pos,
                                    std::span<const std::string_view> words) {
  while (true) {
    pos = text.find('\n', pos);
    if (pos == std::string::npos) return text.size();
    ++pos;
    std::size_t word = pos;
    while (word < text.size() && (text[word] == ' ' || text[word] == '\t')) ++word;
    std::size_t end = word;
    while (end < text.size() && is_ident_char(text[end])) ++end;
    const std::string_view first(text.data() + word, end - word);
    for (std::string_view w : words) {
      if (first == w) return pos;
    }
  }
}

std::string describe_token(const std::string& text, std::size_t pos, const Tokens& tokens) {
  if (pos >= text.size()) return "end of file";
  const char c = text[pos];
  if (c == '\n' || c == '\r') return "end of line";
  if (is_ident_char(c) || (tokens.dollar_names && c == '$')) {
    std::size_t end = pos + 1;
    while (end < text.size() && is_ident_char(text[end]) && end - pos < 40) ++end;
    return "'" + text.substr(pos, end - pos) + "'";
  }
  if (tokens.strings && c == '"') return "a string";
  for (std::string_view op : tokens.operators) {
    if (text.compare(pos, op.size(), op) == 0) return "'" + std::string(op) + "'";
  }
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return std::string("'") + c + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

std::size_t error_position(const std::string& text, std::size_t at) {
  if (at != text.size()) return at;
  while (at > 0 && (text[at - 1] == '\n' || text[at - 1] == '\r' || text[at - 1] == ' ' ||
                    text[at - 1] == '\t')) {
    --at;
  }
  return at;
}

void parse_items(const SourceFile& source, Diagnostics& diags, std::string_view comment,
                 std::span<const std::string_view> item_starts,
                 const std::function<ItemParse(std::size_t)>& parse_item) {
  constexpr std::size_t kMaxSyntaxErrors = 50;
  const std::string& text = source.text();
  std::size_t errors = 0;
  std::size_t pos = skip_blank(text, 0, comment);
  while (pos < text.size()) {
    if (errors == kMaxSyntaxErrors) {
      report(diags, source, pos, "too many syntax errors, giving up on this file");
      return;
    }
    ItemParse parsed = parse_item(pos);
    if (const std::size_t* past = std::get_if<std::size_t>(&parsed)) {
      pos = skip_blank(text, *past, comment);
      continue;
    }
    SyntaxError& error = std::get<SyntaxError>(parsed);
    const std::size_t at = error_position(text, error.at);
    report(diags, source, at, std::move(error.message));
    ++errors;
    pos = skip_blank(text, next_line_starting_with(text, at, item_starts), comment);
  }
}

}  // namespace sculpt::spacedsl::parse_support
