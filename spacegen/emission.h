#pragma once
// What every emitter shares: the plan, the names of generated entities, the text of
// expressions (conditions' truth, restrictions, host code), the scopes that bind variables in
// loops and the checks of clauses and support tables. Each generated file has its emitter
// (emitters.h), a class deriving from this one.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spacedsl/model.h"
#include "spacegen/generator.h"
#include "spacegen/model_queries.h"
#include "spacegen/plan.h"
#include "support/code_writer.h"

namespace sculpt::spacegen {

using support::CodeWriter;

std::string loc_string(const spacedsl::SourceLocation& loc);
/// A C++ string literal.
std::string quoted(const std::string& s);
std::string op_name(spacedsl::CompareOp op);
std::string counter_op_name(spacedsl::CounterOp op);
std::string hex(std::uint64_t v);

/// What an emitted scope knows: the C++ expression of each bound variable's id.
struct Scope {
  const Item* item;
  std::vector<std::string> names;
  /// Host objects already fetched into locals, by variable (empty: fetched where used).
  std::vector<std::string> objects = {};
  /// Enum choices read through a local `slots_<choice>` hoisted out of the loops.
  std::vector<spacedsl::ChoiceId> hoisted = {};
};

/// Choice instances read from locals instead of the decision vector: the old domain in counter
/// updates, or the instances a group of clauses reads once per tuple.
struct Locals {
  std::vector<std::pair<Pattern, std::string>> reads;  // the instance and its local
  bool refresh = false;  // the locals are read again (`refresh();`) after each restriction
};

/// `constexpr <type> <name>[] = {values};`, 16 values a line.
template <typename T>
void emit_array(CodeWriter& w, const std::string& type, const std::string& name,
                const std::vector<T>& values) {
  w.open("constexpr " + type + " " + name + "[" + std::to_string(values.size()) + "] =");
  for (std::size_t k = 0; k < values.size(); k += 16) {
    std::string row;
    for (std::size_t j = k; j < std::min(k + 16, values.size()); ++j) {
      row += std::to_string(values[j]) + ",";
    }
    w.line(row);
  }
  w.close(";");
}

class Emission : public ModelQueries {
 public:
  Emission(const spacedsl::Model& model, const Plan& plan, const GeneratorOptions& options)
      : ModelQueries(model), plan_(plan), o_(options) {}

 protected:
  using ChoiceId = spacedsl::ChoiceId;
  using ChoiceInstance = spacedsl::ChoiceInstance;
  using ChoiceKind = spacedsl::ChoiceKind;
  using Condition = spacedsl::Condition;
  using Kind = spacedsl::Condition::Kind;
  using SetId = spacedsl::SetId;
  using Variable = spacedsl::Variable;
  using VarId = spacedsl::VarId;

  // ----- The plan, by the questions the emitters ask (emit_expressions.cpp) -------------

  const std::vector<std::size_t>& woken_patterns(std::size_t i) const {
    return plan_.woken_patterns[i];
  }
  const std::vector<VarId>& posted_vars(std::size_t i) const { return plan_.posted_vars[i]; }
  bool hoists_peers(std::size_t q) const { return plan_.hoists_peers[q]; }
  /// Whether any quotient hoists its peers.
  bool hoists_peers() const;
  /// Whether counter i reads choice c through several patterns (derived again on its changes).
  bool rederived_on(std::size_t i, ChoiceId c) const;
  bool has_rederive(std::size_t i) const { return !plan_.rederived_on[i].empty(); }

  // ----- Names and expressions (emit_expressions.cpp) -------------------------------------

