#pragma once
// MCTS's tree policies (mcts.h): which of a node's live edges, all visited before, a descent
// takes. TAG (Threshold Ascent on Graph, the primary paper's default) takes the edge that
// maximises an upper confidence bound on its share of times under the node's threshold, the
// topk-th best time of its edges (Streeter and Smith's Threshold Ascent, with confidence
// `delta`); UCT the edge maximising best_time_of_all / best_time_of_edge + c sqrt(ln N / n).
#include <cstddef>
#include <vector>

#include "search/algorithms/mcts.h"

namespace sculpt::search {

/// What a policy knows of an edge: its visits, the best times measured below it (increasing, at
/// most topk) and the best of them.
struct EdgeStats {
  int visits = 0;
  const std::vector<double>* top = nullptr;
  double best_ns = 0;
};

/// TAG's threshold: the `topk`-th best of the edges' times (of all of them when fewer);
/// infinity when none is known.
double tag_threshold(const std::vector<EdgeStats>& edges, int topk);

/// TAG's score of `edge` among `live` edges visited `visits` times in all.
double tag_score(const EdgeStats& edge, double threshold, int visits, int live, double delta);

/// The index of the edge `options.policy` takes among `edges` (each visited at least once),
/// where `best_ns` is the best time recorded anywhere (UCT's reference).
std::size_t pick_visited(const MctsOptions& options, const std::vector<EdgeStats>& edges,
                         double best_ns);

}  // namespace sculpt::search
