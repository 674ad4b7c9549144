#include "search/algorithms/branch_and_bound.h"

#include <algorithm>

namespace sculpt::search {

BranchAndBound::BranchAndBound(const spacegen::CandidateBase& root, SearchThread& thread) {
  stack_.push_back({root.clone(), thread.bound(root)});
}

Proposal BranchAndBound::propose(SearchThread& thread) {
  // Nodes are expanded until a leaf below the cut turns up; a walk that only cuts or dies ends
  // too, so that the session keeps count and sees its budget.
  constexpr int kExpansionsPerProposal = 256;
  Proposal p;
  p.kind = Proposal::Kind::pruned;
  for (int expansions = 0; expansions < kExpansionsPerProposal; ++expansions) {
    Node node;
    const double cut = thread.cut();
    {
      std::lock_guard lock(mutex_);
      if (!cut_.empty() && cut > cut_below_) {
        for (Node& n : cut_) stack_.push_back(std::move(n));
        cut_.clear();
      }
      if (stack_.empty()) {
        p.kind = Proposal::Kind::exhausted;
        return p;
      }
      node = std::move(stack_.back());
      stack_.pop_back();
      if (!(node.bound_ns < cut)) {
        cut_below_ = cut_.empty() ? cut : std::min(cut_below_, cut);
        cut_.push_back(std::move(node));
        continue;
      }
    }
    thread.pause_while_measuring();
    const std::optional<spacegen::InstanceRef> choice = thread.next_decision(*node.candidate);
    if (!choice) {
      p.kind = Proposal::Kind::candidate;
      p.candidate = std::move(node.candidate);
      p.bound_ns = node.bound_ns;
      return p;
    }
    std::vector<Child> children;
    try {
      children = thread.children(*node.candidate, *choice);
    } catch (const WalkStopped&) {
      // The session stops: the node stays on the stack for a later run.
      std::lock_guard lock(mutex_);
      stack_.push_back(std::move(node));
      throw;
    }
    if (children.empty()) {
      p.kind = Proposal::Kind::dead_end;
      return p;
    }
    // Largest bound first, so that the smallest is on top; equal bounds keep value order.
    std::stable_sort(children.begin(), children.end(),
                     [](const Child& a, const Child& b) { return a.bound_ns > b.bound_ns; });
    std::lock_guard lock(mutex_);
    for (Child& c : children) stack_.push_back({std::move(c.candidate), c.bound_ns});
  }
  return p;
}

}  // namespace sculpt::search
