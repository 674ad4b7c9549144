// counters.cpp: per counter, its derivation from scratch, its incremental updates and the
// enforcement of its bounds.
#include "spacegen/emission.h"
#include "spacegen/emitters.h"

namespace sculpt::spacegen {

namespace {

class Counters : public Emission {
 public:
  explicit Counters(const Emission& e) : Emission(e) {}

  /// Emits `const Interval <name> = ...;`: the contribution of a term of counter i whose truth
  /// is in `counted` and value in `value`.
  void emit_term(CodeWriter& w, std::size_t i, const std::string& counted, const std::string& value,
                 const std::string& name) const {
    std::string op = counter_op_name(m_.choices[plan_.counter_ids[i]].counter->op);
    w.line("const Interval " + name + " = contribution(" + op + ", " + counted + ", " + value +
           ");");
  }

  /// Emits `const Truth <name> = ...;`: whether counter i's term counts in `scope`.
  void emit_counted(CodeWriter& w, std::size_t i, const Scope& scope, const Locals& ov,
                    const std::string& name) const {
    w.line("const Truth " + name + " = " + term_counted(i, scope, ov) + ";");
  }

  /// Whether counter i's term counts, its variables bound in `scope`.
  std::string term_counted(std::size_t i, const Scope& scope, const Locals& ov) const {
    std::string counted = "Truth::True";
    for (const auto& cond : plan_.counters[i].clauses[0]) {
      counted = "conjunction(" + counted + ", " + truth(cond, scope, ov) + ")";
    }
    return counted;
  }

  /// The value counter i's term adds when it counts.
  std::string term_value(std::size_t i, const Scope& scope, const Locals& ov) const {
    const spacedsl::Counter& counter = *m_.choices[plan_.counter_ids[i]].counter;
    return counter.value.choice ? summary(*counter.value.choice, scope, ov)
                                : "constant(" + host(counter.value.code, counter.loc, scope) + ")";
  }

  std::string counters_cpp() const {
    CodeWriter w;
    open_source(w,
                {"Counters: derived intervals, maintained incrementally when a domain they read",
                 "changes, and the bounds imposed on them forcing or forbidding increments."},
                {"<algorithm>", R"("space.h")"});
    for (std::size_t i = 0; i < plan_.counters.size(); ++i) emit_counter(w, i);
    close_source(w);
    return w.text();
  }

  /// What the emitters of one counter read.
  struct CounterView {
    ChoiceId c;
    const spacedsl::Choice& choice;
    const spacedsl::Counter& counter;
    const Item& item;
    std::size_t n;     // arguments
    std::string name;  // of the counter choice
    std::string op;    // CounterOp::...
    bool half;
  };
  CounterView view(std::size_t i) const {
    const ChoiceId c = plan_.counter_ids[i];
    const auto& choice = m_.choices[c];
    return {c,
            choice,
            *choice.counter,
            plan_.counters[i],
            choice.args.size(),
            choice.name,
            counter_op_name(choice.counter->op),
            choice.counter->half};
  }
  /// Binds the counter's arguments to the ids a0, a1, ...
  static void bind_args(Scope& scope, std::size_t n) {
    for (std::size_t a = 0; a < n; ++a) scope.names[a] = "a" + std::to_string(a);
  }

  void emit_counter(CodeWriter& w, std::size_t i) const {
    emit_derive(w, i);
    emit_update(w, i);
    if (has_rederive(i)) emit_rederive_all(w, i);
    const std::vector<Pattern>& ps = plan_.counter_patterns[i];
    for (std::size_t k = 0; k < ps.size(); ++k) {
      if (!rederived_on(i, ps[k].choice)) emit_count_on(w, i, k);
    }
    emit_enforce(w, i);
  }

