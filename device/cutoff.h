#pragma once
// How long a search still wants a candidate timed: `factor` times the best time so far. Shared
// by the candidates of one search on one problem, read when a candidate's timing starts and
// lowered when one ends, so that each candidate is cut against every time measured before it,
// not only those its submitter had seen.
#include <atomic>
#include <chrono>
#include <limits>
#include <optional>

#include "device/evaluator.h"

namespace sculpt::device {

/// A cutoff's value when a candidate's timing starts, and the best time it is a multiple of.
struct CutoffSnapshot {
  std::optional<std::chrono::nanoseconds> cutoff{};
  std::optional<std::chrono::nanoseconds> best{};
};

class Cutoff {
 public:
  /// `factor` >= 1; `best_ns`: the best time before (a resumed search's).
  explicit Cutoff(double factor, std::optional<double> best_ns = std::nullopt);

  /// Nothing is cut before a first time is known, nor past ~292 years.
  std::optional<std::chrono::nanoseconds> get() const { return cutoff_of(best_ns_.load()); }
  /// An ok evaluation lowers the best time; others, and slower ones, change nothing.
  void observe(const Evaluation& evaluation);
  /// Lowers the best time to `best_ns` when it is lower: a time measured elsewhere (another
  /// process of a distributed search).
  void lower(double best_ns);

  double factor() const { return factor_; }
  /// Widens what leaves a queued candidate unmeasured to `slack` times the cutoff
  /// (Evaluator::submit), when more: a search whose bounds proved wrong for this device trusts
  /// them only that far (search::SearchContext::slack).
  void widen(double slack);
  /// How far past the cutoff a queued candidate's bound must be for it to go unmeasured.
  double slack() const { return slack_.load(); }
  /// The best time so far; nothing before the first.
  std::optional<double> best_ns() const;
  /// The cutoff and the best time, read together (get() and best_ns() of one best time).
  CutoffSnapshot snapshot() const;

 private:
  std::optional<std::chrono::nanoseconds> cutoff_of(double best_ns) const;

  double factor_;
  std::atomic<double> best_ns_{std::numeric_limits<double>::infinity()};
  std::atomic<double> slack_{1};
};

}  // namespace sculpt::device
