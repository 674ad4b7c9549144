#pragma once
// The baselines every claim of the tree search is measured against: uniform random descents,
// and depth-first branch-and-bound that takes children in bound order.
#include <memory>
#include <mutex>
#include <vector>

#include "search/algorithm.h"

namespace sculpt::search {

/// Uniform random descents from the root in the search's decision order; a leaf whose bound is
/// not below the cut is dropped (pruned) rather than measured.
class RandomSearch final : public Algorithm {
 public:
  explicit RandomSearch(const spacegen::CandidateBase& root) : root_(root) {}
  std::string_view name() const override { return "random"; }
  Proposal propose(SearchThread& thread) override;
  void observe(const Proposal&, std::optional<double>) override {}

 private:
  const spacegen::CandidateBase& root_;
};

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
