#pragma once
// A baseline every claim of the tree search is measured against: uniform random descents
// (the other: branch_and_bound.h).

#include "search/session/algorithm.h"

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

}  // namespace sculpt::search
