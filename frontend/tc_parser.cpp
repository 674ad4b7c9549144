#include "frontend/tc_parser.h"

#include <boost/fusion/include/adapt_struct.hpp>
#include <boost/spirit/home/x3.hpp>
#include <string_view>

#include "spacedsl/parse_support.h"

namespace ast = sculpt::frontend::ast;

BOOST_FUSION_ADAPT_STRUCT(ast::Call, name, args)
BOOST_FUSION_ADAPT_STRUCT(ast::DimRange, tensor, dim)
BOOST_FUSION_ADAPT_STRUCT(ast::Unary, ops, operand)
BOOST_FUSION_ADAPT_STRUCT(ast::Operation, op, operand)
BOOST_FUSION_ADAPT_STRUCT(ast::Chain, first, rest)
BOOST_FUSION_ADAPT_STRUCT(ast::Branches, then, otherwise)
BOOST_FUSION_ADAPT_STRUCT(ast::Conditional, cond, branches)
BOOST_FUSION_ADAPT_STRUCT(ast::Param, type, sizes, name)
BOOST_FUSION_ADAPT_STRUCT(ast::Range, index, lo, hi)
BOOST_FUSION_ADAPT_STRUCT(ast::Statement, tensor, indices, op, rhs, where)
BOOST_FUSION_ADAPT_STRUCT(ast::Definition, name, params, outputs, statements)

namespace sculpt::frontend {
namespace {

namespace x3 = boost::spirit::x3;
namespace parse_support = spacedsl::parse_support;
using parse_support::BeginTag;
using parse_support::blank;
using parse_support::ident_char;
using parse_support::ident_start;
using parse_support::Iterator;
using parse_support::Keyword;
using parse_support::set_text;
using Annotate = parse_support::Annotate<ast::Located>;

/// Thrown where an expression goes past one of the parser's limits, with what it is.
struct TooLarge {
  Iterator where;
  std::string what;
};

// How deep the expression being parsed nests here, and how many operands its definition holds so
// far: every nesting goes through `expr` or a prefix operator, every operand through `operand`.
thread_local int nesting = 0;
thread_local int operands = 0;

/// A parser that runs `Subject` inside a `Hook`: made where `Subject` starts (it may throw
/// TooLarge), told whether `Subject` parsed (`done`, which may throw too), and destroyed however
/// `Subject` ends.
template <typename Subject, typename Hook>
struct Guarded : x3::unary_parser<Subject, Guarded<Subject, Hook>> {
  using base = x3::unary_parser<Subject, Guarded<Subject, Hook>>;
  static const bool is_pass_through_unary = true;

  constexpr explicit Guarded(const Subject& subject) : base(subject) {}

