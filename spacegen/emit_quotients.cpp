// quotients.cpp: the quotient checks, which keep repr(params, x) TRUE exactly for the lowest-id
// member x of each class of members satisfying the condition.
#include "spacegen/emission.h"
#include "spacegen/emitters.h"

namespace sculpt::spacegen {

namespace {

/// The functions of one quotient (see emit_quotient).
class Quotients : public Emission {
 public:
  Quotients(const Emission& e, std::size_t qi)
      : Emission(e),
        qi(qi),
        q(m_.quotients[qi]),
        item(plan_.quotients[qi]),
        np(q.vars.size() - 1),
        xv(np),
        elem(effective_set(q.vars.back().set)),
        n(std::to_string(qi)),
        origin(quotient_origin(qi)),
        repr(cname(q.repr_choice)),
        eq(cname(q.equivalence)),
        t(value_bit(q.repr_choice, "TRUE")),
        f(value_bit(q.repr_choice, "FALSE")) {
    for (std::size_t p = 0; p < np; ++p) params_args += "params[" + std::to_string(p) + "], ";
  }

  void emit(CodeWriter& w) const {
    w.comment("Quotient " + m_.sets[q.set].name + " (" + loc_string(q.loc) + "): is " + repr +
              "(..., x) the representative of x's class?");
    if (hoists_peers(qi)) {
      w.comment("The members below x that " + eq +
                " may still make equivalent to x: the only ones");
      w.comment("x's check reads under any parameters (they only get fewer).");
      w.open("Candidate::Peers Candidate::quotient_" + n + "_peers(ObjectId x) const");
      w.line("Peers peers;");
      w.open("for (const ObjectId y : members(" + set_id(elem) + "))");
      w.line("if (y >= x) break;");
      w.line("if (truth_is(get_" + eq + "(y, x), " + mask(q.equivalence, q.equivalence_values) +
             ") != Truth::False) peers.push_back(y);");
      w.close();
      w.line("return peers;");
      w.close();
      w.line();
    }
    emit_check(w);
    emit_from_around(w);
    emit_all_params_at(w);
  }

 private:
  /// The check settles the representative to `value`, and then has nothing left to do.
  std::string settle(std::uint64_t value) const {
    const bool quiet = plan_.woken_only_by_own_check[q.repr_choice];
    return "return restrict_" + repr + "(" + params_args + "x, " + mask(q.repr_choice, value) +
           ", " + origin + (quiet ? ", /*queue=*/false);" : ");");
  }
  /// The scope of the condition with x named `x`.
  Scope condition_scope(const std::string& x) const {
    Scope scope{&item, std::vector<std::string>(item.vars.size())};
    for (std::size_t p = 0; p < np; ++p) scope.names[p] = "params[" + std::to_string(p) + "]";
    scope.names[xv] = x;
    return scope;
  }
  /// The truth of the condition of `x`.
  std::string cond_truth(const std::string& x) const {
    const Scope scope = condition_scope(x);
    std::string out = "Truth::True";
    for (const auto& cond : item.clauses[0]) {
      out = "conjunction(" + out + ", " + truth(cond, scope, {}) + ")";
    }
    return out;
  }

  /// `quotient_<q>_check` and `_check_among`.
  void emit_check(CodeWriter& w) const {
    w.open("Status Candidate::quotient_" + n + "_check(const ObjectId* params, ObjectId x)");
    w.line("return quotient_" + n + "_check_among(params, x, members(" + set_id(elem) + "));");
    w.close();
    w.line();
    w.comment("The check of x reading the members `ys` (in increasing order, a superset of its");
    w.comment("peers).");
    w.line("template <typename Members>");
    w.open("Status Candidate::quotient_" + n +
           "_check_among(const ObjectId* params, ObjectId x, const Members& ys)");
    w.line("(void)params;");
    w.line("const Truth cx = " + cond_truth("x") + ";");
    w.line("if (cx == Truth::False) " + settle(f));
    w.line("int possible = 0;");
    w.line("ObjectId last = 0;");
    w.open("for (const ObjectId y : ys)");
    w.line("if (y >= x) break;");
    w.line("const Truth e = truth_is(get_" + eq + "(y, x), " +
           mask(q.equivalence, q.equivalence_values) + ");");
    w.line("if (e == Truth::False) continue;");
    w.line("const Truth cy = " + cond_truth("y") + ";");
    w.line("if (cy == Truth::False) continue;");
    w.line("if (cy == Truth::True && e == Truth::True) " + settle(f));
    w.line("++possible;");
    w.line("last = y;");
    w.close();
    w.line("if (cx == Truth::True && possible == 0) " + settle(t));
    w.line("const ValueSet r = get_" + repr + "(" + params_args + "x);");
    w.open("if (r == " + mask(q.repr_choice, t) + ")");
    {
      const Scope scope = condition_scope("x");
      for (const auto& cond : item.clauses[0]) enforce(w, cond, scope, origin);
      w.open("for (const ObjectId y : ys)");
      w.line("if (y >= x) break;");
      w.line("if (" + cond_truth("y") + " != Truth::True) continue;");
      w.line(check("restrict_" + eq + "(y, x, " +
                   mask(q.equivalence, ~q.equivalence_values & full_mask(q.equivalence)) + ", " +
                   origin + ")"));
      w.close();
    }
    w.close();
    w.open("if (r == " + mask(q.repr_choice, f) + " && cx == Truth::True && possible == 1)");
    {
      const Scope scope = condition_scope("last");
      for (const auto& cond : item.clauses[0]) enforce(w, cond, scope, origin);
      w.line(check("restrict_" + eq + "(last, x, " + mask(q.equivalence, q.equivalence_values) +
                   ", " + origin + ")"));
    }
    w.close();
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }

