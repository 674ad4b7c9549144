// Conditions, clauses and constraints, wherever they are written: `require`s, `requires` of
// values, quotients, counters' `when` and triggers.
#include <algorithm>
#include <utility>

#include "spacedsl/resolve_state.h"

namespace sculpt::spacedsl::resolver {
namespace {

std::string_view kind_name(ChoiceKind kind) {
  switch (kind) {
    case ChoiceKind::Enum:
      return "an enum choice";
    case ChoiceKind::Integer:
      return "an integer choice";
    case ChoiceKind::Counter:
      return "a counter";
  }
  return "";
}

CompareOp compare_op(const std::string& op) {
  if (op == "<") return CompareOp::Lt;
  if (op == "<=") return CompareOp::Le;
  if (op == ">") return CompareOp::Gt;
  if (op == ">=") return CompareOp::Ge;
  if (op == "==") return CompareOp::Eq;
  return CompareOp::Ne;
}

bool same_domain(const Choice& a, const Choice& b) {
  if (a.kind != ChoiceKind::Enum || b.kind != ChoiceKind::Enum) return false;
  return std::equal(a.values.begin(), a.values.end(), b.values.begin(), b.values.end(),
                    [](const EnumValue& x, const EnumValue& y) { return x.name == y.name; });
}

}  // namespace

std::optional<Condition> State::condition(const SourceFile& file, const ast::Condition& syntax,
                                          const Scope& scope) {
  Condition out;
  if (const auto* host = boost::get<ast::HostCode>(&syntax)) {
    out.kind = Condition::Kind::Code;
    out.loc = loc(file, host->offset);
    out.code = code(file, *host, scope);
    return out;
  }
  if (const auto* constant = boost::get<ast::Constant>(&syntax)) {
    out.kind = Condition::Kind::Constant;
    out.loc = loc(file, constant->offset);
    out.constant = constant->text == "TRUE";
    return out;
  }
  const auto& test = boost::get<ast::ChoiceCondition>(syntax);
  out.loc = loc(file, test.offset);
  std::optional<ChoiceInstance> lhs = instance(file, test.lhs, scope);
  if (const auto* is = boost::get<ast::IsTest>(&test.test)) {
    if (!lhs) return std::nullopt;
    const Choice& choice = model.choices[lhs->choice];
    if (choice.kind != ChoiceKind::Enum) {
      error(file, test.lhs.name.offset,
            "'is' needs an enum choice, '" + choice.name + "' is " +
                std::string(kind_name(choice.kind)));
      return std::nullopt;
    }
    std::optional<ValueSet> values = value_set(file, lhs->choice, is->values);
    if (!values) return std::nullopt;
    out.kind = Condition::Kind::Is;
    out.values = is->negated ? (~*values & all_values(choice.values.size())) : *values;
    out.lhs = std::move(*lhs);
    return out;
  }
  const auto& compare = boost::get<ast::CompareTest>(test.test);
  out.op = compare_op(compare.op);
  if (const auto* host = boost::get<ast::HostCode>(&compare.rhs)) {
    std::string text = code(file, *host, scope);
    if (!lhs) return std::nullopt;
    const Choice& choice = model.choices[lhs->choice];
    if (choice.kind == ChoiceKind::Enum) {
      error(file, compare.offset,
            "'" + compare.op + "' compares integers, '" + choice.name +
                "' is an enum choice (use 'is')");
      return std::nullopt;
    }
    out.kind = Condition::Kind::CompareCode;
    out.code = std::move(text);
    out.lhs = std::move(*lhs);
    return out;
  }
  std::optional<ChoiceInstance> rhs =
      instance(file, boost::get<ast::ChoiceRef>(compare.rhs), scope);
  if (!lhs || !rhs) return std::nullopt;
  const Choice& a = model.choices[lhs->choice];
  const Choice& b = model.choices[rhs->choice];
  bool equality = out.op == CompareOp::Eq || out.op == CompareOp::Ne;
  if (a.kind == ChoiceKind::Enum || b.kind == ChoiceKind::Enum) {
    if (!same_domain(a, b)) {
      error(file, compare.offset,
            "'" + compare.op + "' between choices of different domains: '" + a.name + "' and '" +
                b.name + "'");
      return std::nullopt;
    }
    if (!equality) {
      error(file, compare.offset,
            "'" + compare.op + "' between enum choices; only '==' and '!=' are allowed");
      return std::nullopt;
    }
  }
  bool plain_equality = equality && a.kind != ChoiceKind::Counter && b.kind != ChoiceKind::Counter;
  if (plain_equality) {
    out.kind =
        out.op == CompareOp::Eq ? Condition::Kind::ChoiceEqual : Condition::Kind::ChoiceNotEqual;
  } else {
    out.kind = Condition::Kind::CompareChoices;
  }
  out.lhs = std::move(*lhs);
  out.rhs = std::move(*rhs);
  return out;
}

std::vector<Condition> State::conditions(const SourceFile& file,
                                         const std::vector<ast::Condition>& syntax,
                                         const Scope& scope) {
  std::vector<Condition> out;
  for (const ast::Condition& c : syntax) {
    if (auto resolved = condition(file, c, scope)) out.push_back(std::move(*resolved));
  }
  return out;
}

std::optional<Constraint> State::constraint(const SourceFile& file, const ast::Requirement& body,
                                            Scope scope, const std::optional<Condition>& prefix) {
  bool ok = declare_vars(file, body.forall, scope);
  if (!ok) return std::nullopt;
  Constraint out;
  out.loc = loc(file, body.offset);
  for (const ast::Clause& syntax : body.clauses) {
    Clause clause;
    clause.loc = loc(file, syntax.offset);
    if (prefix) clause.conditions.push_back(*prefix);
    for (const ast::Condition& c : syntax.conditions) {
      if (auto resolved = condition(file, c, scope)) {
        clause.conditions.push_back(std::move(*resolved));
      } else {
        ok = false;
      }
    }
    out.clauses.push_back(std::move(clause));
  }
  if (!ok) return std::nullopt;
  out.vars = std::move(scope.vars);
  return out;
}

}  // namespace sculpt::spacedsl::resolver
