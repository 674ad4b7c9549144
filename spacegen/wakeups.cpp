// Wake-ups: which clauses posting settles, which patterns of a constraint wake a propagator
// and which clauses it then checks, what is posted on new objects, and when a guarded wake-up
// fires.
#include <algorithm>

#include "spacegen/passes.h"

namespace sculpt::spacegen {

namespace {

using spacedsl::ChoiceId;
using spacedsl::ChoiceInstance;
using spacedsl::Condition;
using spacedsl::VarId;
using Kind = spacedsl::Condition::Kind;

/// A clause whose only choice condition is an enum `is` (the others are static): posting
/// restricts that instance to the values the clause allows and, since domains only shrink,
/// no later change can make the clause fail or force anything.
bool settled_when_posted(const std::vector<Condition>& clause) {
  std::size_t reads = 0;
  bool enum_is = false;
  for (const Condition& cond : clause) {
    if (cond.kind == Kind::Code || cond.kind == Kind::Constant) continue;
    ++reads;
    enum_is = cond.kind == Kind::Is;
  }
  return reads == 1 && enum_is;
}

/// The clauses of `item` a change of pattern `p` wakes: those that read it and that posting
/// did not settle.
std::vector<std::size_t> woken_clauses(const Item& item, const Pattern& p) {
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < item.clauses.size(); ++c) {
    if (!item.settled[c] && clause_has(item.clauses[c], p)) out.push_back(c);
  }
  return out;
}

bool symmetric(const Plan& plan, std::size_t i) {
  return plan.supports[i] && plan.supports[i]->symmetric;
}

/// The patterns of constraint `i` whose changes wake a propagator: those some unsettled
/// clause reads or, for a symmetric support table, the first of each choice (the others are
/// permutations of it).
std::vector<std::size_t> woken_patterns(const Plan& plan, std::size_t i) {
  const std::vector<Pattern>& ps = plan.patterns[i];
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < ps.size(); ++k) {
    bool first_of_choice = std::none_of(ps.begin(), ps.begin() + static_cast<std::ptrdiff_t>(k),
                                        [&](const Pattern& p) { return p.choice == ps[k].choice; });
    if (symmetric(plan, i) ? first_of_choice : !plan.woken_clauses[i][k].empty()) {
      out.push_back(k);
    }
  }
  return out;
}

/// The clauses of `item` to check on the tuples with $v a new object: all but those with
/// conditions on two instances over $v that stay unknown while those are full (as a new
/// object's instances are). Such a clause can neither fail nor force anything until one of
/// them is restricted, and that wakes it.
std::vector<std::size_t> posted_clauses(const ModelQueries& q, const Item& item, VarId v) {
  auto over_v = [&](const ChoiceInstance& ci) {
    return std::find(ci.args.begin(), ci.args.end(), v) != ci.args.end();
  };
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < item.clauses.size(); ++k) {
    std::vector<Pattern> open;
    for (const Condition& cond : item.clauses[k]) {
      // The instance over $v whose full domain leaves the condition unknown, if any.
      const ChoiceInstance* ci = nullptr;
      if (cond.kind == Kind::Is && q.is_enum(cond.lhs.choice) && over_v(cond.lhs)) {
        const ValueSet values = cond.values & q.full_mask(cond.lhs.choice);
        if (values != 0 && values != q.full_mask(cond.lhs.choice)) ci = &cond.lhs;
      } else if ((cond.kind == Kind::ChoiceEqual || cond.kind == Kind::ChoiceNotEqual) &&
                 q.is_enum(cond.lhs.choice) && cond.rhs.choice == cond.lhs.choice &&
                 q.num_values(cond.lhs.choice) >= 2) {
        ci = over_v(cond.lhs) ? &cond.lhs : over_v(cond.rhs) ? &cond.rhs : nullptr;
      }
      if (ci == nullptr) continue;
      Pattern p{ci->choice, ci->args};
      if (std::find(open.begin(), open.end(), p) == open.end()) open.push_back(p);
    }
    if (open.size() < 2) out.push_back(k);
  }
  return out;
}

