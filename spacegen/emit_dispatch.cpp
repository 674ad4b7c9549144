// The dispatch of decision_vector.cpp: on_change (with its wake tables), restrict_stored,
// post_all and instantiate_new_objects.
#include <algorithm>
#include <functional>
#include <set>

#include "spacegen/emission.h"
#include "spacegen/emitters.h"

namespace sculpt::spacegen {

namespace {

class Dispatch : public Emission {
 public:
  explicit Dispatch(const Emission& e) : Emission(e) {}

  /// Changes of an enum choice of at most this many values find the guarded calls they wake
  /// in a table indexed by the domains before and after the change: one load, where testing
  /// each guard reads both domains again.
  static constexpr std::size_t kMaxWakeTableValues = 5;

  void emit_dispatch(CodeWriter& w) const {
    emit_on_change(w);
    emit_restrict_stored(w);
    emit_post_all(w);
    emit_instantiate_new_objects(w);
  }

  /// The wake-ups of one choice's case of on_change, and the wake table their conditions
  /// test.
  struct CaseWakes {
    ChoiceId c;
    bool tabled;          // the conditions are bits of a wake table
    std::size_t domains;  // of the choice
    /// Per bit of the wake table, what the wake-ups testing it fire on, (old, now) in order.
    std::vector<std::vector<bool>> bits = {};
  };

  void emit_on_change(CodeWriter& w) const {
    // Written first: the wake tables and classes it reads come before it.
    CodeWriter f;
    // The wake classes (support table, pattern) that guards test in place.
    std::set<std::pair<std::size_t, std::size_t>> classes_read;
    f.open("Status Candidate::on_change(std::uint32_t choice, const ObjectId* ids, ValueSet old)");
    f.line("(void)old;");
    f.line("[[maybe_unused]] const ObjectId swapped[] = {ids[1], ids[0]};");
    f.open("switch (choice)");
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) emit_on_change_case(w, f, c, classes_read);
    f.close();
    f.line("return Status::Ok;");
    f.close();
    for (const auto& [i, k] : classes_read) emit_wake_classes(w, i, k);
    w.lines(f);
    w.line();
  }

  /// The case of choice c in on_change (into `f`), its wake table before it (into `w`).
  void emit_on_change_case(CodeWriter& w, CodeWriter& f, ChoiceId c,
                           std::set<std::pair<std::size_t, std::size_t>>& classes_read) const {
    f.open("case " + choice_id(c) + ":");
    std::size_t n = m_.choices[c].args.size();
    std::string arglist;
    for (std::size_t i = 0; i < n; ++i) {
      arglist += std::string(i ? ", " : "") + "ids[" + std::to_string(i) + "]";
    }
    if (is_counter(c)) f.line(check("enforce_" + cname(c) + "(" + arglist + ")"));
    if (is_enum(c)) {
      f.line("[[maybe_unused]] const ValueSet now = get_" + cname(c) + "(" + arglist + ");");
    }
    CaseWakes wakes{c, is_enum(c) && num_values(c) <= kMaxWakeTableValues,
                    std::size_t{1} << num_values(c)};
    auto condition = [&](const Wake& wake) { return wake_condition(wakes, wake, classes_read); };
    CodeWriter body;
    for (std::size_t i = 0; i < plan_.constraints.size(); ++i) {
      const std::vector<Pattern>& ps = plan_.patterns[i];
      for (std::size_t k : woken_patterns(i)) {
        if (ps[k].choice != c) continue;
        const bool classed = plan_.supports[i] && !plan_.supports[i]->wake_classes[k].empty();
        emit_wakeup(body, c, condition, propagator(i) + "_on_" + cname(c) + "_" + std::to_string(k),
                    true, !symmetric(i), plan_.constraints[i], ps[k], plan_.supports[i].has_value(),
                    classed ? std::optional<std::size_t>(i) : std::nullopt, k);
      }
    }
    for (std::size_t t = 0; t < plan_.triggers.size(); ++t) {
      auto ps = patterns_of(plan_.triggers[t]);
      for (std::size_t k = 0; k < ps.size(); ++k) {
        if (ps[k].choice != c) continue;
        emit_wakeup(
            body, c, condition,
            "check_trigger_" + std::to_string(t) + "_on_" + cname(c) + "_" + std::to_string(k),
            false, true, plan_.triggers[t], ps[k], false);
      }
    }
    emit_quotient_wakeups(body, c, condition);
    if (!wakes.bits.empty()) emit_wake_table(w, f, wakes);
    f.lines(body);
    f.line("break;");
    f.close();
  }

