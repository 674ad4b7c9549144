#pragma once
// A baseline every claim of the tree search is measured against: depth-first branch-and-bound
// that takes children in bound order (the other: random_search.h).
#include <memory>
#include <mutex>
#include <vector>

#include "search/session/algorithm.h"

namespace sculpt::search {

/// Depth-first branch-and-bound: a node's children are visited in increasing bound order, and a
/// node whose bound is not below the cut is dropped with its whole subtree. With several
/// threads, each takes the next node from the shared stack and expands it on its own.
class BranchAndBound final : public Algorithm {
 public:
  BranchAndBound(const spacegen::CandidateBase& root, SearchThread& thread);
  std::string_view name() const override { return "bb"; }
  Proposal propose(SearchThread& thread) override;
  void observe(const Proposal&, std::optional<double>) override {}

 private:
  struct Node {
    std::unique_ptr<spacegen::CandidateBase> candidate;
    double bound_ns = 0;
  };
  std::mutex mutex_;
  std::vector<Node> stack_;  // the next node to visit on top
  /// Nodes dropped by the cut, kept in case the cut rises (the bound proves wrong and stops
  /// cutting): they then go back on the stack.
  std::vector<Node> cut_;
  double cut_below_ = 0;  // the lowest cut that dropped one of them
};

}  // namespace sculpt::search
