#include "search/estimate/estimate.h"

#include <spdlog/spdlog.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "search/session/descent.h"
#include "support/check.h"

namespace sculpt::search {

using spacegen::CandidateBase;
using spacegen::InstanceRef;

namespace {

constexpr double kZ95 = 1.959963984540054;  // two-sided 95% quantile of the standard normal

/// `count` samples, draw(rng) each (an optional: absent when a stop request cut the sample
/// short), passed to fold in sample order whatever thread drew them; those a stop request kept
/// from starting are absent too. Only the samples finished are reported to on_sample. They are
/// drawn a chunk at a time, so that memory does not grow with their number.
template <typename Draw, typename Fold>
void draw_samples(std::size_t count, const Sampling& sampling, Draw&& draw, Fold&& fold) {
  constexpr std::size_t kChunk = 4096;
  std::vector<decltype(draw(std::declval<std::mt19937_64&>()))> samples;
  std::mutex progress;
  std::size_t done = 0;
  auto stopped = [&] { return sampling.stop_requested && sampling.stop_requested(); };
  // More threads than the machine has are drawn when asked for: TBB's default limit is the
  // hardware's (and it warns on the terminal).
  std::optional<tbb::global_control> limit;
  if (sampling.threads > 0) {
    limit.emplace(tbb::global_control::max_allowed_parallelism, sampling.threads);
  }
  const int threads =
      sampling.threads == 0 ? tbb::task_arena::automatic : static_cast<int>(sampling.threads);
  tbb::task_arena(threads).execute([&] {
    for (std::size_t first = 0; first < count && !stopped(); first += kChunk) {
      samples.clear();
      samples.resize(std::min(kChunk, count - first));
      // One sample per task: samples take milliseconds to seconds, and vary widely.
      tbb::parallel_for(std::size_t{0}, samples.size(), [&](std::size_t k) {
        if (stopped()) return;
        const std::size_t i = first + k;
        std::seed_seq seeds{static_cast<std::uint32_t>(sampling.seed),
                            static_cast<std::uint32_t>(sampling.seed >> 32),
                            static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i >> 32)};
        std::mt19937_64 rng(seeds);
        samples[k] = draw(rng);
        if (samples[k] && sampling.on_sample) {
          const std::lock_guard<std::mutex> lock(progress);
          sampling.on_sample(++done);
        }
      });
      for (const auto& sample : samples) {
        if (sample) fold(*sample);
      }
    }
  });
}

}  // namespace

void MeanAccumulator::add(double sample) {
  ++count_;
  const double delta = sample - mean_;
  mean_ += delta / static_cast<double>(count_);
  squares_ += delta * (sample - mean_);
  largest_ = count_ == 1 ? sample : std::max(largest_, sample);
}

MeanEstimate MeanAccumulator::estimate() const {
  MeanEstimate estimate;
  estimate.samples = count_;
  if (count_ == 0) return estimate;
  const double n = static_cast<double>(count_);
  estimate.mean = mean_;
  estimate.standard_error = count_ > 1 ? std::sqrt(squares_ / (n - 1) / n) : 0;
  estimate.low = std::max(0.0, mean_ - kZ95 * estimate.standard_error);
  estimate.high = mean_ + kZ95 * estimate.standard_error;
  if (mean_ > 0) estimate.largest_share = largest_ / (mean_ * n);
  return estimate;
}

MeanEstimate mean_estimate(std::span<const double> samples) {
  MeanAccumulator accumulator;
  for (const double sample : samples) accumulator.add(sample);
  return accumulator.estimate();
}

Proportion proportion(std::size_t hits, std::size_t samples) {
  SCULPT_CHECK(hits <= samples) << hits << " hits among " << samples << " samples";
  Proportion p{hits, samples, 0, 0, 1};
  if (samples == 0) return p;
  const double n = static_cast<double>(samples);
  const double z2 = kZ95 * kZ95;
  p.rate = static_cast<double>(hits) / n;
  const double center = (p.rate + z2 / (2 * n)) / (1 + z2 / n);
  const double half = kZ95 / (1 + z2 / n) * std::sqrt(p.rate * (1 - p.rate) / n + z2 / (4 * n * n));
  // At 0 or every hit the bound is exact; rounding would leave it a hair inside.
  p.low = hits == 0 ? 0.0 : std::max(0.0, center - half);
  p.high = hits == samples ? 1.0 : std::min(1.0, center + half);
  return p;
}

