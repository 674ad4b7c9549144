#pragma once
// What the Spirit X3 grammars of sculpt's two languages share (spaces, spacedsl/parser.cpp;
// kernel definitions, frontend/tc_parser.cpp): reserved words, nodes that record where they
// start, the rule macros, and the scanning of the text that their error recovery does.
#include <boost/spirit/home/x3.hpp>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "spacedsl/diagnostics.h"
#include "spacedsl/lexical.h"
#include "spacedsl/source_file.h"

namespace sculpt::spacedsl::parse_support {

namespace x3 = boost::spirit::x3;
using Iterator = const char*;

/// A reserved word: matches only when not followed by an identifier character.
struct Keyword : x3::parser<Keyword> {
  using attribute_type = x3::unused_type;
  static const bool has_attribute = false;

  constexpr explicit Keyword(std::string_view w) : word(w) {}

  template <typename Context, typename RContext, typename Attribute>
  bool parse(Iterator& first, const Iterator& last, const Context& context, RContext&,
             Attribute&) const {
    x3::skip_over(first, last, context);
    if (static_cast<std::size_t>(last - first) < word.size()) return false;
    if (std::string_view(first, word.size()) != word) return false;
    Iterator end = first + word.size();
    if (end != last && is_ident_char(*end)) return false;
    first = end;
    return true;
  }

  std::string_view word;
};

/// Lets on_success turn iterators into offsets: parsing runs `x3::with<BeginTag>(begin)[...]`.
struct BeginTag;

/// Rule ids derive from this so that every node deriving from `Located` records where it starts.
template <typename Located>
struct Annotate {
  template <typename Attribute, typename Context>
  void on_success(const Iterator& first, const Iterator&, Attribute& attr, const Context& context) {
    if constexpr (std::is_base_of_v<Located, Attribute>) {
      attr.offset = static_cast<std::size_t>(first - x3::get<BeginTag>(context));
    }
  }
};

const auto ident_start = x3::char_('a', 'z') | x3::char_('A', 'Z') | x3::char_('_');
const auto ident_char = ident_start | x3::char_('0', '9');
const auto blank = x3::char_(' ') | x3::char_('\t') | x3::char_('\r') | x3::char_('\n');

/// The semantic action that keeps the matched text in the node's `text`.
const auto set_text = [](auto& ctx) {
  x3::_val(ctx).text.assign(x3::_attr(ctx).begin(), x3::_attr(ctx).end());
};

/// Skips blanks and comments (from `comment` to the end of the line), as the skipper does.
std::size_t skip_blank(const std::string& text, std::size_t pos, std::string_view comment);

/// The start of the next line after `pos` whose first word is one of `words`.
std::size_t next_line_starting_with(const std::string& text, std::size_t pos,
                                    std::span<const std::string_view> words);

/// How a language's tokens look, for describe_token.
struct Tokens {
  /// Operators of more than one character, longest first where one begins another.
  std::span<const std::string_view> operators;
  /// Whether `$name` is a token (host-code variables).
  bool dollar_names = false;
  /// Whether `"` starts a string.
  bool strings = false;
};

/// What the parser found at `pos`, for "expected X but found Y".
std::string describe_token(const std::string& text, std::size_t pos, const Tokens& tokens);

/// Where to point an error found at `at`: at the end of the file, just after the last thing
/// written rather than at an empty last line.
std::size_t error_position(const std::string& text, std::size_t at);

/// A syntax error: where it was found, and its message.
struct SyntaxError {
  std::size_t at = 0;
  std::string message;
};

/// What parsing the item at an offset gives: the offset just past it, or why it does not parse.
using ItemParse = std::variant<std::size_t, SyntaxError>;

/// Parses the top-level items of `source` one after another (`parse_item` parses the one at an
/// offset, blanks and `comment`s skipped before it). A syntax error is reported where
/// error_position points, and parsing resumes at the next line whose first word is one of
/// `item_starts`, so that one run reports the errors of several items; past 50 errors the rest
/// of the file is noise and is left.
void parse_items(const SourceFile& source, Diagnostics& diags, std::string_view comment,
                 std::span<const std::string_view> item_starts,
                 const std::function<ItemParse(std::size_t)>& parse_item);

}  // namespace sculpt::spacedsl::parse_support

namespace boost::spirit::x3 {
template <>
struct get_info<sculpt::spacedsl::parse_support::Keyword> {
  using result_type = std::string;
  std::string operator()(const sculpt::spacedsl::parse_support::Keyword& k) const {
    return "'" + std::string(k.word) + "'";
  }
};
}  // namespace boost::spirit::x3

// Rule ids; each names what an "expected ..." message says when the rule is missing. The
// grammar's namespace names its `Annotate` (parse_support::Annotate of its own Located).
#define SCULPT_RULE(id, type, what) \
  struct id##_id : Annotate {};     \
  const x3::rule<id##_id, type> id{what};

// A rule whose definition has a semantic action sees no attribute in on_success, so each
// such rule is an inner `_text` rule wrapped by an annotated one.
#define SCULPT_INNER_RULE(id, type, what) \
  struct id##_text_id {};                 \
  const x3::rule<id##_text_id, type> id##_text{what};
