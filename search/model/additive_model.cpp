#include "search/model/additive_model.h"

#include <cmath>

namespace sculpt::search {

void AdditiveModel::add(std::span<const std::uint64_t> features, double time_ns) {
  const auto sample = static_cast<std::uint32_t>(residual_.size());
  double predicted = mean_;
  for (std::uint64_t key : features) {
    const auto [it, added] = index_.try_emplace(key, static_cast<std::uint32_t>(weight_.size()));
    if (added) {
      weight_.push_back(0);
      holders_.emplace_back();
    }
    holders_[it->second].push_back(sample);
    predicted += weight_[it->second];
  }
  residual_.push_back(std::log(time_ns) - predicted);
  features_ += features.size();
  unfitted_ += features.size();
  if (features_ <= every_sample_ || unfitted_ * kGrowth >= features_) {
    fit(kSweeps);
    unfitted_ = 0;
  }
}

double AdditiveModel::predict(std::span<const std::uint64_t> features) const {
  double predicted = mean_;
  for (std::uint64_t key : features) {
    if (const auto it = index_.find(key); it != index_.end()) predicted += weight_[it->second];
  }
  return predicted;
}

void AdditiveModel::fit(int sweeps) {
  const double n = static_cast<double>(residual_.size());
  for (int s = 0; s < sweeps; ++s) {
    // The constant: the mean residual moves into it.
    double shift = 0;
    for (double r : residual_) shift += r;
    shift /= n;
    mean_ += shift;
    for (double& r : residual_) r -= shift;
    // Each weight in turn, the others fixed: the ridge solution of one coordinate.
    for (std::size_t f = 0; f < weight_.size(); ++f) {
      double sum = 0;
      for (std::uint32_t i : holders_[f]) sum += residual_[i] + weight_[f];
      const double updated = sum / (static_cast<double>(holders_[f].size()) + ridge_);
      const double delta = updated - weight_[f];
      if (delta == 0) continue;
      weight_[f] = updated;
      for (std::uint32_t i : holders_[f]) residual_[i] -= delta;
    }
  }
}

}  // namespace sculpt::search
