#pragma once
// Random descents through a space: from a candidate, fix the next open choice (of a
// DecisionOrder, else the space's declaration order) to a value drawn uniformly among those whose
// propagation succeeds, until the candidate is fully specified or no value is left (a dead end:
// propagation did not see the conflict before).
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "search/session/decision_order.h"
#include "spacegen/runtime/candidate.h"

namespace sculpt::search {

struct Descent {
  /// The fully specified candidate; null at a dead end.
  std::unique_ptr<spacegen::CandidateBase> candidate;
  /// The decisions taken, in order (replaying them on the root rebuilds the candidate).
  std::vector<spacegen::Action> actions;
  /// Restrictions propagated, failed ones included.
  std::size_t propagations = 0;
  /// At a dead end: why the last value tried failed.
  std::optional<spacegen::Conflict> dead_end;
};

/// One uniform random descent from `from`, deciding in `order` (null: declaration order). Values
/// are tried in a random order and the first that propagates is taken: the same distribution as
/// drawing among the valid ones.
Descent random_descent(const spacegen::CandidateBase& from, std::mt19937_64& rng,
                       const DecisionOrder* order = nullptr);

/// The children of `node` along its first open choice that survive propagation, one per value.
/// `propagations` counts the restrictions tried.
std::vector<std::unique_ptr<spacegen::CandidateBase>> valid_children(
    const spacegen::CandidateBase& node, const spacegen::InstanceRef& choice,
    std::size_t* propagations = nullptr);

/// `from` with the actions that still apply to it, taken in order. An action naming what
/// `from` lacks is `absent`: objects (another space's, or a lowering not taken) or a value (a
/// tile size larger than a dimension of other sizes); one whose values propagation refuses (a
/// tile size that no longer fits with the others) is `refused`. Both are skipped.
struct Replay {
  std::unique_ptr<spacegen::CandidateBase> candidate;
  std::size_t applied = 0;
  std::size_t absent = 0;
  std::size_t refused = 0;
};
Replay replay_what_applies(const spacegen::CandidateBase& from,
                           std::span<const spacegen::Action> actions);

}  // namespace sculpt::search
