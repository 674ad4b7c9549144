#include "search/algorithms/move_statistics.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "support/check.h"
#include "support/hash.h"

namespace sculpt::search {

using spacegen::CandidateBase;
using spacegen::InstanceRef;

namespace {

/// Increasing times, at most `k`: inserts `t` and drops the largest beyond k.
void keep_best(std::vector<double>& times, double t, std::size_t k) {
  times.insert(std::upper_bound(times.begin(), times.end(), t), t);
  if (times.size() > k) times.pop_back();
}

}  // namespace

std::uint64_t move_key(const InstanceRef& instance, std::uint32_t value) {
  std::uint64_t h = support::mix64(instance.choice + 1);
  for (spacegen::ObjectId o : instance.objects) h = support::mix64(h ^ (o + 0x9e3779b97f4a7c15ULL));
  return support::mix64(h ^ value);
}

std::vector<std::uint64_t> moves_of(const CandidateBase& candidate) {
  std::vector<std::uint64_t> moves;
  for (const InstanceRef& instance : candidate.live_instances()) {
    if (candidate.table().choices[instance.choice].kind == spacegen::ChoiceKind::Counter) continue;
    const std::vector<std::uint32_t> value = candidate.domain(instance);
    if (value.size() == 1) moves.push_back(move_key(instance, value[0]));
  }
  return moves;
}

double MoveStatistics::weight(const InstanceRef& choice, std::uint32_t value) const {
  std::shared_lock lock(mutex_);
  if (measured_ < topk_) return 1;  // no best times to tell moves apart yet
  const double threshold = best_.back();
  const double base = static_cast<double>(topk_) / static_cast<double>(measured_);
  double held = 0, good = 0;
  if (const auto it = stats_.find(move_key(choice, value)); it != stats_.end()) {
    held = it->second.held;
    good = static_cast<double>(
        std::upper_bound(it->second.best.begin(), it->second.best.end(), threshold) -
        it->second.best.begin());
  }
  constexpr double kPrior = 2;  // candidates at the base rate, for a move seldom measured
  const double share = (good + kPrior * base) / (held + kPrior);
  return std::pow(share / base, exponent_);
}

void MoveStatistics::record(const std::vector<std::uint64_t>& moves,
                            const std::vector<std::uint64_t>& features, double time_ns) {
  std::unique_lock lock(mutex_);
  ++measured_;
  keep_best(best_, time_ns, topk_);
  for (std::uint64_t m : moves) {
    Stats& s = stats_[m];
    ++s.held;
    keep_best(s.best, time_ns, topk_);
  }
  if (features_) model_.add(features, time_ns);
}

void MoveStatistics::evaluated(std::uint64_t hash, std::optional<double> time_ns) {
  std::unique_lock lock(mutex_);
  evaluated_.try_emplace(hash, time_ns);
}

bool MoveStatistics::was_evaluated(std::uint64_t hash, std::optional<double>* time_ns) const {
  std::shared_lock lock(mutex_);
  const auto it = evaluated_.find(hash);
  if (it == evaluated_.end()) return false;
  *time_ns = it->second;
  return true;
}

double MoveStatistics::predict(const std::vector<std::uint64_t>& features) const {
  std::shared_lock lock(mutex_);
  SCULPT_CHECK(features_) << "a model asked that was not learnt";
  return model_.predict(features);
}

std::size_t MoveStatistics::measured() const {
  std::shared_lock lock(mutex_);
  return measured_;
}

}  // namespace sculpt::search