  /// `derive_<c>`: the counter's interval from scratch.
  void emit_derive(CodeWriter& w, std::size_t i) const {
    const CounterView v = view(i);
    const auto& [c, choice, counter, item, n, name, op, half] = v;
    if (!choice.doc.empty()) w.comment(choice.doc);
    w.comment("counter " + name + " (" + loc_string(choice.loc) + ")" + (half ? ", half" : ""));
    w.open("Interval Candidate::derive_" + name + "(" + id_params(n) + ") const");
    w.line("Interval total = identity(" + op + ");");
    {
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      bind_args(scope, n);
      emit_scope(w, scope, std::vector<bool>(item.vars.size(), false), [&] {
        // A term certainly not counted is the identity: its value is not read.
        emit_counted(w, i, scope, {}, "counted");
        w.open("if (counted != Truth::False)");
        emit_term(w, i, "counted", term_value(i, scope, {}), "term");
        w.line("total = accumulate(" + op + ", total, term);");
        w.close();
      });
    }
    if (half) w.line("total.hi = kInfinity;");
    w.line("return total;");
    w.close();
    w.line();
  }

  /// `update_<c>`: one term changed.
  void emit_update(CodeWriter& w, std::size_t i) const {
    const CounterView v = view(i);
    const auto& [c, choice, counter, item, n, name, op, half] = v;
    const bool term_wise = enforced_term_wise(counter);
    w.comment("One term of " + name + " changed from old_term to new_term" +
              (term_wise ? " (now `value`, counted if `counted`)." : "."));
    w.open("Status Candidate::update_" + name + "(" + id_params_comma(n) +
           "Interval old_term, Interval new_term" +
           (term_wise ? ", Truth counted, Interval value" : "") + ")");
    w.line("CounterState s = counter_state(" + choice_id(c) + ", index_" + name + "(" + id_list(n) +
           "));");
    if (term_wise) w.line("const CounterState old = s;");
    w.line("if (!replace_term(" + op + ", " + (half ? "true" : "false") +
           ", s, old_term, new_term)) {");
    w.line("  const Interval d = derive_" + name + "(" + id_list(n) + ");");
    w.line("  s.lo = d.lo;");
    w.line("  s.hi = d.hi;");
    w.line("}");
    if (half) w.line("s.hi = kInfinity;");
    if (term_wise) {
      w.line("// Unchanged, it wakes nothing its readers or other terms would learn from.");
      w.line("if (s.lo == old.lo && s.hi == old.hi && !term_needs_enforcing(" + op +
             ", s, counted, value)) return Status::Ok;");
    }
    w.line("return set_state_" + name + "(" + id_list(n) + (n ? ", " : "") + "s);");
    w.close();
    w.line();
  }

  /// `rederive_<c>`: every instance derived again.
  void emit_rederive_all(CodeWriter& w, std::size_t i) const {
    const CounterView v = view(i);
    const auto& [c, choice, counter, item, n, name, op, half] = v;
    w.comment("Derives every instance of " + name + " again.");
    w.open("Status Candidate::rederive_" + name + "()");
    emit_rederive(w, c);
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }

  /// `count_<c>_on_<choice>_<k>`: the update of the terms a change of pattern k touches.
  void emit_count_on(CodeWriter& w, std::size_t i, std::size_t k) const {
    const CounterView v = view(i);
    const auto& [c, choice, counter, item, n, name, op, half] = v;
    const std::vector<Pattern>& ps = plan_.counter_patterns[i];
    const bool term_wise = enforced_term_wise(counter);
    w.comment("Updates " + name + " when " + cname(ps[k].choice) + " changes from `old`.");
    w.open("Status Candidate::count_" + name + "_on_" + cname(ps[k].choice) + "_" +
           std::to_string(k) + "(const ObjectId* ids, " + summary_type(ps[k].choice) + " old)");
    Scope scope{&item, std::vector<std::string>(item.vars.size())};
    std::vector<bool> needs = bind_pattern(w, scope, ps[k]);
    emit_scope(w, scope, needs, [&] {
      const Locals ov{{{ps[k], "old"}}};
      emit_counted(w, i, scope, ov, "old_counted");
      emit_counted(w, i, scope, {}, "new_counted");
      // Certainly not counted before or after: the identity either way, which the enforcer
      // skips.
      w.open("if (old_counted != Truth::False || new_counted != Truth::False)");
      std::string old_value = term_value(i, scope, ov);
      std::string new_value = term_value(i, scope, {});
      if (old_value == new_value) {  // the change is not the value's: read it once
        w.line("const Interval value = " + new_value + ";");
        old_value = new_value = "value";
      } else if (term_wise) {  // read once for the term and for its enforcement
        w.line("const Interval new_value = " + new_value + ";");
        new_value = "new_value";
      }
      emit_term(w, i, "old_counted", old_value, "old_term");
      emit_term(w, i, "new_counted", new_value, "new_term");
      std::string args;
      for (std::size_t a = 0; a < n; ++a) args += (a ? ", " : "") + scope.names[a];
      const std::string index = "index_" + name + "(" + args + ")";
      w.open("if (old_term != new_term)");
      w.line(check("update_" + name + "(" + args + (n ? ", " : "") + "old_term, new_term" +
                   (term_wise ? ", new_counted, " + new_value : "") + ")"));
      w.close();
      w.open("else if (new_counted != Truth::False" +
             (term_wise ? " && term_needs_enforcing(" + op + ", counter_state(" + choice_id(c) +
                              ", " + index + "), new_counted, " + new_value + ")"
                        : std::string()) +
             ")");
      w.line("// The term's conditions may still have changed what the bounds force.");
      w.line("enqueue(" + choice_id(c) + ", " + index + ", {" + args + "}, 0);");
      w.close();
      w.close();
    });
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }

