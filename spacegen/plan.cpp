#include "spacegen/plan.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "spacegen/host_code.h"
#include "spacegen/passes.h"

namespace sculpt::spacegen {

namespace {

using spacedsl::ChoiceId;
using spacedsl::ChoiceInstance;
using spacedsl::CompareOp;
using spacedsl::Condition;
using spacedsl::VarId;
using Kind = spacedsl::Condition::Kind;

std::string loc_text(const spacedsl::SourceLocation& loc) {
  return loc.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

/// Caches `cond` per object tuple when it names at most two variables, none over a
/// parametric set (whose members the layout cannot enumerate).
void add_filter(const ModelQueries& q, Plan& plan, const Condition& cond, const Item& item) {
  std::vector<VarId> vars = code_vars(cond.code, item.vars);
  if (vars.size() > 2) return;
  for (VarId v : vars) {
    if (q.is_parametric(q.effective_set(item.vars[v].set))) return;
  }
  plan.filters.push_back({&cond, &item, vars});
}

std::string constraint_name(const spacedsl::Model& m, std::size_t i) {
  const std::string& doc = m.constraints[i].doc;
  std::string first = doc.substr(0, doc.find('\n'));
  return "constraint " + std::to_string(i) + (first.empty() ? "" : " (" + first + ")");
}

/// The counter's patterns: those of its `when`, then its value's.
std::vector<Pattern> counter_patterns(const ModelQueries& q, const Plan& plan, std::size_t i) {
  std::vector<Pattern> ps = patterns_of(plan.counters[i].clauses[0]);
  const auto& value = q.model().choices[plan.counter_ids[i]].counter->value;
  if (value.choice) {
    Pattern p{value.choice->choice, value.choice->args};
    if (std::find(ps.begin(), ps.end(), p) == ps.end()) ps.push_back(p);
  }
  return ps;
}

/// The choices `ps` reads through several argument patterns: one change may then touch a term
/// through two patterns, so the counter is derived again instead of updated.
std::vector<ChoiceId> read_through_several(const std::vector<Pattern>& ps) {
  std::vector<ChoiceId> out;
  for (const Pattern& p : ps) {
    const auto reads =
        std::count_if(ps.begin(), ps.end(), [&](const Pattern& o) { return o.choice == p.choice; });
    if (reads > 1 && std::find(out.begin(), out.end(), p.choice) == out.end()) {
      out.push_back(p.choice);
    }
  }
  return out;
}

/// For each counter, whether propagation may impose a lower and an upper bound on it: a
/// comparison that a clause or a quotient forces bounds it on its side (both for `==`), and
/// a counter counting another passes its kinds of bounds to it (enforce_ cuts counted values).
std::vector<CounterBounds> counter_bounds(const ModelQueries& q, const Plan& plan) {
  std::vector<CounterBounds> bounds(q.model().choices.size());
  auto bound = [&](ChoiceId c, CompareOp op) {
    if (!q.is_counter(c) || op == CompareOp::Ne) return;
    bounds[c].lower = bounds[c].lower || (op != CompareOp::Lt && op != CompareOp::Le);
    bounds[c].upper = bounds[c].upper || (op != CompareOp::Gt && op != CompareOp::Ge);
  };
  for (const auto* items : {&plan.constraints, &plan.quotients}) {
    for (const Item& item : *items) {
      for (const auto& clause : item.clauses) {
        for (const Condition& cond : clause) {
          if (cond.kind == Kind::CompareCode) bound(cond.lhs.choice, cond.op);
          if (cond.kind == Kind::CompareChoices) {
            bound(cond.lhs.choice, cond.op);
            bound(cond.rhs.choice, mirrored_op(cond.op));
          }
          if (cond.kind == Kind::ChoiceEqual) {
            bound(cond.lhs.choice, CompareOp::Eq);
            bound(cond.rhs.choice, CompareOp::Eq);
          }
        }
      }
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (ChoiceId c : plan.counter_ids) {
      const auto& value = q.model().choices[c].counter->value;
      if (!value.choice || !q.is_counter(value.choice->choice)) continue;
      CounterBounds& inner = bounds[value.choice->choice];
      const CounterBounds merged{inner.lower || bounds[c].lower, inner.upper || bounds[c].upper};
      changed = changed || merged != inner;
      inner = merged;
    }
  }
  return bounds;
}

}  // namespace

bool uses_choice(const Condition& cond, const ChoiceInstance* ci) {
  switch (cond.kind) {
    case Kind::Is:
    case Kind::CompareCode:
      return ci == &cond.lhs;
    case Kind::ChoiceEqual:
    case Kind::ChoiceNotEqual:
    case Kind::CompareChoices:
      return true;
    case Kind::Code:
    case Kind::Constant:
      return false;
  }
  return false;
}

std::vector<Pattern> patterns_of(const std::vector<Condition>& conds) {
  std::vector<Pattern> out;
  for (const auto& cond : conds) {
    for (const ChoiceInstance* ci : {&cond.lhs, &cond.rhs}) {
      if (!uses_choice(cond, ci)) continue;
      Pattern p{ci->choice, ci->args};
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
  }
  return out;
}

std::vector<Pattern> patterns_of(const Item& item) {
  std::vector<Pattern> out;
  for (const auto& clause : item.clauses) {
    for (const Pattern& p : patterns_of(clause)) {
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
  }
  return out;
}

bool clause_has(const std::vector<Condition>& clause, const Pattern& p) {
  auto ps = patterns_of(clause);
  return std::find(ps.begin(), ps.end(), p) != ps.end();
}

bool reads_choice(const Item& item, ChoiceId c) {
  const std::vector<Pattern> ps = patterns_of(item);
  return std::any_of(ps.begin(), ps.end(), [&](const Pattern& p) { return p.choice == c; });
}

std::vector<VarId> condition_vars(const Condition& cond, const Item& item) {
  std::vector<VarId> out;
  for (const ChoiceInstance* ci : {&cond.lhs, &cond.rhs}) {
    if (uses_choice(cond, ci)) out.insert(out.end(), ci->args.begin(), ci->args.end());
  }
  if (cond.kind == Kind::Code || cond.kind == Kind::CompareCode) {
    for (VarId v : code_vars(cond.code, item.vars)) out.push_back(v);
  }
  return out;
}

std::optional<std::size_t> filter_of(const Plan& plan, const Condition& cond) {
  for (std::size_t k = 0; k < plan.filters.size(); ++k) {
    if (plan.filters[k].cond == &cond) return k;
  }
  return std::nullopt;
}

bool enforced_term_wise(const spacedsl::Counter& counter) {
  return counter.op != spacedsl::CounterOp::Max;
}

void plan_static_filters(const ModelQueries& q, Plan& plan) {
  for (const auto* items : {&plan.constraints, &plan.counters, &plan.triggers, &plan.quotients}) {
    for (const Item& item : *items) {
      for (const auto& clause : item.clauses) {
        for (const auto& cond : clause) {
          if (cond.kind == Kind::Code) add_filter(q, plan, cond, item);
        }
      }
    }
  }
}

void plan_origins(const ModelQueries& q, Plan& plan) {
  const spacedsl::Model& m = q.model();
  plan.origins.push_back({"action", ""});
  for (std::size_t i = 0; i < m.constraints.size(); ++i) {
    plan.origins.push_back({constraint_name(m, i), loc_text(m.constraints[i].loc)});
  }
  for (ChoiceId c : plan.counter_ids) {
    plan.origins.push_back({"counter " + q.cname(c), loc_text(m.choices[c].loc)});
  }
  for (const auto& quotient : m.quotients) {
    plan.origins.push_back({"quotient " + m.sets[quotient.set].name, loc_text(quotient.loc)});
  }
}

void plan_constraint_names(const ModelQueries& q, Plan& plan) {
  const auto& constraints = q.model().constraints;
  for (std::size_t i = 0; i < constraints.size(); ++i) {
    std::string name = std::filesystem::path(constraints[i].loc.file).stem().string();
    for (char& c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    name += "_" + std::to_string(constraints[i].loc.line);
    const auto& names = plan.constraint_names;
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      name += "_" + std::to_string(i);
    }
    plan.constraint_names.push_back(name);
  }
}

void plan_counters(const ModelQueries& q, Plan& plan) {
  for (std::size_t i = 0; i < plan.counters.size(); ++i) {
    plan.counter_patterns.push_back(counter_patterns(q, plan, i));
    plan.rederived_on.push_back(read_through_several(plan.counter_patterns.back()));
  }
  plan.counter_bounds = counter_bounds(q, plan);
}

void plan_value_maps(const ModelQueries& q, Plan& plan) {
  std::set<std::pair<ChoiceId, ChoiceId>> out;
  for (const auto* items : {&plan.constraints, &plan.counters, &plan.triggers, &plan.quotients}) {
    for (const Item& item : *items) {
      for (const auto& clause : item.clauses) {
        for (const auto& cond : clause) {
          if ((cond.kind != Kind::ChoiceEqual && cond.kind != Kind::ChoiceNotEqual) ||
              !q.is_enum(cond.lhs.choice) || q.same_values(cond.lhs.choice, cond.rhs.choice)) {
            continue;
          }
          out.insert({cond.lhs.choice, cond.rhs.choice});
          out.insert({cond.rhs.choice, cond.lhs.choice});
        }
      }
    }
  }
  plan.value_maps.assign(out.begin(), out.end());
}

Plan build_plan(const spacedsl::Model& model) {
  const ModelQueries q(model);
  Plan plan;
  desugar_items(q, plan);
  plan_static_filters(q, plan);
  plan_origins(q, plan);
  plan_constraint_names(q, plan);
  plan_counters(q, plan);
  plan_value_maps(q, plan);
  plan_support_tables(q, plan);
  plan_wakeups(q, plan);
  plan_triangles(q, plan);
  for (const auto& quotient : model.quotients)
    plan.hoists_peers.push_back(quotient.vars.size() > 1);
  return plan;
}

}  // namespace sculpt::spacegen