  /// The slot of object `id` of membership set `s` (see Layout::slot).
  std::string slot_expr(SetId s, const std::string& id) const;
  std::string choice_id(ChoiceId c) const { return "choice_id::" + cname(c); }
  std::string set_id(SetId s) const { return "set_id::" + m_.sets[s].name; }
  /// A value set of choice c, with its value names in a comment.
  std::string mask(ChoiceId c, std::uint64_t values) const;
  std::string enum_type(ChoiceId c) const;
  bool cached(const Condition& cond) const { return filter_of(plan_, cond).has_value(); }
  /// The boolean value of a host-code condition: the cached filter when there is one.
  std::string static_code(const Condition& cond, const Scope& scope) const;
  std::size_t counter_index(ChoiceId c) const;
  std::string constraint_origin(std::size_t i, std::size_t clause) const;
  std::string counter_origin(ChoiceId c) const;
  std::string quotient_origin(std::size_t q) const;
  std::string item_expr(SetId s, const std::string& id, const std::string& fun) const;
  /// Host code in a scope, its variables become their host objects, marked with `loc`
  /// (line_directives.h).
  std::string host(const std::string& code, const spacedsl::SourceLocation& loc,
                   const Scope& scope) const;
  std::string args_of(const ChoiceInstance& ci, const Scope& scope) const;
  std::string args_comma(const ChoiceInstance& ci, const Scope& scope) const;
  /// ValueSet for enums, Interval for integers and counters.
  std::string summary(const ChoiceInstance& ci, const Scope& scope, const Locals& locals) const;
  static bool hoisted(const Scope& scope, ChoiceId c);
  /// Maps an enum domain of `from` onto the values of `to` with the same names.
  std::string map_values(ChoiceId from, ChoiceId to, const std::string& expr) const;
  std::string truth(const Condition& cond, const Scope& scope, const Locals& ov) const;
  static std::string check(const std::string& call);
  /// The call restricting `ci` to the values allowed by `range` (integers and counters).
  std::string restrict_range(const ChoiceInstance& ci, const Scope& scope, const std::string& range,
                             const std::string& origin) const;
  /// Emits what makes `cond` hold; conditions on host code only cannot be forced. Each
  /// restriction is followed by `refresh();` when the locals are re-read.
  void enforce(CodeWriter& w, const Condition& cond, const Scope& scope, const std::string& origin,
               const Locals& locals = {}) const;
  /// The condition that holds exactly when `cond` does not; nullopt when it cannot be forced.
  std::optional<Condition> negation(const Condition& cond) const;
  /// The instance named in a conflict when every condition of a clause is false.
  std::string fail_call(const std::vector<const Condition*>& clause, const Scope& scope,
                        const std::string& origin) const;
  /// The test (in `old` and `now`, parenthesized) of when a wake-up that is not always fires.
  std::string guard_text(ChoiceId c, const Wake& wake) const;
  /// `if <condition> ` before a statement; nothing when the condition is empty (always).
  static std::string guarded_by(const std::string& condition);
  /// The guard of `wake` on a change of an instance of `c`, testing it in place.
  std::string wake_guard(ChoiceId c, const Wake& wake) const;
  /// `propagate_<name>`: the prefix of constraint i's propagators.
  std::string propagator(std::size_t i) const { return "propagate_" + plan_.constraint_names[i]; }
  std::string support_name(std::size_t constraint, std::size_t pattern) const;
  /// Support tables narrow for the whole constraint, not one clause.
  std::string support_origin(std::size_t constraint) const;
  std::string wake_class_name(std::size_t i, std::size_t k) const;
  /// The conflict when a support table keeps no value of `ci`.
  std::string fail_if_none_kept(const std::string& keep, const ChoiceInstance& ci,
                                const Scope& scope, const std::string& origin) const;
  /// `order($a, $b)`: a pattern as written in the space.
  std::string pattern_text(const Item& item, const Pattern& pattern) const;
  /// Whether two patterns of `ps` may read one instance (an argument swap of a triangular
  /// choice; distinct variables bind distinct objects otherwise).
  bool may_alias(const std::vector<Pattern>& ps) const;
  std::string header_line() const;
  /// Opens a generated source file: the do-not-edit line, `comment` (lines, "// " added), the
  /// includes (`<...>` ones, a blank line, then the others), the namespace and its `using`.
  void open_source(CodeWriter& w, const std::vector<std::string>& comment,
                   const std::vector<std::string>& includes) const;
  /// Closes the namespace open_source opened.
  void close_source(CodeWriter& w) const;
  std::string id_params(std::size_t n) const;
  std::string id_params_comma(std::size_t n) const { return n ? id_params(n) + ", " : ""; }
  std::string id_list(std::size_t n) const;
  bool packed(ChoiceId c) const { return spacegen::packs_domains(num_values(c)); }
  /// Reads the domain of stored instance `index` of enum choice c from its `slots`.
  std::string enum_load(ChoiceId c, const std::string& slots, const std::string& index) const;
  std::string summary_type(ChoiceId c) const { return is_enum(c) ? "ValueSet" : "Interval"; }
  std::string index_expr(ChoiceId c, std::size_t n) const;
  /// The parameter that lets a quotient's check restrict its representative without queueing
  /// it (see woken_only_by_own_check), with its default `init`; nothing for other choices.
  std::string queue_param(ChoiceId c, const std::string& init) const;
  bool symmetric(std::size_t i) const { return plan_.supports[i] && plan_.supports[i]->symmetric; }

  // ----- Scopes: binding variables, loops, membership and distinctness (emit_scope.cpp) --

