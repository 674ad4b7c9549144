// Quotient desugaring: the items (constraints, counter terms, triggers, quotient conditions)
// the other passes and the emitters read. Quantifying over a quotient set quantifies over its
// element set with `repr(..., $x) is FALSE` added to each clause of a constraint, or
// `repr is TRUE` added to counter and trigger conditions.
#include <functional>

#include "spacegen/host_code.h"
#include "spacegen/passes.h"

namespace sculpt::spacegen {

namespace {

using spacedsl::ChoiceId;
using spacedsl::ChoiceInstance;
using spacedsl::ChoiceKind;
using spacedsl::Condition;
using spacedsl::Variable;
using spacedsl::VarId;
using Kind = spacedsl::Condition::Kind;

/// `repr(params, $v) is <value>` for a variable over a quotient set.
Condition repr_condition(const ModelQueries& q, const std::vector<Variable>& vars, VarId v,
                         const char* value) {
  const spacedsl::Model& m = q.model();
  const spacedsl::Quotient& quotient = m.quotients[*m.sets[vars[v].set].quotient];
  Condition cond;
  cond.kind = Kind::Is;
  cond.loc = vars[v].loc;
  cond.lhs.choice = quotient.repr_choice;
  cond.lhs.loc = vars[v].loc;
  if (vars[v].set_parameter) cond.lhs.args.push_back(*vars[v].set_parameter);
  cond.lhs.args.push_back(v);
  cond.values = q.value_bit(quotient.repr_choice, value);
  return cond;
}

/// Adds `repr is value` to `conds` for each variable over a quotient set.
void add_repr_conditions(const ModelQueries& q, const std::vector<Variable>& vars,
                         std::vector<Condition>& conds, const char* value) {
  for (VarId v = 0; v < vars.size(); ++v) {
    if (q.is_quotient(vars[v].set)) conds.push_back(repr_condition(q, vars, v, value));
  }
}

void constraint_items(const ModelQueries& q, Plan& plan) {
  for (const auto& c : q.model().constraints) {
    Item item{c.vars, {}, {}, false};
    for (const auto& clause : c.clauses) {
      std::vector<Condition> conds = clause.conditions;
      add_repr_conditions(q, c.vars, conds, "FALSE");
      item.clauses.push_back(std::move(conds));
    }
    plan.constraints.push_back(std::move(item));
  }
}

void counter_items(const ModelQueries& q, Plan& plan) {
  const spacedsl::Model& m = q.model();
  for (ChoiceId id = 0; id < m.choices.size(); ++id) {
    const auto& choice = m.choices[id];
    if (choice.kind != ChoiceKind::Counter) continue;
    const spacedsl::Counter& counter = *choice.counter;
    Item item{choice.args, {counter.when}, {}, false};
    item.vars.insert(item.vars.end(), counter.forall.begin(), counter.forall.end());
    add_repr_conditions(q, item.vars, item.clauses[0], "TRUE");
    if (counter.value.choice) {
      item.value_vars = counter.value.choice->args;
    } else {
      item.value_vars = code_vars(counter.value.code, item.vars);
    }
    plan.counter_ids.push_back(id);
    plan.counters.push_back(std::move(item));
  }
}

/// Triggers, then each quotient's `add_to_set`, which runs like a trigger once an object is
/// certainly a representative.
void trigger_items(const ModelQueries& q, Plan& plan) {
  const spacedsl::Model& m = q.model();
  for (const auto& t : m.triggers) {
    Item item{t.vars, {t.conditions}, {}, true};
    add_repr_conditions(q, t.vars, item.clauses[0], "TRUE");
    plan.triggers.push_back(std::move(item));
    plan.trigger_code.push_back({t.code, t.doc, t.loc});
  }
  for (const auto& quotient : m.quotients) {
    const spacedsl::Set& set = m.sets[quotient.set];
    if (set.add_to_set.empty()) continue;
    Condition repr;
    repr.kind = Kind::Is;
    repr.loc = quotient.loc;
    repr.lhs.choice = quotient.repr_choice;
    repr.lhs.loc = quotient.loc;
    for (VarId v = 0; v < quotient.vars.size(); ++v) repr.lhs.args.push_back(v);
    repr.values = q.value_bit(quotient.repr_choice, "TRUE");
    plan.triggers.push_back(Item{quotient.vars, {{repr}}, {}, true});
    std::string code = substitute_keep(set.add_to_set, "item", "$" + quotient.vars.back().name);
    plan.trigger_code.push_back({code, "add_to_set of " + set.name, set.loc});
  }
}

/// Counters whose values or conditions read other counters come after them.
void order_counters(const ModelQueries& q, Plan& plan) {
  const spacedsl::Model& m = q.model();
  std::vector<int> state(m.choices.size(), 0);
  std::function<void(ChoiceId)> visit = [&](ChoiceId c) {
    if (state[c] != 0) return;
    state[c] = 1;
    const auto& counter = *m.choices[c].counter;
    if (counter.value.choice && m.choices[counter.value.choice->choice].counter) {
      visit(counter.value.choice->choice);
    }
    for (const auto& cond : counter.when) {
      for (const ChoiceInstance* ci : {&cond.lhs, &cond.rhs}) {
        if (uses_choice(cond, ci) && m.choices[ci->choice].counter) visit(ci->choice);
      }
    }
    state[c] = 2;
    plan.counter_order.push_back(c);
  };
  for (ChoiceId c : plan.counter_ids) visit(c);
}

}  // namespace

void desugar_items(const ModelQueries& q, Plan& plan) {
  constraint_items(q, plan);
  counter_items(q, plan);
  trigger_items(q, plan);
  for (const auto& quotient : q.model().quotients) {
    plan.quotients.push_back(Item{quotient.vars, {quotient.condition}, {}, false});
  }
  order_counters(q, plan);
}

}  // namespace sculpt::spacegen
