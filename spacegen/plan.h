#pragma once
// The analysis of a space model, as plain data: what the emitters write out, decided before
// any of them runs. `build_plan` runs the passes in order (plan.cpp: items after quotient
// desugaring, static filters, origins, counter order and bounds, value maps; support_tables.cpp;
// wakeups.cpp; triangles.cpp).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "spacedsl/model.h"
#include "spacegen/model_queries.h"

namespace sculpt::spacegen {

/// A constraint, counter term, trigger or quotient condition after quotient desugaring:
/// variables and clauses (disjunctions). Counters and triggers use one clause read as a
/// conjunction.
struct Item {
  std::vector<spacedsl::Variable> vars;
  std::vector<std::vector<spacedsl::Condition>> clauses;
  std::vector<spacedsl::VarId> value_vars;  // counters: the variables their value reads
  bool reads_all = false;  // its code uses every variable (triggers, argument tuples)
  /// Constraints, by clause: whether posting the clause settles it for good (wakes skip it).
  std::vector<bool> settled = {};
};

/// A choice read with given variables: the unit that wakes propagators.
struct Pattern {
  spacedsl::ChoiceId choice;
  std::vector<spacedsl::VarId> args;
  friend bool operator==(const Pattern&, const Pattern&) = default;
};

/// A host-code condition evaluated once per object tuple when the layout is made.
struct StaticFilter {
  const spacedsl::Condition* cond;  // in the plan's items
  const Item* item;
  std::vector<spacedsl::VarId> vars;  // the variables the code mentions (at most two)
};

/// The lowering a trigger (or a quotient's `add_to_set`) runs.
struct TriggerCode {
  std::string code;
  std::string doc;
  spacedsl::SourceLocation loc;
};

/// A constraint whose clauses read two or three enum instances and nothing else (no host code,
/// no integers), with domains small enough that, for each instance, the values it may keep
/// given every pair of domains of the others fit in a table computed at generation time.
/// Propagating a tuple is then one lookup per instance, and it removes every value without a
/// supporting assignment of the others (arc consistency on the tuple), which checking clause
/// by clause does not.
struct SupportTable {
  std::vector<Pattern> patterns;
  /// Its variables range over one set and the constraint holds for every permutation of them
  /// (each pattern, permuted, is another pattern or its flip): the table is the conjunction
  /// over the permutations, so one tuple per set of objects needs checking, and a change is
  /// propagated through one of the patterns of its choice.
  bool symmetric = false;
  /// keep[i][index of the other domains, the first one in the high bits]: the values of
  /// pattern i supported by some values of those domains.
  std::vector<std::vector<std::uint64_t>> keep;
  /// wake_classes[k][domain of pattern k]: two domains share a class when the tables keep the
  /// same values of every other pattern with one as with the other, whatever the other
  /// domains. Empty when every domain has its own class.
  std::vector<std::vector<std::uint8_t>> wake_classes;
};

/// Index bits of one support table (the values of the other instances together).
constexpr std::size_t kMaxSupportIndexBits = 12;

/// When a change of an enum instance from `old` to `now` wakes a call: always (nothing
/// below), when it settles `is` against one of `settled` (only when it makes one false, if
/// `falsified`), or when it moves the domain to another wake class of support table `table`,
/// pattern `pattern` (read through the involution when `flip`).
struct Wake {
  std::vector<ValueSet> settled;
  bool falsified = false;
  std::optional<std::size_t> table;
  std::size_t pattern = 0;
  bool flip = false;
  bool always() const { return settled.empty() && !table; }
};

/// The two other sides of a support table on a triangle c(x, y), c(x, z), c(z, y) of one
/// triangular choice, woken through pattern k = c(x, y) (spacegen/runtime/triangle.h): its
/// domains fit a byte and are stored by object id, x and y range over the choice's own set
/// (no membership to check), and z over a plain set.
struct TriangleShape {
  std::array<std::size_t, 2> sides;  // the patterns sharing x, then y, with k
  std::array<bool, 2> flipped;       // the side reads (z, x) or (z, y)
  spacedsl::VarId third;             // z
};

/// For each counter, whether propagation may impose a lower and an upper bound on it.
struct CounterBounds {
  bool lower = false;
  bool upper = false;
  friend bool operator==(const CounterBounds&, const CounterBounds&) = default;
};

/// Everything the emitters read beyond the model. Filters point into the items: a plan is
/// moved (vectors keep their elements in place), never copied.
struct Plan {
  Plan() = default;
  Plan(Plan&&) = default;
  Plan& operator=(Plan&&) = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  // Items, after quotient desugaring.
  std::vector<Item> constraints;
  std::vector<Item> counters;
  std::vector<spacedsl::ChoiceId> counter_ids;    // the counter choice of each counter item
  std::vector<spacedsl::ChoiceId> counter_order;  // counters reading other counters after them
  std::vector<Item> triggers;                     // then one per quotient with `add_to_set`
  std::vector<TriggerCode> trigger_code;          // per trigger
  std::vector<Item> quotients;
  /// Conflict origins (name, location): 0 is the search's action, then constraints, counters,
  /// quotients.
  std::vector<std::pair<std::string, std::string>> origins;
  std::vector<StaticFilter> filters;
  /// By constraint, its name in generated identifiers: `<file stem>_<line>` of its `require`
  /// (then `_<index>` if another constraint has that name).
  std::vector<std::string> constraint_names;