namespace {

/// Knuth's descent from `root`, calling `at_depth(node, weight)` on the node `depth` decisions
/// down (when the descent gets there), weight being the product of valid children above it.
template <typename AtDepth>
KnuthSample descend(const CandidateBase& root, std::mt19937_64& rng, std::size_t depth,
                    AtDepth&& at_depth) {
  KnuthSample sample;
  if (root.conflict()) {
    sample.dead_end = true;
    return sample;
  }
  sample.leaves = 1;
  std::unique_ptr<CandidateBase> node = root.clone();
  while (true) {
    if (sample.depth == depth) at_depth(*node, sample.leaves);
    const std::optional<InstanceRef> choice = node->first_open_instance();
    if (!choice) break;
    std::vector<std::unique_ptr<CandidateBase>> children =
        valid_children(*node, *choice, &sample.propagations);
    if (children.empty()) {
      sample.leaves = 0;
      sample.dead_end = true;
      return sample;
    }
    sample.leaves *= static_cast<double>(children.size());
    std::uniform_int_distribution<std::size_t> pick(0, children.size() - 1);
    node = std::move(children[pick(rng)]);
    ++sample.depth;
  }
  return sample;
}

}  // namespace

KnuthSample knuth_sample(const CandidateBase& root, std::mt19937_64& rng) {
  return descend(root, rng, std::numeric_limits<std::size_t>::max(),
                 [](const CandidateBase&, double) {});
}

CutSample cut_sample(const CandidateBase& root, std::size_t depth,
                     const std::function<bool(const CandidateBase&)>& keep, std::mt19937_64& rng) {
  CutSample sample;
  sample.descent = descend(root, rng, depth, [&](const CandidateBase& node, double weight) {
    sample.nodes = weight;
    sample.kept = keep(node);
  });
  return sample;
}

CutEstimate cut_estimate(const CandidateBase& root, std::size_t depth,
                         const std::function<bool(const CandidateBase&)>& keep, std::size_t samples,
                         const Sampling& sampling) {
  SCULPT_CHECK(samples > 0) << "an estimate needs at least one sample";
  MeanAccumulator nodes, kept_nodes, leaves, kept_leaves;
  draw_samples(
      samples, sampling,
      [&](std::mt19937_64& rng) { return std::optional(cut_sample(root, depth, keep, rng)); },
      [&](const CutSample& sample) {
        nodes.add(sample.nodes);
        kept_nodes.add(sample.kept ? sample.nodes : 0);
        leaves.add(sample.descent.leaves);
        kept_leaves.add(sample.kept ? sample.descent.leaves : 0);
      });
  return {nodes.estimate(), kept_nodes.estimate(), leaves.estimate(), kept_leaves.estimate()};
}

KnuthEstimate knuth_estimate(const CandidateBase& root, std::size_t samples,
                             const Sampling& sampling) {
  SCULPT_CHECK(samples > 0) << "Knuth's estimate needs at least one sample";
  KnuthEstimate estimate;
  MeanAccumulator leaves;
  std::size_t dead_ends = 0;
  double depths = 0;
  draw_samples(
      samples, sampling,
      [&](std::mt19937_64& rng) { return std::optional(knuth_sample(root, rng)); },
      [&](const KnuthSample& sample) {
        leaves.add(sample.leaves);
        dead_ends += sample.dead_end;
        depths += static_cast<double>(sample.depth);
        estimate.propagations += sample.propagations;
      });
  estimate.leaves = leaves.estimate();
  const std::size_t drawn = estimate.leaves.samples;
  estimate.dead_ends = proportion(dead_ends, drawn);
  estimate.mean_depth = drawn == 0 ? 0 : depths / static_cast<double>(drawn);
  spdlog::debug("knuth: {} samples, mean {:.3g}, standard error {:.3g}, {} dead ends", drawn,
                estimate.leaves.mean, estimate.leaves.standard_error, dead_ends);
  return estimate;
}

