#pragma once
// A reference evaluator of a space (an oracle for testing spacegen): given the checked model,
// the host's answers about objects and a full assignment, it says which constraints hold, by
// evaluating the model's conditions directly. It shares nothing with the generated code but
// the model, so that a test can compare the generated propagation against it.
//
// Evaluated here, from the model alone:
//  - every `require` (and every lowered value/alias `requires`): each clause over every tuple
//    of pairwise distinct objects (distinct when drawn from one root set), `||` of its
//    conditions (`is`, `==`/`!=` of choices, comparisons of integers and counters, constants);
//  - the value of every counter read by a condition: the sum, product or maximum (0 when
//    nothing is counted) of its terms whose `when` holds, saturated at +-2^60 like the
//    generated counters; `half` counters are evaluated exactly too;
//  - quotient sets: members of a quotient set are the objects whose representative choice is
//    TRUE in the assignment, and each representative choice must equal its definition:
//    TRUE exactly when the condition holds and no lower member of the element set that meets
//    the condition is equivalent to it (`equivalence(y, x)` in the values, y < x);
//  - symmetric and antisymmetric choices: the assignment gives (a, b) with a < b (ids), the
//    oracle derives (b, a);
//  - integer choices: the value must lie in the instance's universe;
//  - decimal integer literals in host code (`"4"`).
// Asked of the host (`Host`): every other host code, i.e. set iterators (membership), integer
// universes, static filters and host integers. These are object attributes, never constraint
// logic. Triggers (lowerings) and `add_to_set` constrain nothing: `evaluate` takes the
// assignment over the objects of the backbone as given (for a space with triggers, the backbone
// once every lowering has run), and `holding_triggers` says on which tuples a trigger's
// condition holds, i.e. which lowerings must have run.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spacedsl/model.h"

namespace sculpt::spacedsl::oracle {

using ObjectId = std::uint32_t;

/// A variable of host code bound to an object of `set`: `$name` is the object with id `id`.
struct Binding {
  std::string_view name;
  SetId set;
  ObjectId id;
};

/// The host: evaluates host code with its `$variables` bound (`$fun` is the host's own).
struct Host {
  /// A range of integers: a set's `iterator` (the ids of its objects) or an integer universe.
  std::function<std::vector<std::int64_t>(const std::string& code, std::span<const Binding>)> range;
  /// An integer or boolean (0/1) expression: a static filter, a comparison's or a counter's
  /// host integer.
  std::function<std::int64_t(const std::string& code, std::span<const Binding>)> scalar;
};

/// A full assignment: the value index of an enum instance, the value of an integer instance,
/// for the arguments in the choice's order (symmetric and antisymmetric choices are asked
/// with increasing ids only); nullopt for an instance it does not have, which the oracle
/// reports as a violation. Never asked about counters, which the oracle computes.
using Assignment = std::function<std::optional<std::int64_t>(ChoiceId, std::span<const ObjectId>)>;

/// One violated constraint, quotient definition or universe, readable.
struct Violation {
  std::string what;
};

/// Every violation of `assignment` (empty: a solution). `limit` stops after that many.
std::vector<Violation> evaluate(const Model& model, const Host& host, const Assignment& assignment,
                                std::size_t limit = 1);

/// The tuples of pairwise distinct objects (in the trigger's variable order) on which the
/// condition of trigger `trigger` (Model::triggers order) holds under `assignment`; one empty
/// tuple for a trigger without variables whose condition holds.
std::vector<std::vector<ObjectId>> holding_triggers(const Model& model, const Host& host,
                                                    const Assignment& assignment,
                                                    std::size_t trigger);

/// The value of a counter instance under `assignment`.
std::int64_t counter_value(const Model& model, const Host& host, const Assignment& assignment,
                           ChoiceId counter, std::span<const ObjectId> args);

}  // namespace sculpt::spacedsl::oracle