  template <typename Context, typename RContext, typename Attribute>
  bool parse(Iterator& first, const Iterator& last, const Context& context, RContext& rcontext,
             Attribute& attr) const {
    Hook hook(first);
    return hook.done(this->subject.parse(first, last, context, rcontext, attr));
  }
};

template <typename Hook>
struct GuardGen {
  template <typename Subject>
  constexpr auto operator[](const Subject& subject) const {
    using Parser = typename x3::extension::as_parser<Subject>::value_type;
    return Guarded<Parser, Hook>(x3::as_parser(subject));
  }
};

void deeper(Iterator where) {
  if (nesting >= kMaxNesting) {
    throw TooLarge{where, "expressions nest more than " + std::to_string(kMaxNesting) +
                              " deep (parentheses, calls, selects and prefix operators)"};
  }
  ++nesting;
}

/// An expression: one level deeper while it is parsed.
struct Nested {
  explicit Nested(Iterator where) { deeper(where); }
  ~Nested() { --nesting; }
  bool done(bool parsed) const { return parsed; }
};

/// A prefix operator nests its operand one level deeper, as parentheses do: `--x` is `-(-x)`.
/// The unary expression it belongs to puts the level back (WithPrefixes).
struct Prefix {
  explicit Prefix(Iterator where) : where_(where) {}
  bool done(bool parsed) const {
    if (parsed) deeper(where_);
    return parsed;
  }
  Iterator where_;
};

/// A unary expression: its prefix operators' levels last while it is parsed.
struct WithPrefixes {
  explicit WithPrefixes(Iterator) : outer_(nesting) {}
  ~WithPrefixes() { nesting = outer_; }
  bool done(bool parsed) const { return parsed; }
  int outer_;
};

/// An operand (a number, a name, a call), counted for its definition.
struct Operand {
  explicit Operand(Iterator where) : where_(where) {}
  bool done(bool parsed) const {
    if (parsed && ++operands > kMaxOperands) {
      throw TooLarge{where_, "a definition holds at most " + std::to_string(kMaxOperands) +
                                 " operands (numbers, names and calls) in its expressions"};
    }
    return parsed;
  }
  Iterator where_;
};

/// A definition: its operands are counted from zero.
struct Counted {
  explicit Counted(Iterator) { operands = 0; }
  bool done(bool parsed) const { return parsed; }
};

constexpr GuardGen<Nested> nested{};
constexpr GuardGen<Prefix> prefix{};
constexpr GuardGen<WithPrefixes> with_prefixes{};
constexpr GuardGen<Operand> operand{};
constexpr GuardGen<Counted> counted{};

constexpr Keyword kw_def{"def"}, kw_where{"where"}, kw_in{"in"};
const auto reserved = kw_def | kw_where;

const auto digit = x3::char_('0', '9');
const auto skipper = blank | (x3::lit('#') >> *(x3::char_ - x3::eol));

SCULPT_INNER_RULE(name, ast::Name, "a name")
SCULPT_INNER_RULE(number, ast::Number, "a number")
#undef SCULPT_INNER_RULE

SCULPT_RULE(name, ast::Name, "a name")
SCULPT_RULE(number, ast::Number, "a number")
SCULPT_RULE(expr, ast::Expr, "an expression")
SCULPT_RULE(call, ast::Call, "a call 'name(...)'")
SCULPT_RULE(dim_range, ast::DimRange, "'tensor.dimension'")
SCULPT_RULE(primary, ast::Expr, "an expression")
SCULPT_RULE(unary_op, std::string, "'-', '+' or '!'")
SCULPT_RULE(unary, ast::Unary, "an expression")
SCULPT_RULE(mul_op, std::string, "'*', '/' or '%'")
SCULPT_RULE(mul_operation, ast::Operation, "an operation")
SCULPT_RULE(multiplicative, ast::Chain, "an expression")
SCULPT_RULE(add_op, std::string, "'+' or '-'")
SCULPT_RULE(add_operation, ast::Operation, "an operation")
SCULPT_RULE(additive, ast::Chain, "an expression")
SCULPT_RULE(compare_op, std::string, "a comparison")
SCULPT_RULE(compare_operation, ast::Operation, "a comparison")
SCULPT_RULE(comparison, ast::Chain, "an expression")
SCULPT_RULE(and_operation, ast::Operation, "'&&'")
SCULPT_RULE(logical_and, ast::Chain, "an expression")
SCULPT_RULE(or_operation, ast::Operation, "'||'")
SCULPT_RULE(logical_or, ast::Chain, "an expression")
SCULPT_RULE(branches, ast::Branches, "'?'")
SCULPT_RULE(conditional, ast::Conditional, "an expression")
SCULPT_RULE(size_list, std::vector<ast::Name>, "sizes 'name, ...'")
SCULPT_RULE(param, ast::Param, "a parameter 'type(sizes) name'")
SCULPT_RULE(params, std::vector<ast::Param>, "parameters")
SCULPT_RULE(arrow, x3::unused_type, "'->'")
SCULPT_RULE(outputs, std::vector<ast::Name>, "the outputs '(name, ...)'")
SCULPT_RULE(assign_op, std::string,
            "an assignment ('=', '+=!', '+=', '*=!', '*=', 'min=!', 'min=', 'max=!' or 'max=')")
SCULPT_RULE(range, ast::Range, "a range 'index in lo:hi'")
SCULPT_RULE(where, std::vector<ast::Range>, "'where'")
SCULPT_RULE(statement, ast::Statement, "a statement 'tensor(indices) = expression'")
SCULPT_RULE(body_end, x3::unused_type, "a statement 'tensor(indices) = expression' or '}'")
SCULPT_RULE(definition, ast::Definition, "a definition 'def name(...) -> (...) { ... }'")
#undef SCULPT_RULE

const auto name_text_def = !reserved >> x3::raw[x3::lexeme[ident_start >> *ident_char]][set_text];
// C's literals: 2, 2.5, .5, 1e-3, 1.5f; never directly followed by a name's character.
const auto number_text_def = x3::raw[x3::lexeme[((+digit >> -('.' >> *digit)) | ('.' >> +digit)) >>
                                                -(x3::char_("eE") >> -x3::char_("+-") >> +digit) >>
                                                -x3::char_("fF") >> !ident_char]][set_text];

const auto expr_def = nested[conditional];
const auto call_def = (name >> '(') > -(expr % ',') > ')';
const auto dim_range_def = name >> x3::lexeme['.' >> x3::raw[+digit]];
const auto primary_def =
    operand[number] | operand[call] | operand[dim_range] | operand[name] | ('(' > expr > ')');
const auto unary_op_def = x3::string("-") | x3::string("+") | (x3::string("!") >> !x3::lit('='));
const auto unary_def = with_prefixes[*prefix[unary_op] >> primary];
const auto mul_op_def = x3::string("*") | x3::string("/") | x3::string("%");
const auto mul_operation_def = (mul_op >> !x3::lit('=')) > unary;
const auto multiplicative_def = unary >> *mul_operation;
const auto add_op_def = x3::string("+") | x3::string("-");
const auto add_operation_def = (add_op >> !x3::lit('=')) > multiplicative;
const auto additive_def = multiplicative >> *add_operation;
const auto compare_op_def = x3::string("==") | x3::string("!=") | x3::string("<=") |
                            x3::string(">=") | x3::string("<") | x3::string(">");
const auto compare_operation_def = compare_op > additive;
const auto comparison_def = additive >> *compare_operation;
const auto and_operation_def = x3::string("&&") > comparison;
const auto logical_and_def = comparison >> *and_operation;
const auto or_operation_def = x3::string("||") > logical_and;
const auto logical_or_def = logical_and >> *or_operation;
const auto branches_def = '?' > expr > ':' > expr;
const auto conditional_def = logical_or >> -branches;

const auto size_list_def = '(' > (name % ',') > ')';
const auto param_def = name > -size_list > name;
const auto params_def = '(' > -(param % ',') > ')';
const auto arrow_def = x3::lit("->");
const auto outputs_def = '(' > -(name % ',') > ')';
const auto assign_op_def =
    x3::lexeme[x3::string("+=!") | x3::string("+=") | x3::string("*=!") | x3::string("*=") |
               x3::string("min=!") | x3::string("min=") | x3::string("max=!") | x3::string("max=") |
               (x3::string("=") >> !x3::lit('='))];
const auto range_def = name > kw_in > additive > ':' > additive;
const auto where_def = kw_where > (range % ',');
const auto statement_def = (name >> '(') > -(expr % ',') > ')' > assign_op > expr > -where >
                           -x3::lit(';');
const auto body_end_def = x3::lit('}');
const auto definition_def =
    counted[kw_def > name > params > arrow > outputs > '{' > *statement > body_end];

const auto name_def = name_text;
const auto number_def = number_text;

BOOST_SPIRIT_DEFINE(name_text, number_text)
BOOST_SPIRIT_DEFINE(name, number, expr, call, dim_range, primary, unary_op, unary, mul_op,
                    mul_operation, multiplicative, add_op, add_operation, additive, compare_op,
                    compare_operation, comparison, and_operation, logical_and, or_operation,
                    logical_or, branches, conditional, size_list, param, params, arrow, outputs,
                    assign_op, range, where, statement, body_end, definition)

constexpr std::string_view kComment = "#";

/// Skips blanks and comments, as the skipper does.
std::size_t skip_blank(const std::string& text, std::size_t pos) {
  return parse_support::skip_blank(text, pos, kComment);
}

/// What the parser found at `pos`, for "expected X but found Y".
std::string describe_token(const std::string& text, std::size_t pos) {
  static constexpr std::string_view operators[] = {
      "+=!", "*=!", "->", "+=", "*=", "==", "!=", "<=", ">=", "&&", "||"};
  return parse_support::describe_token(text, pos, {operators, false, false});
}

}  // namespace

ast::File parse(const SourceFile& source, Diagnostics& diags) {
  ast::File file;
  const std::string& text = source.text();
  const Iterator begin = text.data();
  const Iterator end = begin + text.size();
  const auto parser = x3::with<BeginTag>(begin)[definition];
  static constexpr std::string_view starts[] = {"def"};
  parse_support::parse_items(
      source, diags, kComment, starts, [&](std::size_t pos) -> parse_support::ItemParse {
        if (file.definitions.size() == static_cast<std::size_t>(kMaxDefinitions)) {
          return parse_support::SyntaxError{
              pos, "a file holds at most " + std::to_string(kMaxDefinitions) + " definitions"};
        }
        Iterator it = begin + pos;
        std::size_t error_at = pos;
        std::string expected;
        try {
          ast::Definition parsed;
          if (x3::phrase_parse(it, end, parser, skipper, parsed)) {
            file.definitions.push_back(std::move(parsed));
            return static_cast<std::size_t>(it - begin);
          }
          expected = x3::what(definition);
        } catch (const x3::expectation_failure<Iterator>& e) {
          error_at = skip_blank(text, static_cast<std::size_t>(e.where() - begin));
          expected = e.which();
        } catch (const TooLarge& e) {
          return parse_support::SyntaxError{static_cast<std::size_t>(e.where - begin), e.what};
        }
        return parse_support::SyntaxError{
            error_at, "expected " + expected + " but found " + describe_token(text, error_at)};
      });
  return file;
}

}  // namespace sculpt::frontend
