#pragma once
// MCTS's own types (mcts.h), shared by the files that implement it: mcts.cpp (the tree),
// mcts_opening.cpp, mcts_neighbours.cpp and mcts_screening.cpp (the other proposals).
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "search/algorithms/mcts.h"

namespace sculpt::search {

/// What a descent leaves in its proposal: the edges it passed, its candidate, its moves and, when
/// the search learns a model, its features.
struct Mcts::Memo {
  Path path;
  std::shared_ptr<const spacegen::CandidateBase> candidate;
  std::vector<std::uint64_t> moves;
  std::vector<std::uint64_t> features;
};

struct Mcts::Screened {
  Proposal proposal;
  std::optional<Memo> again;
  std::optional<double> again_ns;
};

/// One of the best candidates measured, with its decisions once a neighbour needed them.
struct Mcts::Best {
  double time_ns = 0;
  std::shared_ptr<const spacegen::CandidateBase> candidate;
  std::mutex mutex;
  std::vector<spacegen::Action> decisions;
};

struct Mcts::Node {
  /// Kept until the node is expanded: its children then hold what the search needs.
  std::unique_ptr<spacegen::CandidateBase> candidate;
  double bound_ns = 0;
  enum class State { fresh, expanding, expanded };
  State state = State::fresh;
  /// Nothing below it is left to propose: a dead end, a candidate proposed, or dead children.
  bool dead = false;
  /// The cut at which every child was found dead or cut: the node stays cut while the cut is
  /// at most this (the cut only decreases, unless the bound proves wrong and the cut widens).
  double cut_at = 0;
  /// The decision its edges take; nothing for a fully specified candidate.
  std::optional<spacegen::InstanceRef> decision;
  std::vector<Edge> edges;
};

struct Mcts::Edge {
  std::uint32_t value = 0;
  std::unique_ptr<Node> child;
  int visits = 0;
  /// The best times measured below it, increasing, at most topk (TAG).
  std::vector<double> top;
  double best_ns = std::numeric_limits<double>::infinity();
};

}  // namespace sculpt::search