  /// `quotient_<q>_from` and `_around`.
  void emit_from_around(CodeWriter& w) const {
    w.open("Status Candidate::quotient_" + n + "_from(const ObjectId* params, ObjectId first)");
    w.open("for (const ObjectId x : members(" + set_id(elem) + ", first))");
    w.line(check("quotient_" + n + "_check(params, x)"));
    w.close();
    w.line("return Status::Ok;");
    w.close();
    w.line();
    w.comment("After a change of x's condition: x, and the larger members x may be equivalent to");
    w.comment("(the only checks that read it).");
    w.open("Status Candidate::quotient_" + n + "_around(const ObjectId* params, ObjectId x)");
    w.line("if (!is_member(" + set_id(elem) + ", x)) return Status::Ok;");
    w.line(check("quotient_" + n + "_check(params, x)"));
    w.open("for (const ObjectId z : members(" + set_id(elem) + ", x + 1))");
    w.open("if (truth_is(get_" + eq + "(x, z), " + mask(q.equivalence, q.equivalence_values) +
           ") != Truth::False)");
    w.line(check("quotient_" + n + "_check(params, z)"));
    w.close();
    w.close();
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }

  /// `call` on `params` for every parameter tuple.
  void for_each_params(CodeWriter& w, const std::string& call) const {
    Item params_item{std::vector<Variable>(q.vars.begin(), q.vars.end() - 1), {}, {}, true};
    Scope scope{&params_item, std::vector<std::string>(np)};
    emit_scope(w, scope, std::vector<bool>(np, false), [&] {
      std::string list;
      for (std::size_t p = 0; p < np; ++p) list += (p ? ", " : "") + scope.names[p];
      w.line("const ObjectId params[] = {" + (np ? list : std::string("0")) + "};");
      w.line(check(call));
    });
  }

  /// `quotient_<q>_all_params` and `_at`.
  void emit_all_params_at(CodeWriter& w) const {
    w.open("Status Candidate::quotient_" + n + "_all_params(ObjectId first)");
    for_each_params(w, "quotient_" + n + "_from(params, first)");
    w.line("return Status::Ok;");
    w.close();
    w.line();
    // Every tuple, even those where y, the lower end of the equivalence that changed, fails
    // the condition: `around(y)` skips x by the current equivalence, so when both change in
    // one propagation, each skip would count on the other's check and x would go unchecked.
    w.comment(hoists_peers(qi)
                  ? "Checks x under every parameter tuple; its peers are read once for all."
                  : "Checks x.");
    w.open("Status Candidate::quotient_" + n + "_at(ObjectId x)");
    w.line("if (!is_member(" + set_id(elem) + ", x)) return Status::Ok;");
    if (hoists_peers(qi)) {
      w.line("const Peers peers = quotient_" + n + "_peers(x);");
      for_each_params(w, "quotient_" + n + "_check_among(params, x, peers)");
    } else {
      for_each_params(w, "quotient_" + n + "_check(params, x)");
    }
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }

  const std::size_t qi;
  const spacedsl::Quotient& q;
  const Item& item;
  const std::size_t np;  // parameters
  const VarId xv;        // the element's variable
  const SetId elem;      // the element set
  const std::string n;
  const std::string origin;
  const std::string repr;  // the representative choice
  const std::string eq;    // the equivalence choice
  const std::uint64_t t;   // repr's TRUE and FALSE
  const std::uint64_t f;
  std::string params_args;  // `params[0], ..., `
};

/// The whole file: every quotient's functions, then the dispatch of deferred checks.
class QuotientsFile : public Emission {
 public:
  explicit QuotientsFile(const Emission& e) : Emission(e) {}

  std::string quotients_cpp() const {
    CodeWriter w;
    open_source(w, {"Quotient checks: whether an element is its class's representative."},
                {R"("space.h")"});
    for (std::size_t q = 0; q < plan_.quotients.size(); ++q) Quotients(*this, q).emit(w);
    emit_run_quotient_check(w);
    close_source(w);
    return w.text();
  }

 private:
  /// The checks on_change defers (see CandidateBase::defer_quotient_check).
  void emit_run_quotient_check(CodeWriter& w) const {
    w.open("Status Candidate::run_quotient_check(std::uint32_t quotient, ObjectId x)");
    if (plan_.quotients.empty()) w.line("(void)x;");
    w.open("switch (quotient)");
    for (std::size_t q = 0; q < plan_.quotients.size(); ++q) {
      w.line("case " + std::to_string(q) + ": return quotient_" + std::to_string(q) + "_at(x);");
    }
    w.line("default: break;");
    w.close();
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }
};

}  // namespace

std::string emit_quotients(const Emission& e) { return QuotientsFile(e).quotients_cpp(); }

}  // namespace sculpt::spacegen
