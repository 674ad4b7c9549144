// MCTS's neighbours of the best (mcts.h): a proposal that starts from one of the best candidates
// measured, one to three of its decisions dropped.
#include <algorithm>
#include <random>

#include "search/algorithms/mcts_nodes.h"
#include "search/session/descent.h"
#include "support/check.h"

namespace sculpt::search {

using spacegen::CandidateBase;

std::optional<Proposal> Mcts::neighbour(SearchThread& thread) {
  std::shared_ptr<Best> from;
  {
    std::lock_guard lock(mutex_);
    if (options_.local <= 0 || measured_ < static_cast<std::size_t>(options_.local_after))
      return {};
    if (std::uniform_real_distribution<double>(0, 1)(thread.rng()) >= options_.local) return {};
    // The best itself half of the time, else any of the best few.
    const bool fastest = std::uniform_int_distribution<int>(0, 1)(thread.rng()) == 0;
    from = best_[fastest ? 0
                         : std::uniform_int_distribution<std::size_t>(
                               0, best_.size() - 1)(thread.rng())];
  }
  std::vector<spacegen::Action> decisions;
  {
    std::lock_guard lock(from->mutex);
    if (from->decisions.empty()) {
      from->decisions = thread.actions_to(*from->candidate, *root_candidate_);
    }
    decisions = from->decisions;
  }
  if (decisions.empty()) return {};
  // Drop one to three decisions; the first dropped is kept off its old value.
  const std::size_t n = decisions.size();
  const std::size_t drops =
      std::min<std::size_t>(n, 1 + std::uniform_int_distribution<std::size_t>(0, 2)(thread.rng()));
  std::vector<bool> dropped(n, false);
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < drops;) {
    const std::size_t i = std::uniform_int_distribution<std::size_t>(0, n - 1)(thread.rng());
    if (dropped[i]) continue;
    dropped[i] = true;
    order.push_back(i);
    ++k;
  }
  thread.pause_while_measuring();
  std::vector<spacegen::Action> kept;
  for (std::size_t i = 0; i < n; ++i) {
    if (!dropped[i]) kept.push_back(decisions[i]);
  }
  // Decisions on objects that a dropped one created (a lowering) no longer name anything; a
  // subset of a candidate's decisions cannot conflict: propagation is sound.
  Replay replay = replay_what_applies(*root_candidate_, kept);
  SCULPT_CHECK(replay.refused == 0) << "a subset of a candidate's decisions conflicts";
  std::unique_ptr<CandidateBase> start = std::move(replay.candidate);
  std::string unresolved;
  if (const auto old = start->resolve(decisions[order[0]], &unresolved);
      old && start->is_live(old->first)) {
    std::vector<std::uint32_t> others = start->domain(old->first);
    std::erase_if(others, [&](std::uint32_t v) {
      return std::find(old->second.begin(), old->second.end(), v) != old->second.end();
    });
    if (!others.empty()) {
      std::unique_ptr<CandidateBase> moved = start->clone();
      if (moved->restrict(old->first, others) != spacegen::Status::Conflict) {
        start = std::move(moved);
      }
    }
  }
  const double bound_ns = thread.bound(*start);
  return roll_out(thread, std::move(start), bound_ns, std::make_shared<Memo>());
}

}  // namespace sculpt::search