  /// `enforce_<c>`: the bounds on the counter forbid, force or cut its terms.
  void emit_enforce(CodeWriter& w, std::size_t i) const {
    const CounterView v = view(i);
    const auto& [c, choice, counter, item, n, name, op, half] = v;
    w.comment("The bounds on " + name + " forbid the increments that would break them and force");
    w.comment("those without which they cannot be reached.");
    w.open("Status Candidate::enforce_" + name + "(" + id_params(n) + ")");
    w.line("const CounterState s = counter_state(" + choice_id(c) + ", index_" + name + "(" +
           id_list(n) + "));");
    w.line("if (within_bounds(s)) return Status::Ok;");
    {
      Scope args{&item, std::vector<std::string>(item.vars.size())};
      bind_args(args, n);
      std::string origin = counter_origin(c);
      const auto& when = item.clauses[0];
      Scope scope = args;  // emit_scope binds the quantified variables in place
      auto emit_value = [&] { w.line("const Interval value = " + term_value(i, scope, {}) + ";"); };
      std::string witnesses;
      if (counter.op == spacedsl::CounterOp::Max) {
        w.line("// Terms that can still reach the lower bound: the last one is forced.");
        w.line("std::size_t witnesses = 0;");
        w.open("if (s.min_bound > -kInfinity)");
        emit_scope(w, scope, std::vector<bool>(item.vars.size(), false), [&] {
          emit_counted(w, i, scope, {}, "counted");
          emit_value();
          w.line("if (max_witness(s, counted, value)) ++witnesses;");
        });
        w.close();
        witnesses = ", witnesses";
        scope = args;
      }
      emit_scope(w, scope, std::vector<bool>(item.vars.size(), false), [&] {
        emit_counted(w, i, scope, {}, "counted");
        w.line("// A term certainly not counted is the identity: nothing to forbid, force or cut.");
        w.open("if (counted != Truth::False)");
        emit_value();
        w.line("const TermSlack slack = term_slack(" + op + ", s, counted, value" + witnesses +
               ");");
        // Forbid: the only non-certain condition must fail.
        w.open("if (slack.forbid)");
        for (std::size_t k = 0; k < when.size(); ++k) {
          auto neg = negation(when[k]);
          if (!neg) continue;
          std::string others = "true";
          for (std::size_t j = 0; j < when.size(); ++j) {
            if (j != k) others += " && " + truth(when[j], scope, {}) + " == Truth::True";
          }
          w.open("if (" + others + ")");
          enforce(w, *neg, scope, origin);
          w.close();
        }
        w.close();
        w.open("if (slack.force)");
        for (const auto& cond : when) enforce(w, cond, scope, origin);
        w.close();
        if (counter.value.choice) {
          w.open("if (counted == Truth::True)");
          w.line(check(restrict_range(*counter.value.choice, scope, "slack.value", origin)));
          w.close();
        }
        w.close();
      });
    }
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }
};

}  // namespace

std::string emit_counters(const Emission& e) { return Counters(e).counters_cpp(); }

}  // namespace sculpt::spacegen
