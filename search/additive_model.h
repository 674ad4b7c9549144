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
  /// `ridge`: how many samples' worth of evidence pulls a weight back to 0 (a move held by few
  /// candidates keeps a small weight).
  explicit AdditiveModel(double ridge = 1) : ridge_(ridge) {}

  /// A measured candidate: its moves and its time; the weights are refitted.
  void add(std::span<const std::uint64_t> moves, double time_ns);
  /// The predicted log time of a candidate holding `moves` (moves never measured weigh 0).
  double predict(std::span<const std::uint64_t> moves) const;
  std::size_t samples() const { return residual_.size(); }

 private:
  /// Sweeps of coordinate descent from the current weights: they move little from one sample
  /// to the next, so one sweep per sample keeps them fitted (a sweep costs the moves of every
  /// sample: some 2,000 per candidate of matmul).
  void fit(int sweeps);
  static constexpr int kSweeps = 1;

  double ridge_;
  double mean_ = 0;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;  // move -> feature
  std::vector<double> weight_;                              // by feature
  std::vector<std::vector<std::uint32_t>> holders_;         // samples holding each feature
  std::vector<double> residual_;  // by sample: log time - mean - the sample's weights
};

}  // namespace sculpt::search