  /// The condition of a wake-up (empty: always): a bit of the table, shared by the wake-ups
  /// that fire alike, or the guard's own test.
  std::string wake_condition(CaseWakes& wakes, const Wake& wake,
                             std::set<std::pair<std::size_t, std::size_t>>& classes_read) const {
    auto in_place = [&] {
      if (wake.table) classes_read.insert({*wake.table, wake.pattern});
      return guard_text(wakes.c, wake);
    };
    if (wake.always()) return "";
    if (!wakes.tabled) return in_place();
    std::vector<bool> fired;
    for (ValueSet old = 0; old < wakes.domains; ++old) {
      for (ValueSet now = 0; now < wakes.domains; ++now) {
        fired.push_back(fires(*this, plan_, wakes.c, wake, old, now));
      }
    }
    auto& bits = wakes.bits;
    auto it = std::find(bits.begin(), bits.end(), fired);
    if (it == bits.end() && bits.size() == 64) return in_place();
    if (it == bits.end()) it = bits.insert(it, fired);
    return "(wake & " + hex(std::uint64_t{1} << (it - bits.begin())) + ")";
  }

  /// The guarded call `fn` of a propagator or trigger check woken through pattern `p` of
  /// `item`. A triangular instance is read through both orders of its arguments, unless a
  /// symmetric support table reads every permutation at once. `table`: the support table
  /// whose wake classes say when pattern `k` wakes the call. A constraint's call returns a
  /// status, and its clauses (disjunctions) learn something only when a condition becomes
  /// false: one that becomes true satisfies its clause for good. A trigger fires when its
  /// conditions hold.
  void emit_wakeup(CodeWriter& body, ChoiceId c,
                   const std::function<std::string(const Wake&)>& condition, const std::string& fn,
                   bool constraint, bool both_orders, const Item& item, const Pattern& p,
                   bool reads_domains, std::optional<std::size_t> table = std::nullopt,
                   std::size_t k = 0) const {
    for (bool flipped : {false, true}) {
      if (flipped && !(triangular(c) && both_orders)) break;
      std::string call = fn + (flipped ? "(swapped)" : "(ids)");
      Wake wake = wake_of(*this, item, p, flipped, reads_domains);
      wake.falsified = constraint;
      if (table) wake = Wake{{}, false, table, k, flipped && antisymmetric(c)};
      body.line(guarded_by(condition(wake)) + (constraint ? check(call) : call + ";"));
    }
  }

  /// The wake table of a case (into `w`) and its read (into `f`).
  void emit_wake_table(CodeWriter& w, CodeWriter& f, const CaseWakes& wakes) const {
    const ChoiceId c = wakes.c;
    std::vector<std::uint64_t> table(wakes.domains * wakes.domains, 0);
    for (std::size_t b = 0; b < wakes.bits.size(); ++b) {
      for (std::size_t e = 0; e < table.size(); ++e) {
        table[e] |= std::uint64_t{wakes.bits[b][e]} << b;
      }
    }
    const std::string type = wakes.bits.size() <= 32 ? "std::uint32_t" : "std::uint64_t";
    w.comment("The guarded wake-ups of a change of " + cname(c) +
              " from old to now: bit k of wake_" + cname(c) + "[old << " +
              std::to_string(num_values(c)) + " | now],");
    w.comment("the k-th condition its case of on_change tests.");
    emit_array(w, type, "wake_" + cname(c), table);
    f.line("const " + type + " wake = wake_" + cname(c) + "[old << " +
           std::to_string(num_values(c)) + " | now];");
  }

