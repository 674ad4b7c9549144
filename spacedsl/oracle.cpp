#include "spacedsl/oracle.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "support/check.h"

namespace sculpt::spacedsl::oracle {
namespace {

// Counters saturate there, as the generated ones do (spacegen/runtime/counter.h).
constexpr std::int64_t kInfinity = std::int64_t{1} << 60;

std::int64_t saturate(__int128 v) {
  return static_cast<std::int64_t>(std::clamp<__int128>(v, -kInfinity, kInfinity));
}

bool compare(std::int64_t lhs, CompareOp op, std::int64_t rhs) {
  switch (op) {
    case CompareOp::Lt:
      return lhs < rhs;
    case CompareOp::Le:
      return lhs <= rhs;
    case CompareOp::Gt:
      return lhs > rhs;
    case CompareOp::Ge:
      return lhs >= rhs;
    case CompareOp::Eq:
      return lhs == rhs;
    case CompareOp::Ne:
      return lhs != rhs;
  }
  return false;
}

/// A decimal literal, the only host code the oracle reads itself.
std::optional<std::int64_t> literal(const std::string& code) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(code.data(), code.data() + code.size(), v);
  if (ec != std::errc() || end != code.data() + code.size()) return std::nullopt;
  return v;
}

class Evaluator {
 public:
  Evaluator(const Model& m, const Host& host, const Assignment& assignment)
      : m_(m), host_(host), assignment_(assignment) {}

  std::vector<Violation> violations(std::size_t limit) {
    limit_ = limit;
    for (std::size_t c = 0; c < m_.choices.size() && !full(); ++c) check_instances(c);
    for (std::size_t q = 0; q < m_.quotients.size() && !full(); ++q) check_quotient(q);
    for (std::size_t c = 0; c < m_.constraints.size() && !full(); ++c) check_constraint(c);
    return std::move(out_);
  }

  std::vector<std::vector<ObjectId>> holding(std::size_t t) {
    const Trigger& trigger = m_.triggers[t];
    std::vector<std::vector<ObjectId>> out;
    std::vector<ObjectId> ids;
    for_each_tuple(trigger.vars, ids, [&] {
      for (const Condition& cond : trigger.conditions) {
        if (!holds(cond, trigger.vars, ids)) return;
      }
      out.push_back(ids);
    });
    return out;
  }

  std::int64_t counter(ChoiceId c, std::span<const ObjectId> args) {
    const Choice& choice = m_.choices[c];
    SCULPT_CHECK(choice.counter) << choice.name << " is not a counter";
    const Counter& k = *choice.counter;
    std::vector<Variable> vars = choice.args;
    vars.insert(vars.end(), k.forall.begin(), k.forall.end());
    std::vector<ObjectId> ids(args.begin(), args.end());
    __int128 total = k.op == CounterOp::Mul ? 1 : 0;
    for_each_tuple(vars, ids, [&] {
      for (const Condition& cond : k.when) {
        if (!holds(cond, vars, ids)) return;
      }
      std::int64_t term =
          k.value.choice ? value(*k.value.choice, ids) : scalar(k.value.code, vars, ids);
      switch (k.op) {
        case CounterOp::Sum:
          total = saturate(total + term);
          break;
        case CounterOp::Mul:
          total = saturate(total * term);
          break;
        case CounterOp::Max:
          total = std::max<__int128>(total, term);
          break;
      }
    });
    return static_cast<std::int64_t>(total);
  }

 private:
  bool full() const { return out_.size() >= limit_; }

  void report(const std::string& what, SourceLocation loc, std::span<const ObjectId> ids) {
    std::ostringstream s;
    s << what << " at " << loc.file << ":" << loc.line << ":" << loc.column << ", objects (";
    for (std::size_t i = 0; i < ids.size(); ++i) s << (i ? ", " : "") << ids[i];
    s << ")";
    out_.push_back({s.str()});
  }

  SetId root(SetId s) const {
    while (m_.sets[s].superset) s = *m_.sets[s].superset;
    return s;
  }

  std::vector<Binding> bindings(std::span<const Variable> vars, std::span<const ObjectId> ids) {
    std::vector<Binding> out;
    for (std::size_t i = 0; i < ids.size(); ++i) out.push_back({vars[i].name, vars[i].set, ids[i]});
    return out;
  }