// Heuristic sampling, after P. C. Chen, "Heuristic sampling: a method for predicting the
// performance of tree searching programs", SIAM Journal on Computing 21(2), 1992. A stratifier
// sorts nodes into strata, classes of nodes expected to root similar subtrees, ordered so that
// a node's children always fall in later strata than the node. A probe keeps a queue of strata,
// each represented by one node and a weight (how many nodes of the tree it stands for); it
// starts with the root of weight 1 and repeatedly takes out the earliest stratum. A leaf adds
// its weight to the estimate; an inner node of weight w gives each valid child weight w and
// files it under the child's stratum: a new stratum takes the child as its representative,
// an existing one adds w to its weight and takes the child as its representative with
// probability w / (the new total weight). Each node of a stratum thus ends up representing it
// with probability proportional to the weight it brings, which keeps the estimate unbiased.
// With the depth alone as the stratifier a probe is Knuth's descent; with one stratum per node
// it counts exactly. The stratifier is the paper's: (depth, open choices left), depth first, so a
// stratum is taken out only once every node that can fall into it has been filed.
//
// Children fall one level deeper than their parent, so the strata of one depth are all known
// once the first is taken out: they are expanded in parallel, a batch at a time (which bounds
// the children held at once), then filed in the order the sequential algorithm files them, so a
// probe draws the same numbers and gives the same estimate on any number of threads.
ChenProbe chen_probe(const CandidateBase& root, std::mt19937_64& rng,
                     const std::function<bool()>& stop_requested) {
  ChenProbe probe;
  if (root.conflict()) return probe;
  struct Stratum {
    std::unique_ptr<CandidateBase> node;
    double weight = 0;
  };
  struct Expansion {
    std::vector<std::unique_ptr<CandidateBase>> children;
    std::size_t propagations = 0;
    bool leaf = false;
  };
  using Key = std::pair<std::size_t, std::size_t>;  // (depth, open choices left)
  constexpr std::size_t kBatch = 256;
  std::map<Key, Stratum> queue;
  queue.emplace(Key{0, root.open_instance_count()}, Stratum{root.clone(), 1});
  std::uniform_real_distribution<double> uniform(0, 1);
  std::vector<Stratum> level;
  std::vector<Expansion> expansions;
  while (!queue.empty()) {
    const std::size_t depth = queue.begin()->first.first;
    level.clear();
    while (!queue.empty() && queue.begin()->first.first == depth) {
      level.push_back(std::move(queue.begin()->second));
      queue.erase(queue.begin());
    }
    for (std::size_t first = 0; first < level.size(); first += kBatch) {
      const std::size_t count = std::min(kBatch, level.size() - first);
      // A probe takes up to minutes on large spaces: a stop request must not wait for it.
      if (stop_requested && stop_requested()) {
        probe.finished = false;
        return probe;
      }
      expansions.clear();
      expansions.resize(count);
      tbb::parallel_for(std::size_t{0}, count, [&](std::size_t i) {
        const CandidateBase& node = *level[first + i].node;
        const std::optional<InstanceRef> choice = node.first_open_instance();
        if (!choice) {
          expansions[i].leaf = true;
          return;
        }
        expansions[i].children = valid_children(node, *choice, &expansions[i].propagations);
      });
      for (std::size_t i = 0; i < count; ++i) {
        const double weight = level[first + i].weight;
        level[first + i].node.reset();
        Expansion& expansion = expansions[i];
        if (expansion.leaf) {
          probe.leaves += weight;
          continue;
        }
        ++probe.expanded;
        probe.propagations += expansion.propagations;
        for (std::unique_ptr<CandidateBase>& child : expansion.children) {
          const Key key{depth + 1, child->open_instance_count()};
          auto [it, inserted] = queue.try_emplace(key);
          Stratum& filed = it->second;
          filed.weight += weight;
          if (inserted || uniform(rng) < weight / filed.weight) filed.node = std::move(child);
        }
      }
    }
  }
  return probe;
}

ChenEstimate chen_estimate(const CandidateBase& root, std::size_t probes,
                           const Sampling& sampling) {
  SCULPT_CHECK(probes > 0) << "Chen's estimate needs at least one probe";
  ChenEstimate estimate;
  MeanAccumulator leaves;
  double expanded = 0;
  draw_samples(
      probes, sampling,
      [&](std::mt19937_64& rng) -> std::optional<ChenProbe> {
        ChenProbe probe = chen_probe(root, rng, sampling.stop_requested);
        if (!probe.finished) return std::nullopt;
        return probe;
      },
      [&](const ChenProbe& probe) {
        leaves.add(probe.leaves);
        expanded += static_cast<double>(probe.expanded);
        estimate.propagations += probe.propagations;
      });
  estimate.leaves = leaves.estimate();
  const std::size_t drawn = estimate.leaves.samples;
  estimate.mean_expanded = drawn == 0 ? 0 : expanded / static_cast<double>(drawn);
  spdlog::debug("chen: {} probes, mean {:.3g}, standard error {:.3g}", drawn, estimate.leaves.mean,
                estimate.leaves.standard_error);
  return estimate;
}

}  // namespace sculpt::search