  void emit_restrict_stored(CodeWriter& w) const {
    w.open(
        "Status Candidate::restrict_stored(std::uint32_t choice, const ObjectId* ids, const "
        "std::uint64_t* mask)");
    w.line("(void)ids;");
    w.open("switch (choice)");
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      std::size_t n = m_.choices[c].args.size();
      std::string arglist;
      for (std::size_t i = 0; i < n; ++i)
        arglist += (i ? ", " : "") + std::string("ids[") + std::to_string(i) + "]";
      if (is_enum(c)) {
        w.line("case " + choice_id(c) + ": return restrict_" + cname(c) + "(" + arglist +
               (n ? ", " : "") + "mask[0], kAction);");
      } else if (m_.choices[c].kind == ChoiceKind::Integer) {
        w.open("case " + choice_id(c) + ":");
        w.line("IntDomainRef d = domain_" + cname(c) + "(" + arglist + ");");
        w.line("const Interval old = d.bounds();");
        w.line("if (!d.keep_indices(mask)) return Status::Ok;");
        w.line("return changed_" + cname(c) + "(" + arglist + (n ? ", " : "") + "old, kAction);");
        w.close();
      }
    }
    w.line("default: break;");
    w.close();
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }

  void emit_post_all(CodeWriter& w) const {
    w.comment("Posts everything on the present objects: counters from scratch, every constraint");
    w.comment("on every tuple, quotients, triggers and counter bounds.");
    w.open("Status Candidate::post_all()");
    for (ChoiceId c : plan_.counter_order) emit_rederive(w, c);
    for (std::size_t i = 0; i < plan_.constraints.size(); ++i) {
      w.line(check(propagator(i) + "_all()"));
    }
    for (std::size_t q = 0; q < plan_.quotients.size(); ++q) {
      w.line(check("quotient_" + std::to_string(q) + "_all_params(0)"));
    }
    for (std::size_t t = 0; t < plan_.triggers.size(); ++t) {
      w.line("check_trigger_" + std::to_string(t) + "_all();");
    }
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }

