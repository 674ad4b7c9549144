#pragma once
// Of several walks (rollouts), the one to propose: MCTS's opening and screening keep one of many.
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "search/session/algorithm.h"

namespace sculpt::search {

/// Of several walks, the one of least score (a walk that found no candidate scores infinity; of
/// those, the last is kept, to say why none found one); the others count as set aside, with
/// those they had set aside themselves (a screened rollout among the opening's).
class LeastWalk {
 public:
  void offer(Proposal p, double score) {
    if (kept_ && !(score < score_ || (std::isinf(score) && std::isinf(score_)))) {
      set_aside_.count(p);
      return;
    }
    if (kept_) set_aside_.count(*kept_);
    kept_ = std::move(p);
    score_ = score;
  }
  bool found() const { return kept_ && kept_->candidate; }
  Proposal take() {
    kept_->set_aside.add(set_aside_);
    return std::move(*kept_);
  }

 private:
  std::optional<Proposal> kept_;
  double score_ = std::numeric_limits<double>::infinity();
  Proposal::Walks set_aside_;
};

}  // namespace sculpt::search
