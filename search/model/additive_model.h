#pragma once
// The search's own cost model, learnt as it measures: a candidate's log time as a constant plus
// one weight per feature it holds (MCTS gives it the code's, code_features.h; a test, moves),
// fitted to every candidate measured by ridge regression. Where the bound ties (on the CPU, most
// of a matmul's space sits at the fp32 floor), it is what tells a rollout that repeats the slow
// loops of earlier candidates from one that holds the loops of fast ones; unlike the move
// statistics, which see only the best few times, it learns from every time how much each
// feature costs. It is additive: it learns what a feature is worth on average, not which
// features are worth more together.
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace sculpt::search {

class AdditiveModel {
 public:
  /// A sweep after every sample while the samples hold at most this many features (a sweep then
  /// takes a millisecond or so: a few hundred samples of some 2,000 features each).
  static constexpr std::size_t kEverySample = std::size_t{1} << 20;

  /// `ridge`: how many samples' worth of evidence pulls a weight back to 0 (a feature held by few
  /// candidates keeps a small weight). `every_sample`: see kEverySample.
  explicit AdditiveModel(double ridge = 1, std::size_t every_sample = kEverySample)
      : ridge_(ridge), every_sample_(every_sample) {}

  /// A measured candidate: its features and its time. The weights are refitted after it while
  /// the samples hold at most `every_sample` features; beyond, once the samples added since the
  /// last fit hold a hundredth of all features, so that fitting costs about a hundred times the
  /// samples' features in all, where a fit per sample cost the square of their number (8,000
  /// samples of 2,200 features, a GPU search's moves: 117 s of sweeps, bench_search).
  void add(std::span<const std::uint64_t> features, double time_ns);
  /// The predicted log time of a candidate holding `features` (those never measured weigh 0).
  double predict(std::span<const std::uint64_t> features) const;
  std::size_t samples() const { return residual_.size(); }

 private:
  /// Sweeps of coordinate descent from the current weights: they move little from one fit to
  /// the next, so one sweep keeps them fitted (a sweep costs the features of every sample).
  void fit(int sweeps);
  static constexpr int kSweeps = 1;
  static constexpr std::size_t kGrowth = 100;

  double ridge_;
  std::size_t every_sample_;
  std::size_t features_ = 0;  // held by all samples
  std::size_t unfitted_ = 0;  // held by the samples added since the last fit
  double mean_ = 0;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;  // key -> feature
  std::vector<double> weight_;                              // by feature
  std::vector<std::vector<std::uint32_t>> holders_;         // samples holding each feature
  std::vector<double> residual_;  // by sample: log time - mean - the sample's weights
};

}  // namespace sculpt::search
