// MCTS's opening (mcts.h): until a first time is measured, each proposal is the lowest bound of
// several rollouts from the root.
#include <limits>

#include "search/algorithms/least_walk.h"
#include "search/algorithms/mcts_nodes.h"

namespace sculpt::search {

std::optional<Proposal> Mcts::opening(SearchThread& thread) {
  {
    std::lock_guard lock(mutex_);
    if (options_.opening.value_or(1) <= 1 || measured_ > 0) return {};
  }
  const double bound_ns = thread.bound(*root_candidate_);
  LeastWalk lowest;
  for (int i = 0; i < *options_.opening; ++i) {
    Proposal p = roll_out(thread, root_candidate_->clone(), bound_ns, 0).proposal;
    const double bound = p.candidate ? p.bound_ns : std::numeric_limits<double>::infinity();
    lowest.offer(std::move(p), bound);
  }
  if (!lowest.found()) return {};
  return noted(lowest.take(), std::make_shared<Memo>());
}

}  // namespace sculpt::search
