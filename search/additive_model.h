#pragma once
// The search's own cost model, learnt as it measures: a candidate's log time as a constant plus
// one weight per move it holds (a choice instance with its value), fitted to every candidate
// measured by ridge regression. Where the bound ties (on the CPU, most of a matmul's space sits
// at the fp32 floor), it is what tells a rollout that repeats the slow choices of earlier
// candidates from one that holds the choices of fast ones; unlike the move statistics, which see
// only the best few times, it learns from every time how much each value costs. It is additive:
// it learns what a value is worth on average, not which values are worth more together.
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace sculpt::search {

class AdditiveModel {
 public:
  /// A sweep after every sample while the samples hold at most this many moves (a sweep then
  /// takes a millisecond or so: a CPU search's few hundred candidates of some 2,000 moves each).
  static constexpr std::size_t kEverySample = std::size_t{1} << 20;

  /// `ridge`: how many samples' worth of evidence pulls a weight back to 0 (a move held by few
  /// candidates keeps a small weight). `every_sample`: see kEverySample.
  explicit AdditiveModel(double ridge = 1, std::size_t every_sample = kEverySample)
      : ridge_(ridge), every_sample_(every_sample) {}

  /// A measured candidate: its moves and its time. The weights are refitted after it while the
  /// samples hold at most `every_sample` moves; beyond, once the samples added since the last
  /// fit hold a hundredth of all moves, so that fitting costs about a hundred times the
  /// samples' moves in all, where a fit per sample cost the square of their number (a GPU
  /// search's 8,000 samples of 2,200 moves: 117 s of sweeps, bench_search).
  void add(std::span<const std::uint64_t> moves, double time_ns);
  /// The predicted log time of a candidate holding `moves` (moves never measured weigh 0).
  double predict(std::span<const std::uint64_t> moves) const;
  std::size_t samples() const { return residual_.size(); }

 private:
  /// Sweeps of coordinate descent from the current weights: they move little from one fit to
  /// the next, so one sweep keeps them fitted (a sweep costs the moves of every sample: some
  /// 2,000 per candidate of matmul).
  void fit(int sweeps);
  static constexpr int kSweeps = 1;
  static constexpr std::size_t kGrowth = 100;

  double ridge_;
  std::size_t every_sample_;
  std::size_t moves_ = 0;     // held by all samples
  std::size_t unfitted_ = 0;  // held by the samples added since the last fit
  double mean_ = 0;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;  // move -> feature
  std::vector<double> weight_;                              // by feature
  std::vector<std::vector<std::uint32_t>> holders_;         // samples holding each feature
  std::vector<double> residual_;  // by sample: log time - mean - the sample's weights
};

}  // namespace sculpt::search