/// The variables of constraint `i` posted on new objects: all, or the first one of a
/// symmetric support table; none whose new objects leave a support table inert.
std::vector<VarId> posted_vars(const ModelQueries& q, const Plan& plan, std::size_t i) {
  std::vector<VarId> out;
  for (VarId v = 0; v < (symmetric(plan, i) ? 1 : plan.constraints[i].vars.size()); ++v) {
    bool posted = plan.supports[i] ? !inert_at_universe(q, *plan.supports[i], v)
                                   : !plan.posted_clauses[i][v].empty();
    if (posted) out.push_back(v);
  }
  return out;
}

/// Whether choice c is the representative of one quotient whose check is all a change of it
/// wakes (no constraint, trigger or other quotient reads it; counters are updated at the
/// change). The check is idempotent: what it does to its representative changes nothing it
/// would do next, so its own restrictions of it queue nothing.
bool woken_only_by_own_check(const ModelQueries& q, const Plan& plan, ChoiceId c) {
  const auto& quotients = q.model().quotients;
  std::size_t checks = 0;
  for (std::size_t r = 0; r < quotients.size(); ++r) {
    if (quotients[r].repr_choice == c) ++checks;
    if (quotients[r].equivalence == c || reads_choice(plan.quotients[r], c)) return false;
  }
  for (std::size_t i = 0; i < plan.constraints.size(); ++i) {
    for (std::size_t k : plan.woken_patterns[i]) {
      if (plan.patterns[i][k].choice == c) return false;
    }
  }
  for (const Item& t : plan.triggers) {
    if (reads_choice(t, c)) return false;
  }
  return checks == 1;
}

}  // namespace

Wake wake_of(const ModelQueries& q, const Item& item, const Pattern& p, bool flipped,
             bool reads_domains) {
  if (reads_domains || !q.is_enum(p.choice)) return {};
  Wake wake;
  for (std::size_t c = 0; c < item.clauses.size(); ++c) {
    if (!item.settled.empty() && item.settled[c]) continue;
    for (const Condition& cond : item.clauses[c]) {
      for (const ChoiceInstance* ci : {&cond.lhs, &cond.rhs}) {
        if (!uses_choice(cond, ci) || Pattern{ci->choice, ci->args} != p) continue;
        if (cond.kind != Kind::Is) return {};
        ValueSet mask = flipped ? q.flip_values(p.choice, cond.values) : cond.values;
        if (std::find(wake.settled.begin(), wake.settled.end(), mask) == wake.settled.end()) {
          wake.settled.push_back(mask);
        }
      }
    }
  }
  return wake;
}

bool fires(const ModelQueries& q, const Plan& plan, ChoiceId c, const Wake& wake, ValueSet old,
           ValueSet now) {
  if (wake.table) {
    const std::vector<std::uint8_t>& classes =
        plan.supports[*wake.table]->wake_classes[wake.pattern];
    auto read = [&](ValueSet d) { return wake.flip ? q.flip_values(c, d) : d; };
    return classes[read(old)] != classes[read(now)];
  }
  // The runtime's own tests, which the guard calls.
  return wake.settled.empty() ||
         std::any_of(wake.settled.begin(), wake.settled.end(), [&](ValueSet mask) {
           return wake.falsified ? truth_falsified(old, now, mask) : truth_settled(old, now, mask);
         });
}

void plan_wakeups(const ModelQueries& q, Plan& plan) {
  for (std::size_t i = 0; i < plan.constraints.size(); ++i) {
    Item& item = plan.constraints[i];
    for (const auto& clause : item.clauses) {
      item.settled.push_back(!plan.supports[i] && settled_when_posted(clause));
    }
    plan.patterns.push_back(patterns_of(item));
    plan.woken_clauses.emplace_back();
    for (const Pattern& p : plan.patterns[i]) {
      plan.woken_clauses[i].push_back(woken_clauses(item, p));
    }
    plan.woken_patterns.push_back(woken_patterns(plan, i));
    plan.posted_clauses.emplace_back();
    for (VarId v = 0; v < item.vars.size(); ++v) {
      plan.posted_clauses[i].push_back(posted_clauses(q, item, v));
    }
    plan.posted_vars.push_back(posted_vars(q, plan, i));
  }
  for (ChoiceId c = 0; c < q.model().choices.size(); ++c) {
    plan.woken_only_by_own_check.push_back(woken_only_by_own_check(q, plan, c));
  }
}

}  // namespace sculpt::spacegen
