#include "spacedsl/mutation.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <optional>
#include <utility>

namespace sculpt::spacedsl {
namespace {

struct Mutant {
  std::string name;
  std::function<void(Model&)> apply;
};

const char* op_name(CompareOp op) {
  switch (op) {
    case CompareOp::Lt:
      return "<";
    case CompareOp::Le:
      return "<=";
    case CompareOp::Gt:
      return ">";
    case CompareOp::Ge:
      return ">=";
    case CompareOp::Eq:
      return "==";
    case CompareOp::Ne:
      return "!=";
  }
  return "?";
}

/// The comparisons that hold wherever `op` holds and somewhere else too, short of always.
std::vector<CompareOp> weaker(CompareOp op) {
  switch (op) {
    case CompareOp::Lt:
      return {CompareOp::Le, CompareOp::Ne};
    case CompareOp::Gt:
      return {CompareOp::Ge, CompareOp::Ne};
    case CompareOp::Eq:
      return {CompareOp::Le, CompareOp::Ge};
    default:
      return {};
  }
}

template <typename T>
void erase_at(std::vector<T>& v, std::size_t i) {
  v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
}

bool same(const ChoiceInstance& a, const ChoiceInstance& b) {
  return a.choice == b.choice && a.args == b.args;
}

bool same(const Condition& a, const Condition& b) {
  return a.kind == b.kind && same(a.lhs, b.lhs) && same(a.rhs, b.rhs) && a.values == b.values &&
         a.op == b.op && a.code == b.code && a.constant == b.constant;
}

/// "N.K" or "N.K.J", numbering clauses and conditions from 1.
std::string position(std::size_t n, std::size_t k, std::optional<std::size_t> j = std::nullopt) {
  std::string out = std::to_string(n) + "." + std::to_string(k + 1);
  return j ? out + "." + std::to_string(*j + 1) : out;
}

Mutant drop_condition(std::size_t n, std::size_t k, std::size_t j) {
  return {"drop " + position(n, k, j),
          [n, k, j](Model& m) { erase_at(m.constraints[n].clauses[k].conditions, j); }};
}

/// The mutants of condition j of clause k of constraint n.
void condition_mutants(const Model& model, std::size_t n, std::size_t k, std::size_t j,
                       std::vector<Mutant>& out) {
  const Condition& cond = model.constraints[n].clauses[k].conditions[j];
  const std::string at = position(n, k, j);
  auto edit = [n, k, j](auto f) {
    return [n, k, j, f](Model& m) { f(m.constraints[n].clauses[k].conditions[j]); };
  };
  const bool false_constant = cond.kind == Condition::Kind::Constant && !cond.constant;
  if (model.constraints[n].clauses[k].conditions.size() > 1 && !false_constant) {
    out.push_back(drop_condition(n, k, j));
  }
  if (cond.kind == Condition::Kind::Code || cond.kind == Condition::Kind::Constant) return;
  const Choice& lhs = model.choices[cond.lhs.choice];
  const ValueSet all =
      lhs.values.size() == 64 ? ~ValueSet{0} : (ValueSet{1} << lhs.values.size()) - 1;
  // Each missing value, unless it is the only one (then the condition would always hold).
  if (cond.kind == Condition::Kind::Is && std::popcount(all & ~cond.values) > 1) {
    for (std::size_t v = 0; v < lhs.values.size(); ++v) {
      const ValueSet bit = ValueSet{1} << v;
      if (cond.values & bit) continue;
      out.push_back({"widen " + at + " " + lhs.values[v].name,
                     edit([bit](Condition& c) { c.values |= bit; })});
    }
  }
  const bool integers = lhs.kind != ChoiceKind::Enum;
  std::optional<CompareOp> op;
  if (cond.kind == Condition::Kind::CompareCode || cond.kind == Condition::Kind::CompareChoices) {
    op = cond.op;
  } else if (cond.kind == Condition::Kind::ChoiceEqual && integers) {
    op = CompareOp::Eq;
  }
  if (!op) return;
  for (CompareOp w : weaker(*op)) {
    out.push_back({"compare " + at + " " + op_name(w), edit([w](Condition& c) {
                     if (c.kind == Condition::Kind::ChoiceEqual) {
                       c.kind = Condition::Kind::CompareChoices;
                     }
                     c.op = w;
                   })});
  }
  if (cond.kind == Condition::Kind::CompareCode &&
      (cond.op == CompareOp::Le || cond.op == CompareOp::Ge)) {
    const std::string step = cond.op == CompareOp::Le ? " + 1" : " - 1";
    out.push_back(
        {"shift " + at, edit([step](Condition& c) { c.code = "(" + c.code + ")" + step; })});
  }
}

std::vector<Mutant> mutants(const Model& model) {
  std::vector<Mutant> out;
  for (std::size_t n = 0; n < model.constraints.size(); ++n) {
    const auto& clauses = model.constraints[n].clauses;
    out.push_back({"drop " + std::to_string(n), [n](Model& m) { erase_at(m.constraints, n); }});
    for (std::size_t k = 0; k < clauses.size(); ++k) {
      const std::string clause = position(n, k);
      if (clauses.size() > 1) {
        out.push_back(
            {"drop " + clause, [n, k](Model& m) { erase_at(m.constraints[n].clauses, k); }});
      }
      const auto& conds = clauses[k].conditions;
      const auto always = std::find_if(conds.begin(), conds.end(), [](const Condition& c) {
        return c.kind == Condition::Kind::Constant && c.constant;
      });
      if (always != conds.end()) {
        // The clause always holds: only dropping its TRUE changes it.
        if (conds.size() > 1) {
          out.push_back(drop_condition(n, k, static_cast<std::size_t>(always - conds.begin())));
        }
        continue;
      }
      for (std::size_t j = 0; j < conds.size(); ++j) condition_mutants(model, n, k, j, out);
      // Conditions of the other clauses, as one more disjunct; not constants, which either
      // change nothing or drop the clause, nor one the clause has or another mutant adds.
      std::vector<const Condition*> present;
      for (const Condition& c : conds) present.push_back(&c);
      for (std::size_t l = 0; l < clauses.size(); ++l) {
        for (std::size_t j = 0; l != k && j < clauses[l].conditions.size(); ++j) {
          const Condition& extra = clauses[l].conditions[j];
          if (extra.kind == Condition::Kind::Constant ||
              std::any_of(present.begin(), present.end(),
                          [&](const Condition* c) { return same(*c, extra); })) {
            continue;
          }
          present.push_back(&extra);
          out.push_back({"or " + clause + " " + std::to_string(l + 1) + "." + std::to_string(j + 1),
                         [n, k, l, j](Model& m) {
                           auto& cs = m.constraints[n].clauses;
                           cs[k].conditions.push_back(cs[l].conditions[j]);
                         }});
        }
      }
    }
  }
  return out;
}

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") + 1 - first);
}

}  // namespace

std::vector<std::string> list_mutants(const Model& model) {
  std::vector<std::string> out;
  for (Mutant& m : mutants(model)) out.push_back(std::move(m.name));
  return out;
}

bool apply_mutant(Model& model, std::string_view name) {
  name = trimmed(name);
  if (name.empty()) return true;
  for (const Mutant& m : mutants(model)) {
    if (m.name == name) {
      m.apply(model);
      return true;
    }
  }
  return false;
}

}  // namespace sculpt::spacedsl