  void emit_instantiate_new_objects(CodeWriter& w) const {
    w.comment("Registers the objects lowerings added, then posts counters (from scratch) and");
    w.comment("every constraint, quotient and trigger on the tuples that involve a new object.");
    w.open("Status Candidate::instantiate_new_objects()");
    w.line("std::vector<std::pair<std::uint32_t, ObjectId>> added;");
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      if (is_parametric(s) || is_quotient(s)) continue;
      w.open("for_each_" + m_.sets[s].name + "(*fun_, [&](ObjectId id)");
      w.line("SCULPT_CHECK(layout_->potential(" + set_id(s) + ", id)) << \"a lowering added an " +
             "object of " + m_.sets[s].name + " beyond its capacity or outside its all_ids\";");
      w.line("if (is_member(" + set_id(s) + ", id)) return;");
      w.line("add_member(" + set_id(s) + ", id);");
      w.line("added.emplace_back(" + set_id(s) + ", id);");
      w.close(");");
    }
    w.line("if (added.empty()) return Status::Ok;");
    w.line("make_room_for_members();");
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      if (m_.choices[c].kind != ChoiceKind::Integer) continue;
      emit_universes(w, c, false);
    }
    for (ChoiceId c : plan_.counter_order) emit_rederive(w, c);
    const auto posts = posts_on_new_objects();
    if (!posts.empty()) {
      w.open("for (auto [set, id] : added)");
      for (const auto& [s, calls] : posts) {
        w.open("if (set == " + set_id(s) + ")");
        for (const std::string& call : calls) w.line(call);
        w.close();
      }
      w.close();
    }
    // A quotient's check of x reads the members below x only: one pass from the smallest new
    // member covers every check that an added member changes.
    for (std::size_t q = 0; q < plan_.quotients.size(); ++q) {
      const std::string set = set_id(membership_set(m_.quotients[q].vars.back().set));
      w.open("");
      w.line("ObjectId first = kNoObject;");
      w.line("for (auto [set, id] : added) if (set == " + set + ") first = std::min(first, id);");
      w.line("if (first != kNoObject) " +
             check("quotient_" + std::to_string(q) + "_all_params(first)"));
      w.close();
    }
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }

  /// For each plain set, the posts on the tuples with a new object of it.
  std::vector<std::pair<SetId, std::vector<std::string>>> posts_on_new_objects() const {
    std::vector<std::pair<SetId, std::vector<std::string>>> posts;
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      if (is_parametric(s) || is_quotient(s)) continue;
      std::vector<std::string> calls;
      for (std::size_t i = 0; i < plan_.constraints.size(); ++i) {
        for (VarId v : posted_vars(i)) {
          const Variable& var = plan_.constraints[i].vars[v];
          if (membership_set(var.set) == s) {
            calls.push_back(check(propagator(i) + "_new_" + var.name + "(id)"));
          }
        }
      }
      for (std::size_t t = 0; t < plan_.triggers.size(); ++t) {
        for (const auto& var : plan_.triggers[t].vars) {
          if (membership_set(var.set) == s) {
            calls.push_back("check_trigger_" + std::to_string(t) + "_new_" + var.name + "(id);");
          }
        }
      }
      if (!calls.empty()) posts.emplace_back(s, std::move(calls));
    }
    return posts;
  }

  /// The wake classes of pattern k of support table i (see wake_classes), at namespace scope.
  void emit_wake_classes(CodeWriter& w, std::size_t i, std::size_t k) const {
    w.comment("Domains of " + pattern_text(plan_.constraints[i], plan_.supports[i]->patterns[k]) +
              " whose support-table rows are the same share a class: a change within a");
    w.comment("class gives the other patterns nothing to lose.");
    emit_array(w, "std::uint8_t", wake_class_name(i, k), plan_.supports[i]->wake_classes[k]);
  }

  /// Quotient checks woken by a change of choice `c` (inside on_change's switch).
  /// `condition`: the test (empty: none) under which a wake-up fires.
  void emit_quotient_wakeups(CodeWriter& w, ChoiceId c,
                             const std::function<std::string(const Wake&)>& condition) const {
    for (std::size_t qi = 0; qi < plan_.quotients.size(); ++qi) {
      const spacedsl::Quotient& q = m_.quotients[qi];
      std::size_t np = q.vars.size() - 1;
      std::string n = std::to_string(qi);
      if (c == q.repr_choice) {
        w.line(check("quotient_" + n + "_check(ids, ids[" + std::to_string(np) + "])"));
        continue;
      }
      if (c == q.equivalence) {
        // equivalence(y, x) is read only by the check of the larger one, when both are
        // elements.
        SetId elem = membership_set(q.vars.back().set);
        Wake wake;
        wake.settled.push_back(q.equivalence_values);
        const ValueSet flipped = flip_values(c, q.equivalence_values);
        if (flipped != q.equivalence_values) wake.settled.push_back(flipped);
        w.line("if (" + condition(wake) + " && is_member(" + set_id(elem) +
               ", std::min(ids[0], ids[1]))) defer_quotient_check(" + n +
               ", std::max(ids[0], ids[1]));");
      }
      std::vector<std::string> orientations = {"ids"};
      if (triangular(c)) orientations.push_back("swapped");
      for (const Pattern& p : patterns_of(plan_.quotients[qi].clauses[0])) {
        if (p.choice != c) continue;
        auto position = [&](VarId v) -> std::optional<std::size_t> {
          auto it = std::find(p.args.begin(), p.args.end(), v);
          if (it == p.args.end()) return std::nullopt;
          return static_cast<std::size_t>(it - p.args.begin());
        };
        bool params_bound = true;
        for (VarId v = 0; v < np; ++v) {
          params_bound =
              params_bound && position(v) && !is_parametric(effective_set(q.vars[v].set));
        }
        for (const std::string& ids : orientations) {
          // The condition of x changed: x and the larger elements may change their
          // representative, under the parameters the instance names (or all of them).
          std::optional<std::size_t> x = position(np);
          std::string first = x ? ids + "[" + std::to_string(*x) + "]" : "0";
          const std::string guard = guarded_by(
              condition(wake_of(*this, plan_.quotients[qi], p, ids == "swapped", false)));
          if (!params_bound) {
            w.line(guard + check("quotient_" + n + "_all_params(" + first + ")"));
            continue;
          }
          w.open("");
          std::string params;
          std::string members;
          for (VarId v = 0; v < np; ++v) {
            std::string id = ids + "[" + std::to_string(*position(v)) + "]";
            params += (v ? ", " : "") + id;
            members += std::string(v ? " && " : "") + "is_member(" +
                       set_id(membership_set(q.vars[v].set)) + ", " + id + ")";
          }
          w.line("const ObjectId params[] = {" + (np ? params : std::string("0")) + "};");
          std::string call = check(x ? "quotient_" + n + "_around(params, " + first + ")"
                                     : "quotient_" + n + "_from(params, 0)");
          w.line(guard + (np ? "if (" + members + ") " + call : call));
          w.close();
        }
      }
    }
  }
};

}  // namespace

void emit_dispatch(const Emission& e, CodeWriter& w) { Dispatch(e).emit_dispatch(w); }

}  // namespace sculpt::spacegen
