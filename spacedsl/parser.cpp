#include "spacedsl/parser.h"

#include <boost/fusion/include/adapt_struct.hpp>
#include <boost/spirit/home/x3.hpp>
#include <string_view>

#include "spacedsl/parse_support.h"

namespace ast = sculpt::spacedsl::ast;

BOOST_FUSION_ADAPT_STRUCT(ast::VarDecl, var, set, set_arg)
BOOST_FUSION_ADAPT_STRUCT(ast::ChoiceRef, name, args)
BOOST_FUSION_ADAPT_STRUCT(ast::IsTest, negated, values)
BOOST_FUSION_ADAPT_STRUCT(ast::CompareTest, op, rhs)
BOOST_FUSION_ADAPT_STRUCT(ast::ChoiceCondition, lhs, test)
BOOST_FUSION_ADAPT_STRUCT(ast::Requirement, forall, clauses)
BOOST_FUSION_ADAPT_STRUCT(ast::HostField, field, code)
BOOST_FUSION_ADAPT_STRUCT(ast::ReverseField, var, code)
BOOST_FUSION_ADAPT_STRUCT(ast::SetDecl, name, param, superset, fields)
BOOST_FUSION_ADAPT_STRUCT(ast::QuotientDecl, name, param, element, repr, condition, equivalence,
                          equivalence_values, fields)
BOOST_FUSION_ADAPT_STRUCT(ast::ValueDecl, name, requires_)
BOOST_FUSION_ADAPT_STRUCT(ast::AliasDecl, name, values, requires_)
BOOST_FUSION_ADAPT_STRUCT(ast::Mapping, from, to)
BOOST_FUSION_ADAPT_STRUCT(ast::EnumChoice, name, args, items)
BOOST_FUSION_ADAPT_STRUCT(ast::IntegerChoice, name, args, universe)
BOOST_FUSION_ADAPT_STRUCT(ast::CounterChoice, half, name, args, forall, op, value, when)
BOOST_FUSION_ADAPT_STRUCT(ast::TriggerDecl, forall, code, conditions)

