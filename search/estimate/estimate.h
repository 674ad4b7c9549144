#pragma once
// Estimates of the size of a space: the number of fully specified candidates below a
// candidate, without enumerating them (the paper's section 5.3). The tree is the one a search
// walks: at each node the first open choice is fixed, the children are its values whose
// restriction propagates without conflict, the leaves are the fully specified candidates, and a
// node without valid children is a dead end (propagation had not seen the conflict) that counts
// no leaf. Both estimators are unbiased; their intervals come from repeating them.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <span>

#include "spacegen/runtime/candidate.h"

namespace sculpt::search {

/// The mean of independent samples with its standard error and a 95% confidence interval from
/// the normal approximation (mean ± 1.96 standard errors, the lower end clamped at 0 since the
/// samples are counts). The samples of both estimators are heavy-tailed, so on small sample
/// counts the interval is optimistic: `largest_share` tells when.
struct MeanEstimate {
  std::size_t samples = 0;
  double mean = 0;
  double standard_error = 0;
  double low = 0;
  double high = 0;
  /// The largest sample's part of the sum of all: about 1/samples when they are alike, near 1
  /// when one sample makes the mean (then the mean still moves by orders of magnitude with more
  /// samples, and the interval, which assumes a normal mean, does not cover that).
  double largest_share = 0;
};
MeanEstimate mean_estimate(std::span<const double> samples);

/// The same, one sample at a time, keeping none of them (Welford's update: the samples span
/// many orders of magnitude).
class MeanAccumulator {
 public:
  void add(double sample);
  MeanEstimate estimate() const;

 private:
  std::size_t count_ = 0;
  double mean_ = 0;
  double squares_ = 0;
  double largest_ = 0;
};

/// A proportion with its 95% Wilson score interval, which unlike the normal approximation stays
/// inside [0, 1] and is not empty when no or every sample hits (dead-end rates are often ~0).
struct Proportion {
  std::size_t hits = 0;
  std::size_t samples = 0;
  double rate = 0;
  double low = 0;
  double high = 0;
};
Proportion proportion(std::size_t hits, std::size_t samples);

/// How an estimator draws its samples: in parallel, each from its own generator seeded by
/// (seed, sample number), so that the estimate depends on the seed alone, not on the threads.
struct Sampling {
  std::uint64_t seed = 1;
  /// Threads drawing samples; 0: one per hardware thread.
  std::size_t threads = 0;
  /// Called after each sample with the number of samples done, one call at a time, from the
  /// sampling threads.
  std::function<void(std::size_t done)> on_sample;
  /// Asked before each sample and, in Chen's probes, before each batch of expansions (up to 256
  /// nodes of one depth, expanded in parallel): once it answers true (a Ctrl-C), no sample
  /// starts and the probes under way are dropped. The estimate is then that of the samples
  /// finished (its `samples`; maybe none).
  std::function<bool()> stop_requested;
};

/// One descent of Knuth's method (Knuth 1975, "Estimating the efficiency of backtrack
/// programs"): from the root, pick a valid child uniformly until a leaf or a dead end.
struct KnuthSample {
  /// The product of the numbers of valid children along the path; 0 at a dead end.
  double leaves = 0;
  /// Decisions taken before the leaf or the dead end.
  std::size_t depth = 0;
  bool dead_end = false;
  /// Restrictions propagated (every value of every choice on the path is tried).
  std::size_t propagations = 0;
};
KnuthSample knuth_sample(const spacegen::CandidateBase& root, std::mt19937_64& rng);

struct KnuthEstimate {
  MeanEstimate leaves;
  /// Descents that end at a dead end: the probability that a uniform random descent (the
  /// paper's "Dead Ends" column, and search/session/descent.h's random_descent) finds no candidate.
  Proportion dead_ends;
  double mean_depth = 0;
  std::size_t propagations = 0;
};
/// `samples` descents (at least 1) from `root`, fewer if a stop is requested.
KnuthEstimate knuth_estimate(const spacegen::CandidateBase& root, std::size_t samples,
                             const Sampling& sampling = {});

/// One descent of Knuth's method that also weighs the node it passes at `depth` decisions from the
/// root (the paper's Table 3: how much of a tree a cut on its first levels removes): that node
/// stands for `nodes` nodes of its depth (the product of the numbers of valid children above it;
/// 0 when the descent ended before that depth), `kept` says whether `keep` holds for it, and the
/// descent goes on to estimate the leaves below it.
struct CutSample {
  double nodes = 0;
  bool kept = false;
  KnuthSample descent;
};
CutSample cut_sample(const spacegen::CandidateBase& root, std::size_t depth,
                     const std::function<bool(const spacegen::CandidateBase&)>& keep,
                     std::mt19937_64& rng);

struct CutEstimate {
  /// Nodes at the depth, and those `keep` holds for.
  MeanEstimate nodes;
  MeanEstimate kept_nodes;
  /// Fully specified candidates, and those below a kept node at the depth (what a search that
  /// cuts there still has to explore).
  MeanEstimate leaves;
  MeanEstimate kept_leaves;
};
/// `samples` such descents (at least 1) from `root`, fewer if a stop is requested. `keep` is
/// called from the sampling threads at once.
CutEstimate cut_estimate(const spacegen::CandidateBase& root, std::size_t depth,
                         const std::function<bool(const spacegen::CandidateBase&)>& keep,
                         std::size_t samples, const Sampling& sampling = {});

/// One probe of Chen's heuristic sampling (see estimate.cpp), over strata keyed by the
/// lexicographic pair (depth, open choices left), as in the paper. The strata of one depth are
/// expanded in parallel (TBB, in the caller's arena); the probe is the same on any number of
/// threads.
struct ChenProbe {
  /// The sum of the weights of the leaves reached.
  double leaves = 0;
  /// Nodes whose children were generated (one per stratum met).
  std::size_t expanded = 0;
  std::size_t propagations = 0;
  /// False when `stop_requested` ended the probe before its last stratum: it estimates nothing.
  bool finished = true;
};
ChenProbe chen_probe(const spacegen::CandidateBase& root, std::mt19937_64& rng,
                     const std::function<bool()>& stop_requested = {});

struct ChenEstimate {
  MeanEstimate leaves;
  double mean_expanded = 0;
  std::size_t propagations = 0;
};
/// `probes` probes (at least 1) from `root`, fewer if a stop is requested.
ChenEstimate chen_estimate(const spacegen::CandidateBase& root, std::size_t probes,
                           const Sampling& sampling = {});

}  // namespace sculpt::search