  std::int64_t scalar(const std::string& code, std::span<const Variable> vars,
                      std::span<const ObjectId> ids) {
    if (auto v = literal(code)) return *v;
    return host_.scalar(code, bindings(vars, ids));
  }

  /// The members of `s` (of parameter `parameter` for a parametric set); without parameter, a
  /// parametric set stands for its superset, as choice arguments do.
  std::vector<ObjectId> members(SetId s, std::optional<ObjectId> parameter) {
    const Set& set = m_.sets[s];
    if (set.parameter && !parameter) return members(*set.superset, std::nullopt);
    if (set.quotient) {
      const Quotient& q = m_.quotients[*set.quotient];
      SCULPT_CHECK(q.vars.size() <= 2) << "quotients take at most one parameter";
      const Variable& element = q.vars.back();
      std::vector<ObjectId> out;
      for (ObjectId x :
           members(element.set, element.set_parameter ? parameter : std::optional<ObjectId>())) {
        std::vector<ObjectId> ids;
        if (parameter) ids.push_back(*parameter);
        ids.push_back(x);
        if (lookup(q.repr_choice, ids) == 1) out.push_back(x);
      }
      return out;
    }
    std::vector<Binding> b;
    if (parameter) b.push_back({set.parameter->name, set.parameter->set, *parameter});
    std::vector<ObjectId> out;
    for (std::int64_t id : host_.range(set.iterator, b)) out.push_back(static_cast<ObjectId>(id));
    std::sort(out.begin(), out.end());
    return out;
  }

  /// Calls `f` for each tuple of pairwise distinct objects of `vars` beyond those in `ids`
  /// (bound already), with `ids` holding the tuple.
  template <typename F>
  void for_each_tuple(std::span<const Variable> vars, std::vector<ObjectId>& ids, F&& f) {
    if (ids.size() == vars.size()) {
      f();
      return;
    }
    const Variable& v = vars[ids.size()];
    std::optional<ObjectId> parameter;
    if (v.set_parameter) parameter = ids[*v.set_parameter];
    for (ObjectId o : members(v.set, parameter)) {
      bool distinct = true;
      for (std::size_t i = 0; i < ids.size(); ++i) {
        distinct &= ids[i] != o || root(vars[i].set) != root(v.set);
      }
      if (!distinct) continue;
      ids.push_back(o);
      for_each_tuple(vars, ids, f);
      ids.pop_back();
      if (full()) return;
    }
  }

  /// The assignment's value of a non-counter instance; symmetric and antisymmetric choices
  /// store the pair in increasing order.
  std::int64_t lookup(ChoiceId c, std::span<const ObjectId> objects) {
    const Choice& choice = m_.choices[c];
    const bool paired = choice.symmetric || !choice.antisymmetric_map.empty();
    std::vector<ObjectId> ids(objects.begin(), objects.end());
    const bool flipped = paired && ids[0] > ids[1];
    if (flipped) std::swap(ids[0], ids[1]);
    std::optional<std::int64_t> v = assignment_(c, ids);
    SCULPT_CHECK(v) << "the assignment has no value for an instance of " << choice.name;
    if (flipped && !choice.antisymmetric_map.empty()) {
      return static_cast<std::int64_t>(choice.antisymmetric_map[static_cast<std::size_t>(*v)]);
    }
    return *v;
  }

  std::int64_t value(const ChoiceInstance& inst, std::span<const ObjectId> ids) {
    std::vector<ObjectId> args;
    for (VarId v : inst.args) args.push_back(ids[v]);
    if (m_.choices[inst.choice].kind == ChoiceKind::Counter) return counter(inst.choice, args);
    return lookup(inst.choice, args);
  }

  bool holds(const Condition& c, std::span<const Variable> vars, std::span<const ObjectId> ids) {
    switch (c.kind) {
      case Condition::Kind::Is:
        return (c.values >> value(c.lhs, ids)) & 1;
      case Condition::Kind::ChoiceEqual:
        return value(c.lhs, ids) == value(c.rhs, ids);
      case Condition::Kind::ChoiceNotEqual:
        return value(c.lhs, ids) != value(c.rhs, ids);
      case Condition::Kind::CompareCode:
        return compare(value(c.lhs, ids), c.op, scalar(c.code, vars, ids));
      case Condition::Kind::CompareChoices:
        return compare(value(c.lhs, ids), c.op, value(c.rhs, ids));
      case Condition::Kind::Code:
        return scalar(c.code, vars, ids) != 0;
      case Condition::Kind::Constant:
        return c.constant;
    }
    return false;
  }