namespace sculpt::spacedsl {
namespace {

namespace x3 = boost::spirit::x3;
using parse_support::BeginTag;
using parse_support::blank;
using parse_support::ident_char;
using parse_support::ident_start;
using parse_support::Iterator;
using parse_support::Keyword;
using parse_support::set_text;
using Annotate = parse_support::Annotate<ast::Located>;

constexpr Keyword kw_include{"include"}, kw_set{"set"}, kw_quotient{"quotient"},
    kw_choice{"choice"}, kw_require{"require"}, kw_requires{"requires"}, kw_trigger{"trigger"},
    kw_forall{"forall"}, kw_in{"in"}, kw_of{"of"}, kw_is{"is"}, kw_not{"not"}, kw_enum{"enum"},
    kw_integer{"integer"}, kw_counter{"counter"}, kw_half{"half"}, kw_value{"value"},
    kw_alias{"alias"}, kw_antisymmetric{"antisymmetric"}, kw_symmetric{"symmetric"}, kw_end{"end"},
    kw_subsetof{"subsetof"}, kw_disjoint{"disjoint"}, kw_reverse{"reverse"}, kw_when{"when"},
    kw_sum{"sum"}, kw_mul{"mul"}, kw_max{"max"}, kw_true{"TRUE"}, kw_false{"FALSE"};

const auto reserved = kw_include | kw_set | kw_quotient | kw_choice | kw_require | kw_requires |
                      kw_trigger | kw_forall | kw_in | kw_of | kw_is | kw_not | kw_enum |
                      kw_integer | kw_counter | kw_half | kw_value | kw_alias | kw_antisymmetric |
                      kw_symmetric | kw_end | kw_subsetof | kw_disjoint | kw_reverse | kw_when |
                      kw_sum | kw_mul | kw_max;

const auto skipper = blank | (x3::lit("//") >> *(x3::char_ - x3::eol));

const auto set_raw = [](auto& ctx) {
  x3::_val(ctx).raw.assign(x3::_attr(ctx).begin(), x3::_attr(ctx).end());
};

SCULPT_INNER_RULE(name, ast::Name, "a name")
SCULPT_INNER_RULE(var, ast::VarRef, "a variable '$name'")
SCULPT_INNER_RULE(host_code, ast::HostCode, "a string")
SCULPT_INNER_RULE(constant, ast::Constant, "TRUE or FALSE")
SCULPT_INNER_RULE(clause, ast::Clause, "a condition")
SCULPT_INNER_RULE(include, ast::Include, "'include'")
SCULPT_INNER_RULE(disjoint_field, ast::DisjointField, "'disjoint'")
SCULPT_INNER_RULE(antisymmetric, ast::Antisymmetric, "'antisymmetric'")
SCULPT_INNER_RULE(require_decl, ast::RequireDecl, "'require'")
#undef SCULPT_INNER_RULE

SCULPT_RULE(name, ast::Name, "a name")
SCULPT_RULE(var, ast::VarRef, "a variable '$name'")
SCULPT_RULE(host_code, ast::HostCode, "a string")
SCULPT_RULE(closing_quote, x3::unused_type, "'\"' closing the string on the same line")
SCULPT_RULE(var_decl, ast::VarDecl, "a variable declaration '$name in Set'")
SCULPT_RULE(arg_decls, std::vector<ast::VarDecl>, "variable declarations '$name in Set'")
SCULPT_RULE(choice_ref, ast::ChoiceRef, "a choice instance 'name($args)'")
SCULPT_RULE(value_list, std::vector<ast::Name>, "a value name")
SCULPT_RULE(is_test, ast::IsTest, "'is'")
SCULPT_RULE(compare_op, std::string, "a comparison")
SCULPT_RULE(operand, ast::Operand, "a string or a choice instance")
SCULPT_RULE(compare_test, ast::CompareTest, "a comparison")
SCULPT_RULE(test, ast::ConditionTest,
            "'is', 'is not' or a comparison ('<', '<=', '>', '>=', '==', '!=')")
SCULPT_RULE(choice_condition, ast::ChoiceCondition, "a condition")
SCULPT_RULE(constant, ast::Constant, "TRUE or FALSE")
SCULPT_RULE(condition, ast::Condition, "a condition")
SCULPT_RULE(condition_and, std::vector<ast::Condition>, "conditions joined by '&&'")
SCULPT_RULE(disjunction, std::vector<ast::Condition>, "a condition")
SCULPT_RULE(clause, ast::Clause, "a condition")
SCULPT_RULE(forall_head, ast::VarDecl, "'forall'")
SCULPT_RULE(clauses, std::vector<ast::Clause>, "a condition")
SCULPT_RULE(requirement, ast::Requirement, "'forall' or a condition")
SCULPT_RULE(include, ast::Include, "'include'")
SCULPT_RULE(host_field, ast::HostField, "a field 'name = \"code\"'")
SCULPT_RULE(disjoint_field, ast::DisjointField, "'disjoint'")
SCULPT_RULE(reverse_field, ast::ReverseField, "'reverse'")
SCULPT_RULE(set_field, ast::SetField, "a set field")
SCULPT_RULE(set_fields_end, x3::unused_type,
            "a field 'name = \"code\"', 'disjoint:', 'reverse forall' or 'end'")
SCULPT_RULE(set_decl, ast::SetDecl, "'set'")
SCULPT_RULE(quotient_decl, ast::QuotientDecl, "'quotient'")
SCULPT_RULE(requires_clause, ast::Requirement, "'requires'")
SCULPT_RULE(value_decl, ast::ValueDecl, "'value'")
SCULPT_RULE(alias_decl, ast::AliasDecl, "'alias'")
SCULPT_RULE(mapping, ast::Mapping, "a mapping 'A -> B'")
SCULPT_RULE(mappings, std::vector<ast::Mapping>, "a mapping 'A -> B'")
SCULPT_RULE(antisymmetric, ast::Antisymmetric, "'antisymmetric'")
SCULPT_RULE(symmetric, ast::Symmetric, "'symmetric'")
SCULPT_RULE(enum_item, ast::EnumItem, "an enum item")
SCULPT_RULE(enum_end, x3::unused_type, "'value', 'alias', 'antisymmetric', 'symmetric' or 'end'")
SCULPT_RULE(enum_choice, ast::EnumChoice, "'enum'")
SCULPT_RULE(integer_choice, ast::IntegerChoice, "'integer'")
SCULPT_RULE(counter_op, std::string, "'sum', 'mul' or 'max'")
SCULPT_RULE(counter_when, std::vector<ast::Condition>, "a condition or 'end'")
SCULPT_RULE(counter_choice, ast::CounterChoice, "'counter'")
SCULPT_RULE(choice_body, ast::ChoiceDecl, "'enum', 'integer', 'counter' or 'half counter'")
SCULPT_RULE(choice_decl, ast::ChoiceDecl, "'choice'")
SCULPT_RULE(require_decl, ast::RequireDecl, "'require'")
SCULPT_RULE(trigger_decl, ast::TriggerDecl, "'trigger'")
SCULPT_RULE(item, ast::Item,
            "an item ('include', 'set', 'quotient', 'choice', 'require' or 'trigger')")
#undef SCULPT_RULE

const auto name_text_def = !reserved >> x3::raw[x3::lexeme[ident_start >> *ident_char]][set_text];
const auto var_text_def = x3::lexeme['$' >> x3::raw[ident_start >> *ident_char][set_text]];
const auto host_code_text_def =
    x3::lexeme[('"' >> x3::raw[*(('\\' >> (x3::char_ - x3::eol)) |
                                 (x3::char_ - '"' - '\\' - x3::eol))][set_raw]) > closing_quote];
const auto closing_quote_def = x3::lit('"');
const auto var_decl_def = var > kw_in > name > -('(' > var > ')');
const auto arg_decls_def = '(' > -(var_decl % ',') > ')';

const auto choice_ref_def = (name >> '(') > -(var % ',') > ')';
const auto value_list_def = name % '|';
const auto is_test_def = (kw_is >> x3::matches[kw_not]) > value_list;
const auto compare_op_def = x3::string("<=") | x3::string(">=") | x3::string("==") |
                            x3::string("!=") | x3::string("<") | x3::string(">");
const auto operand_def = host_code | choice_ref;
const auto compare_test_def = compare_op > operand;
const auto test_def = is_test | compare_test;
const auto choice_condition_def = choice_ref > test;
const auto constant_text_def = x3::raw[kw_true | kw_false][set_text] >> !x3::lit('(');
const auto condition_def = host_code | constant | choice_condition;
const auto condition_and_def = condition >> *("&&" > condition);
const auto disjunction_def = condition >> *("||" > condition);
const auto clause_text_def =
    disjunction[([](auto& ctx) { x3::_val(ctx).conditions = std::move(x3::_attr(ctx)); })];
const auto forall_head_def = kw_forall > var_decl > ':';
const auto clauses_def = +clause;
const auto requirement_def = *forall_head > clauses;

const auto include_text_def =
    (kw_include > host_code)[([](auto& ctx) { x3::_val(ctx).path = x3::_attr(ctx); })];
const auto host_field_def = (name >> '=') > host_code;
const auto disjoint_field_text_def =
    (kw_disjoint > ':' >
     (name % ','))[([](auto& ctx) { x3::_val(ctx).sets = std::move(x3::_attr(ctx)); })];
const auto reverse_field_def = kw_reverse > kw_forall > var_decl > '=' > host_code;
const auto set_field_def = host_field | disjoint_field | reverse_field;
const auto set_fields_end_def = kw_end;
const auto set_decl_def = kw_set > name > -('(' > var_decl > ')') > -(kw_subsetof > name) > ':' >
                          *set_field > set_fields_end;
const auto quotient_decl_def = kw_quotient > name > -('(' > var_decl > ')') > kw_of > var_decl >
                               ':' > name > '=' > condition_and > '/' > name > kw_is > value_list >
                               *set_field > set_fields_end;

const auto requires_clause_def = kw_requires > requirement;
const auto value_decl_def = kw_value > name > ':' > *requires_clause;
const auto alias_decl_def = kw_alias > name > '=' > value_list > ':' > *requires_clause;
const auto mapping_def = (name >> "->") > name;
const auto mappings_def = +mapping;
const auto antisymmetric_text_def =
    (kw_antisymmetric > ':' >
     mappings)[([](auto& ctx) { x3::_val(ctx).mappings = std::move(x3::_attr(ctx)); })];
const auto symmetric_def = kw_symmetric;
const auto enum_item_def = value_decl | alias_decl | antisymmetric | symmetric;
const auto enum_end_def = kw_end;
const auto enum_choice_def = kw_enum > name > arg_decls > ':' > *enum_item > enum_end;
const auto integer_choice_def = kw_integer > name > arg_decls > ':' > host_code > kw_end;
const auto counter_op_def = x3::raw[kw_sum | kw_mul | kw_max];
const auto counter_when_def = condition_and | x3::eps;
const auto counter_choice_def = (x3::matches[kw_half] >> kw_counter) > name > arg_decls > ':' >
                                *forall_head > counter_op > operand > kw_when >
                                -x3::lit(':') > counter_when > kw_end;
const auto choice_body_def = enum_choice | integer_choice | counter_choice;
const auto choice_decl_def = kw_choice > choice_body;
const auto require_decl_text_def =
    (kw_require > requirement)[([](auto& ctx) { x3::_val(ctx).body = x3::_attr(ctx); })];
const auto trigger_decl_def = kw_trigger > *forall_head > host_code > kw_when >
                              -x3::lit(':') > condition_and;
const auto item_def =
    include | set_decl | quotient_decl | choice_decl | require_decl | trigger_decl;

const auto name_def = name_text;
const auto var_def = var_text;
const auto host_code_def = host_code_text;
const auto constant_def = constant_text;
const auto clause_def = clause_text;
const auto include_def = include_text;
const auto disjoint_field_def = disjoint_field_text;
const auto antisymmetric_def = antisymmetric_text;
const auto require_decl_def = require_decl_text;

BOOST_SPIRIT_DEFINE(name_text, var_text, host_code_text, constant_text, clause_text, include_text,
                    disjoint_field_text, antisymmetric_text, require_decl_text)
BOOST_SPIRIT_DEFINE(name, var, host_code, closing_quote, var_decl, arg_decls, choice_ref,
                    value_list, is_test, compare_op, operand, compare_test, test, choice_condition,
                    constant, condition, condition_and, disjunction, clause, forall_head, clauses,
                    requirement, include, host_field, disjoint_field, reverse_field, set_field,
                    set_fields_end, set_decl, quotient_decl, requires_clause, value_decl,
                    alias_decl, mapping, mappings, antisymmetric, symmetric, enum_item, enum_end,
                    enum_choice, integer_choice, counter_op, counter_when, counter_choice,
                    choice_body, choice_decl, require_decl, trigger_decl, item)

constexpr std::string_view kComment = "//";

/// Skips blanks and comments, as the skipper does.
std::size_t skip_blank(const std::string& text, std::size_t pos) {
  return parse_support::skip_blank(text, pos, kComment);
}

/// What the parser found at `pos`, for "expected X but found Y".
std::string describe_token(const std::string& text, std::size_t pos) {
  static constexpr std::string_view operators[] = {"||", "&&", "->", "==", "!=", "<=", ">="};
  return parse_support::describe_token(text, pos, {operators, true, true});
}

}  // namespace

void report(Diagnostics& diags, const SourceFile& source, std::size_t offset, std::string message) {
  SourceLocation loc = source.location(offset);
  const std::string_view line = source.line_view(loc.line);
  diags.error(std::move(loc), std::move(message), line);
}

ast::File parse(const SourceFile& source, Diagnostics& diags) {
  ast::File file;
  const std::string& text = source.text();
  const Iterator begin = text.data();
  const Iterator end = begin + text.size();
  const auto parser = x3::with<BeginTag>(begin)[item];
  static constexpr std::string_view starts[] = {"include", "set",     "quotient",
                                                "choice",  "require", "trigger"};
  parse_support::parse_items(
      source, diags, kComment, starts, [&](std::size_t pos) -> parse_support::ItemParse {
        Iterator it = begin + pos;
        std::size_t error_at = pos;
        std::string expected;
        try {
          ast::Item parsed;
          if (x3::phrase_parse(it, end, parser, skipper, parsed)) {
            file.items.push_back(std::move(parsed));
            return static_cast<std::size_t>(it - begin);
          }
          expected = x3::what(item);
        } catch (const x3::expectation_failure<Iterator>& e) {
          expected = e.which();
          error_at = static_cast<std::size_t>(e.where() - begin);
          // A string stops at its line break: point there rather than at the next token.
          if (expected != x3::what(closing_quote)) error_at = skip_blank(text, error_at);
        }
        return parse_support::SyntaxError{
            error_at, "expected " + expected + " but found " + describe_token(text, error_at)};
      });
  return file;
}

}  // namespace sculpt::spacedsl
