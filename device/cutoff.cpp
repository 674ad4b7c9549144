#include "device/cutoff.h"

#include <algorithm>
#include <cmath>

#include "support/atomic_extremum.h"
#include "support/check.h"

namespace sculpt::device {

Cutoff::Cutoff(double factor, std::optional<double> best_ns) : factor_(factor) {
  SCULPT_CHECK(factor >= 1) << "cutoff factor " << factor;
  if (best_ns) best_ns_ = *best_ns;
}

std::optional<std::chrono::nanoseconds> Cutoff::cutoff_of(double best_ns) const {
  const double cut = factor_ * best_ns;
  // Infinite before the first time; past what nanoseconds hold (an enormous factor), it cuts
  // nothing either.
  if (!(cut < static_cast<double>(std::chrono::nanoseconds::max().count()))) return std::nullopt;
  return std::chrono::nanoseconds(std::max<std::int64_t>(std::llround(cut), 1));
}

void Cutoff::observe(const Evaluation& evaluation) {
  if (evaluation.check == Check::ok && evaluation.time_ns) lower(*evaluation.time_ns);
}

void Cutoff::lower(double best_ns) { support::lower_to(best_ns_, best_ns); }

void Cutoff::widen(double slack) { support::raise_to(slack_, slack); }

std::optional<double> Cutoff::best_ns() const {
  const double best = best_ns_.load();
  return std::isfinite(best) ? std::optional<double>(best) : std::nullopt;
}

CutoffSnapshot Cutoff::snapshot() const {
  const double best = best_ns_.load();
  CutoffSnapshot snapshot{.cutoff = cutoff_of(best)};
  // A best time of a fraction of a nanosecond (a stand-in device's) still counts: 1 ns.
  if (snapshot.cutoff) {
    snapshot.best = std::chrono::nanoseconds(std::max<std::int64_t>(std::llround(best), 1));
  }
  return snapshot;
}

}  // namespace sculpt::device
