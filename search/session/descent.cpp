#include "search/session/descent.h"

#include <algorithm>

namespace sculpt::search {

using spacegen::CandidateBase;
using spacegen::InstanceRef;
using spacegen::Status;

std::vector<std::unique_ptr<CandidateBase>> valid_children(const CandidateBase& node,
                                                           const InstanceRef& choice,
                                                           std::size_t* propagations) {
  std::vector<std::unique_ptr<CandidateBase>> children;
  for (std::uint32_t value : node.domain(choice)) {
    auto child = node.clone();
    if (propagations != nullptr) ++*propagations;
    if (child->restrict(choice, {value}) == Status::Ok) children.push_back(std::move(child));
  }
  return children;
}

Descent random_descent(const CandidateBase& from, std::mt19937_64& rng,
                       const DecisionOrder* order) {
  Descent descent;
  auto node = from.clone();
  while (std::optional<InstanceRef> choice =
             order != nullptr ? order->next(*node) : node->first_open_instance()) {
    std::vector<std::uint32_t> values = node->domain(*choice);
    std::shuffle(values.begin(), values.end(), rng);
    std::unique_ptr<CandidateBase> next;
    for (std::uint32_t value : values) {
      auto child = node->clone();
      ++descent.propagations;
      if (child->restrict(*choice, {value}) == Status::Ok) {
        descent.actions.push_back(node->make_action(*choice, {value}));
        next = std::move(child);
        break;
      }
      descent.dead_end = child->conflict();
    }
    if (!next) return descent;
    node = std::move(next);
  }
  descent.dead_end.reset();
  descent.candidate = std::move(node);
  return descent;
}

Replay replay_what_applies(const CandidateBase& from, std::span<const spacegen::Action> actions) {
  Replay replay;
  replay.candidate = from.clone();
  for (const spacegen::Action& action : actions) {
    std::string unresolved;
    const auto resolved = replay.candidate->resolve(action, &unresolved);
    if (!resolved || !replay.candidate->is_live(resolved->first)) {
      ++replay.absent;
      continue;
    }
    // A refused restriction leaves its candidate in conflict: restrict a copy.
    std::unique_ptr<CandidateBase> next = replay.candidate->clone();
    if (next->restrict(resolved->first, resolved->second) == Status::Conflict) {
      ++replay.refused;
      continue;
    }
    replay.candidate = std::move(next);
    ++replay.applied;
  }
  return replay;
}

}  // namespace sculpt::search
