#include "search/algorithms/random_search.h"

namespace sculpt::search {

Proposal RandomSearch::propose(SearchThread& thread) {
  thread.pause_while_measuring();
  Proposal p;
  p.candidate = thread.random_descent(root_);
  if (!p.candidate) return p;  // a dead end
  p.bound_ns = thread.bound(*p.candidate);
  if (!(p.bound_ns < thread.cut())) {
    p.candidate.reset();
    p.kind = Proposal::Kind::pruned;
    return p;
  }
  p.kind = Proposal::Kind::candidate;
  return p;
}

}  // namespace sculpt::search
