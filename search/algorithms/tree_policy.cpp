#include "search/algorithms/tree_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "support/check.h"

namespace sculpt::search {

double tag_threshold(const std::vector<EdgeStats>& edges, int topk) {
  std::vector<double> times;
  for (const EdgeStats& e : edges) times.insert(times.end(), e.top->begin(), e.top->end());
  if (times.empty()) return std::numeric_limits<double>::infinity();
  const std::size_t k = std::min(times.size(), static_cast<std::size_t>(topk)) - 1;
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(k), times.end());
  return times[k];
}

double tag_score(const EdgeStats& edge, double threshold, int visits, int live, double delta) {
  SCULPT_CHECK(edge.visits > 0) << "TAG scores visited edges";
  const auto successes = static_cast<double>(
      std::upper_bound(edge.top->begin(), edge.top->end(), threshold) - edge.top->begin());
  const double alpha = std::max(0.0, std::log(2.0 * static_cast<double>(visits) * live / delta));
  return (successes + alpha + std::sqrt(alpha * (2 * successes + alpha))) / edge.visits;
}

std::size_t pick_visited(const MctsOptions& options, const std::vector<EdgeStats>& edges,
                         double best_ns) {
  SCULPT_CHECK(!edges.empty()) << "a pick among no edges";
  int visits = 0;
  for (const EdgeStats& e : edges) visits += e.visits;
  std::vector<double> scores(edges.size());
  if (options.policy == MctsOptions::Policy::tag) {
    const double threshold = tag_threshold(edges, options.topk);
    for (std::size_t i = 0; i < edges.size(); ++i) {
      scores[i] =
          tag_score(edges[i], threshold, visits, static_cast<int>(edges.size()), options.delta);
    }
  } else {
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const EdgeStats& e = edges[i];
      const double value = std::isfinite(e.best_ns) ? best_ns / e.best_ns : 0;
      scores[i] = value + options.exploration * std::sqrt(std::log(visits) / e.visits);
    }
  }
  return static_cast<std::size_t>(std::max_element(scores.begin(), scores.end()) - scores.begin());
}

}  // namespace sculpt::search
