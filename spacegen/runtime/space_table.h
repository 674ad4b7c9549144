#pragma once
// Static description of a generated space, emitted by spacegen as tables: what the
// type-erased API needs to name choices, values, sets and the origins of conflicts.
#include <cstdint>
#include <string>
#include <vector>

namespace sculpt::spacegen {

enum class ChoiceKind : std::uint8_t { Enum, Integer, Counter };
/// Symmetric and antisymmetric choices store only (a, b) with a < b.
enum class Symmetry : std::uint8_t { None, Symmetric, Antisymmetric };

struct SetTable {
  std::string name;
  bool parametric = false;
  /// Parametric and quotient sets have no membership bitset: their members are those of a
  /// plain superset that satisfy a condition.
  bool quotient = false;
  /// Whether the set has its own membership bitset.
  bool plain() const { return !parametric && !quotient; }
};

struct ChoiceTable {
  std::string name;
  ChoiceKind kind = ChoiceKind::Enum;
  std::vector<std::uint32_t> arg_sets;
  Symmetry symmetry = Symmetry::None;
  std::vector<std::string> values;       // enum value names
  std::vector<std::uint8_t> involution;  // antisymmetric: value i of (a,b) <=> this of (b,a)
  bool half = false;                     // half counters keep only their lower end
  /// Counters: whether propagation may impose a lower / an upper bound on them (else the layout
  /// stores none).
  bool lower_bound = true;
  bool upper_bound = true;
};

/// Where a restriction comes from: a constraint, a counter, a quotient, an action.
struct OriginTable {
  std::string name;
  std::string location;  // file:line:column
};

struct SpaceTable {
  std::string name;
  std::vector<SetTable> sets;
  std::vector<ChoiceTable> choices;
  std::vector<OriginTable> origins;
  std::size_t num_triggers = 0;
  std::uint64_t model_hash = 0;  // changes whenever the space description changes
};

}  // namespace sculpt::spacegen