  /// Declares `slots_<c>` for the enum choices of `patterns` when `scope` still has variables
  /// to loop over (the accessor would reload the layout and block at every read otherwise).
  void hoist_slots(CodeWriter& w, Scope& scope, const std::vector<Pattern>& patterns) const;
  /// Called by emit_scope once the variables bound so far are checked (before the first loop,
  /// then inside each loop): `ready[v]` says whether $v is bound to a valid object (a member,
  /// distinct from the others); `in_loop` whether a `continue` skips to the next tuple (else
  /// the enclosing function may return).
  using LevelHook = std::function<void(const std::vector<bool>& ready, bool in_loop)>;
  /// Called by emit_scope before it loops over the members of set `s` to bind $v, with the
  /// variables `ready` so far: the range of a loop that skips objects the body would skip for
  /// any value of the later variables (see FilterTable::holding), or empty for every member.
  using LoopRange = std::function<std::string(VarId v, SetId s, const std::vector<bool>& ready)>;
  /// Emits the loops binding every unbound variable of `scope` (in declaration order) and
  /// the checks that make a tuple valid (membership of variables bound from outside,
  /// distinct objects), then `body`, then closes everything. `level`, when given, runs after
  /// the checks of each binding; `range`, when given, may narrow the loops over members.
  void emit_scope(CodeWriter& w, Scope& scope, const std::vector<bool>& needs_membership,
                  const std::function<void()>& body, const LevelHook& level = {},
                  const LoopRange& range = {}) const;
  /// Whether the code of a scope reads $v beyond its loop: a condition, the counter's value,
  /// a distinctness check or the parameter of another variable.
  bool reads_var(const Scope& scope, VarId v) const;
  /// A bound variable over a parametric set with a `reverse` field whose parameter is `p`.
  std::optional<VarId> reversible_member(const Scope& scope, VarId p) const;
  /// Binds the pattern's variables from `ids` and returns which need a membership test.
  std::vector<bool> bind_pattern(CodeWriter& w, Scope& scope, const Pattern& p) const;
  static bool all_bound(const std::vector<VarId>& vars, const std::vector<bool>& ready);
  /// Declares a local holding the domain (or bounds) of each pattern whose variables are now
  /// bound, so that the innermost level reads each instance once per tuple.
  void declare_ready_locals(CodeWriter& w, const std::vector<Pattern>& patterns,
                            const std::vector<bool>& ready, const Scope& scope,
                            std::vector<bool>& declared, Locals& locals) const;
  /// `refresh()` reads every local again (after a restriction).
  void emit_refresh(CodeWriter& w, const Scope& scope, const Locals& locals) const;
  /// Sets every instance of counter `c` to its interval derived from scratch.
  void emit_rederive(CodeWriter& w, ChoiceId c) const;

  /// Emits the loops computing the universe of every present instance of integer choice `c`.
  /// `member(set, id)` tells which objects exist; `sink(choice, index, values)` records.
  void emit_universes(CodeWriter& w, ChoiceId c, bool at_layout) const;

  // ----- Checks of clauses and support tables (emit_checks.cpp) --------------------------

  /// Restricts `ci`, whose domain reads `now`, to what a support table keeps of it.
  void emit_keep(CodeWriter& w, const std::string& keep, const ChoiceInstance& ci,
                 const Scope& scope, const std::string& now, const std::string& origin,
                 bool refresh) const;
  /// The tables of constraint `i`, at namespace scope.
  void emit_support_tables(CodeWriter& w, std::size_t i, const SupportTable& table) const;
  /// A wake-up through pattern k of a triangle (see triangle_shape): every z at once.
  void emit_triangle(CodeWriter& w, std::size_t i, std::size_t k, const TriangleShape& shape,
                     Scope& scope) const;
  /// Emits, for every tuple of `scope`, the restriction of each pattern of `table` to the
  /// values its table keeps (a conflict when one keeps none). `woken`: the pattern whose change
  /// the function propagates, if any.
  void emit_supports(CodeWriter& w, std::size_t i, const SupportTable& table, Scope& scope,
                     const std::vector<bool>& needs_membership,
                     std::optional<std::size_t> woken) const;
  /// Emits, for every tuple of `scope`, the check of each clause in `clauses`: a conflict when
  /// every condition is false, the last one forced when all others are. The instances the
  /// clauses read are read once per tuple into locals (again after each restriction); a
  /// condition is evaluated as soon as its variables are bound (cached host filters before any
  /// domain is read), and when it certainly holds, its clause is skipped for every tuple that
  /// extends the bound ones (domains only shrink, so it keeps holding).
  void emit_clauses(CodeWriter& w, const Item& item, const std::vector<std::size_t>& clauses,
                    Scope& scope, const std::vector<bool>& needs_membership,
                    const std::function<std::string(std::size_t)>& origin) const;
  /// The check of one clause in the innermost loop: `hoisted` conditions were evaluated on an
  /// enclosing level, into the flag `done` (host code among them is known to be false here).
  void emit_clause(CodeWriter& w, const std::vector<const Condition*>& conds,
                   const std::vector<bool>& hoisted, const std::string& done, const Scope& scope,
                   const std::string& origin, const Locals& locals) const;

  const Plan& plan_;
  const GeneratorOptions& o_;
};

}  // namespace sculpt::spacegen