  /// Every instance the space reads has a value of its domain.
  void check_instances(ChoiceId c) {
    const Choice& choice = m_.choices[c];
    if (choice.kind == ChoiceKind::Counter) return;
    std::vector<ObjectId> ids;
    for_each_tuple(choice.args, ids, [&] {
      if (choice.symmetric || !choice.antisymmetric_map.empty()) {
        if (ids[0] > ids[1]) return;
      }
      std::int64_t v = lookup(c, ids);
      bool ok = v >= 0 && static_cast<std::size_t>(v) < choice.values.size();
      if (choice.kind == ChoiceKind::Integer) {
        std::vector<std::int64_t> universe =
            host_.range(choice.universe, bindings(choice.args, ids));
        ok = std::find(universe.begin(), universe.end(), v) != universe.end();
      }
      if (!ok)
        report("value " + std::to_string(v) + " outside the domain of " + choice.name, choice.loc,
               ids);
    });
  }

  /// repr(params, x) is TRUE exactly for the lowest member of each class meeting the condition.
  void check_quotient(std::size_t qi) {
    const Quotient& q = m_.quotients[qi];
    const std::size_t x = q.vars.size() - 1;
    auto meets = [&](std::span<const ObjectId> ids) {
      for (const Condition& cond : q.condition) {
        if (!holds(cond, q.vars, ids)) return false;
      }
      return true;
    };
    std::vector<ObjectId> ids;
    for_each_tuple(q.vars, ids, [&] {
      bool representative = meets(ids);
      std::optional<ObjectId> parameter;
      if (q.vars[x].set_parameter) parameter = ids[*q.vars[x].set_parameter];
      for (ObjectId y : members(q.vars[x].set, parameter)) {
        if (!representative || y >= ids[x]) break;
        std::vector<ObjectId> with_y = ids;
        with_y[x] = y;
        const ObjectId pair[] = {y, ids[x]};
        representative =
            !(meets(with_y) && ((q.equivalence_values >> lookup(q.equivalence, pair)) & 1));
      }
      if (lookup(q.repr_choice, ids) != (representative ? 1 : 0)) {
        report("quotient " + m_.sets[q.set].name + " (" + m_.choices[q.repr_choice].name + ")",
               q.loc, ids);
      }
    });
  }

  void check_constraint(std::size_t ci) {
    const Constraint& c = m_.constraints[ci];
    std::vector<ObjectId> ids;
    for_each_tuple(c.vars, ids, [&] {
      for (std::size_t k = 0; k < c.clauses.size() && !full(); ++k) {
        const auto& conds = c.clauses[k].conditions;
        if (std::none_of(conds.begin(), conds.end(),
                         [&](const Condition& cond) { return holds(cond, c.vars, ids); })) {
          report("constraint " + std::to_string(ci) + " clause " + std::to_string(k + 1),
                 c.clauses[k].loc, ids);
        }
      }
    });
  }

  const Model& m_;
  const Host& host_;
  const Assignment& assignment_;
  std::vector<Violation> out_;
  std::size_t limit_ = ~std::size_t{0};
};

}  // namespace

std::vector<Violation> evaluate(const Model& model, const Host& host, const Assignment& assignment,
                                std::size_t limit) {
  return Evaluator(model, host, assignment).violations(limit);
}

std::vector<std::vector<ObjectId>> holding_triggers(const Model& model, const Host& host,
                                                    const Assignment& assignment,
                                                    std::size_t trigger) {
  return Evaluator(model, host, assignment).holding(trigger);
}

std::int64_t counter_value(const Model& model, const Host& host, const Assignment& assignment,
                           ChoiceId counter, std::span<const ObjectId> args) {
  return Evaluator(model, host, assignment).counter(counter, args);
}

}  // namespace sculpt::spacedsl::oracle
