#pragma once
// The resolved, typed model of an implementation space: the output of spacedsl's semantic
// checks and the only input of spacegen. Names are resolved to indices, includes are
// flattened, `requires` are lowered into ordinary constraints and quotient sets carry the
// boolean choice they declare. Everything here has passed the checks: the generator may
// assert on it instead of re-validating.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spacedsl/source_location.h"

namespace sculpt::spacedsl {

using SetId = std::size_t;     // index into Model::sets
using ChoiceId = std::size_t;  // index into Model::choices
using VarId = std::size_t;     // index into the enclosing item's variable list

/// A quantified or argument variable (`$name in Set`).
struct Variable {
  std::string name;  // without the `$`
  SetId set;
  SourceLocation loc;
  /// Added by the front end: for `$x in S($p)` over a parametric set S, the variable (an
  /// earlier one of the same list) giving S's parameter; empty for a set without parameter.
  std::optional<VarId> set_parameter;
};

/// `reverse forall $dim in StaticDims = "$dim->logical_dims()"`: for a parametric set, which
/// parameter objects contain a given member.
struct ReverseField {
  std::string var;  // the member variable's name
  SetId set;        // the set the member is drawn from
  std::string code;
};

/// The quotient part of a set declared with `quotient`.
/// `quotient Q($p in P) of $x in S: repr = <cond> / equiv is V1 | V2` declares the boolean
/// choice `repr` over (params..., $x); it is TRUE exactly for the representative (the member
/// with the lowest id) of each class of members of S that satisfy `condition`, where two
/// members $x, $y are in the same class when `equivalence($x, $y)` takes one of
/// `equivalence_values`.
struct Quotient;

/// Field inheritance: a subset takes from its superset every host field it does not set,
/// except `iterator`, `from_superset` and `all_ids`; after inheritance `type`, `id_type`,
/// `iterator`, `item_getter`, `id_getter` and `capacity` are set, and so is `from_superset` for a
/// subset that is not a quotient.
struct Set {
  std::string name;
  std::string doc;
  SourceLocation loc;
  std::optional<Variable> parameter;  // parametric set: `set S($p in P)`
  std::optional<SetId> superset;      // `subsetof`
  std::vector<SetId> disjoint;        // `disjoint: A, B`
  // Host-code fields; empty when absent. `$fun` is the backbone, `$id`/`$item` the object in
  // id_getter/item_getter, and the parameter variable is in scope for parametric sets.
  std::string type;
  std::string id_type;
  std::string iterator;
  std::string item_getter;
  std::string id_getter;
  std::string new_objs;
  std::string from_superset;
  std::string add_to_set;  // quotients: called when an object becomes a representative
  /// Upper bound on the ids of this set's objects, those lowerings may add included: ids are
  /// dense integers in [0, capacity), which is what lets the decision vector be one block.
  std::string capacity;
  /// Plain sets, optional, not inherited: a range over the ids of every object the set may ever
  /// hold, those lowerings add included. The decision vector then gives instances only to these
  /// objects (and to those of its subsets without `all_ids`).
  std::string all_ids;
  std::optional<ReverseField> reverse;
  std::optional<std::size_t> quotient;  // index into Model::quotients
};

enum class ChoiceKind : std::uint8_t { Enum, Integer, Counter };
enum class CounterOp : std::uint8_t { Sum, Mul, Max };
enum class CompareOp : std::uint8_t { Lt, Le, Gt, Ge, Eq, Ne };

/// A choice instance inside a constraint, counter or trigger: `choice($a, $b)`, its
/// arguments given as variables of the enclosing item (in the choice's argument order).
struct ChoiceInstance {
  ChoiceId choice;
  std::vector<VarId> args;
  SourceLocation loc;
};

/// Bit i set <=> the choice's i-th value. Enum choices have at most 64 values (checked).
using ValueSet = std::uint64_t;

/// One condition of a clause.
struct Condition {
  enum class Kind : std::uint8_t {
    Is,              // lhs is values (enum); `is not` is stored complemented
    ChoiceEqual,     // lhs == rhs, two enum choices with the same value names, or two integers
    ChoiceNotEqual,  // lhs != rhs
    CompareCode,     // lhs op "code"   (integer choice or counter against a host integer)
    CompareChoices,  // lhs op rhs      (two integer choices / counters)
    Code,            // "host boolean" (static filter, evaluated once per object tuple)
    Constant,        // TRUE or FALSE
  };
  Kind kind = Kind::Constant;
  SourceLocation loc;
  ChoiceInstance lhs{};
  ChoiceInstance rhs{};
  ValueSet values = 0;  // Is: the allowed values (already complemented for `is not`)
  CompareOp op = CompareOp::Eq;
  std::string code;      // CompareCode / Code
  bool constant = true;  // Constant
};

/// A disjunction: at least one condition holds.
struct Clause {
  std::vector<Condition> conditions;
  SourceLocation loc;
};

/// `require forall ...: clause \n clause ...`, and value/alias `requires` once lowered.
/// Variables are implicitly pairwise distinct when drawn from sets that may share objects.
struct Constraint {
  std::vector<Variable> vars;
  std::vector<Clause> clauses;
  std::string doc;
  SourceLocation loc;
};

struct EnumValue {
  std::string name;
  std::string doc;
  SourceLocation loc;
};

struct Alias {
  std::string name;
  std::string doc;
  ValueSet values = 0;
  SourceLocation loc;
};

/// The increment of a counter term: host code or the value of another choice
/// (an integer choice or a counter).
struct CounterValue {
  std::optional<ChoiceInstance> choice;
  std::string code;  // used when `choice` is empty
};

struct Counter {
  CounterOp op = CounterOp::Sum;
  bool half = false;             // only the upper bound is maintained and constrained
  std::vector<Variable> forall;  // quantified after the choice's arguments (VarIds follow them)
  CounterValue value;
  std::vector<Condition> when;  // conjunction; empty: always counted
  SourceLocation loc;
};

struct Choice {
  std::string name;
  std::string doc;
  SourceLocation loc;
  ChoiceKind kind = ChoiceKind::Enum;
  std::vector<Variable> args;  // VarId i is args[i] everywhere the choice's own vars are used
  // Enum
  std::vector<EnumValue> values;
  std::vector<Alias> aliases;
  bool symmetric = false;
  /// Antisymmetric enum choices: the involution over values (value i of (a, b) <=> value
  /// antisymmetric_map[i] of (b, a)); empty when the choice is not antisymmetric.
  std::vector<std::size_t> antisymmetric_map;
  // Integer
  std::string universe;  // host code giving the per-instance universe of values
  // Counter
  std::optional<Counter> counter;
  /// Set when the choice was declared by a quotient (`repr = ...`): boolean enum TRUE/FALSE.
  std::optional<std::size_t> quotient;
};

struct Quotient {
  SetId set;                         // the quotient set itself
  ChoiceId repr_choice;              // the boolean representative choice
  std::vector<Variable> vars;        // params (if any) then the element variable (last)
  std::vector<Condition> condition;  // conjunction over vars
  ChoiceId equivalence;              // a choice over two objects of the element set
  ValueSet equivalence_values = 0;
  SourceLocation loc;
};

/// `trigger forall ...: "code" when cond && cond`.
struct Trigger {
  std::vector<Variable> vars;
  std::vector<Condition> conditions;  // conjunction
  std::string code;
  std::string doc;
  SourceLocation loc;
};

struct Model {
  std::vector<std::string> files;  // the root file then every included file, in include order
  std::vector<Set> sets;
  std::vector<Choice> choices;
  std::vector<Constraint> constraints;
  std::vector<Trigger> triggers;
  std::vector<Quotient> quotients;
};

}  // namespace sculpt::spacedsl