  // By constraint.
  std::vector<std::vector<Pattern>> patterns;            // patterns_of(constraints[i])
  std::vector<std::optional<SupportTable>> supports;     // when the constraint qualifies
  std::vector<std::vector<std::size_t>> woken_patterns;  // whose changes wake a propagator
  /// [i][k]: the clauses a change of pattern k wakes (those that read it, not settled).
  std::vector<std::vector<std::vector<std::size_t>>> woken_clauses;
  std::vector<std::vector<spacedsl::VarId>> posted_vars;  // posted on new objects
  /// [i][v]: the clauses checked on the tuples with $v a new object.
  std::vector<std::vector<std::vector<std::size_t>>> posted_clauses;
  /// [i][k]: the triangle a wake-up through pattern k scans, if any.
  std::vector<std::vector<std::optional<TriangleShape>>> triangles;

  // By counter.
  std::vector<std::vector<Pattern>> counter_patterns;  // its `when` then its value
  /// The choices the counter reads through several patterns: derived again on their changes.
  std::vector<std::vector<spacedsl::ChoiceId>> rederived_on;

  // By choice.
  std::vector<CounterBounds> counter_bounds;
  std::vector<bool> scanned_as_triangle;  // its stores keep the triangle rows current
  /// The representative of one quotient whose check is all its changes wake: the check's own
  /// restrictions queue nothing.
  std::vector<bool> woken_only_by_own_check;

  /// Pairs of enum choices compared with `==` whose values are ordered differently.
  std::vector<std::pair<spacedsl::ChoiceId, spacedsl::ChoiceId>> value_maps;
  /// By quotient: it has parameters, and its checks of x read x's peers once for all.
  std::vector<bool> hoists_peers;
};

/// Precondition: `model` passed spacedsl's checks.
Plan build_plan(const spacedsl::Model& model);

// Queries on items, shared by the passes and the emitters.

/// Whether `ci` (lhs or rhs of `cond`) names a choice instance.
bool uses_choice(const spacedsl::Condition& cond, const spacedsl::ChoiceInstance* ci);
std::vector<Pattern> patterns_of(const std::vector<spacedsl::Condition>& conds);
std::vector<Pattern> patterns_of(const Item& item);
bool clause_has(const std::vector<spacedsl::Condition>& clause, const Pattern& p);
bool reads_choice(const Item& item, spacedsl::ChoiceId c);
/// The variables a condition reads: its choice instances' arguments and the `$names` of its
/// host code.
std::vector<spacedsl::VarId> condition_vars(const spacedsl::Condition& cond, const Item& item);
/// The static filter caching `cond`, if any.
std::optional<std::size_t> filter_of(const Plan& plan, const spacedsl::Condition& cond);
/// Whether each term of the counter is enforced against the counter alone (sums and
/// products): when a term changes and the counter stays as it was, only that term can be cut.
/// A maximum's lower bound forces its last witness, which any term's change may make: its
/// terms are enforced together.
bool enforced_term_wise(const spacedsl::Counter& counter);

// Support tables (support_tables.cpp).

/// Where the domain of pattern j sits in the index of pattern p's support table: the other
/// patterns' domains are concatenated, the first one in the high bits.
std::size_t index_shift(const ModelQueries& q, const std::vector<Pattern>& ps, std::size_t p,
                        std::size_t j);

// Wake-ups (wakeups.cpp).

/// The wake-up through pattern `p` of `item`, read with its arguments swapped when
/// `flipped`. A propagator that reads the instance only through `is` conditions learns
/// nothing from a change that settles none of them (clauses settled when posted aside); one
/// that reads its whole domain (a comparison of choices, a support table) is always woken.
Wake wake_of(const ModelQueries& q, const Item& item, const Pattern& p, bool flipped,
             bool reads_domains);
/// Whether `wake` fires on a change of an instance of `c` from `old` to `now`, as its guard
/// reads it at run time.
bool fires(const ModelQueries& q, const Plan& plan, spacedsl::ChoiceId c, const Wake& wake,
           ValueSet old, ValueSet now);

}  // namespace sculpt::spacegen
