#pragma once
// MCTS's move statistics (mcts.h): decisions commute, so what a value of a decision is worth can
// be learnt from every candidate that holds it, wherever in the tree it was found (the
// move-average sampling of general game playing, MAST). For each move (a choice instance and a
// value) they keep how many measured candidates held it and their best times; a rollout weighs
// a child by (p / base)^exponent, where p is the share of its value's candidates among the
// topk best times of all (with a prior of two candidates at the base rate), and base is topk over
// the candidates measured. With features, they also learn a model of the times measured
// (model/additive_model.h), fitted to every time (candidates found again included), which a
// search without screening would pay for nothing.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "search/model/additive_model.h"
#include "search/model/features.h"
#include "search/session/search_thread.h"

namespace sculpt::search {

/// A move: a choice instance and one of its values, as a key.
std::uint64_t move_key(const spacegen::InstanceRef& instance, std::uint32_t value);

/// The moves of a fully specified candidate: every decided instance with its value.
std::vector<std::uint64_t> moves_of(const spacegen::CandidateBase& candidate);

class MoveStatistics final : public ValuePreference {
 public:
  /// Keeps the `topk` best times of each move; learns a model of what `features` reads when
  /// there are features (not owned).
  MoveStatistics(std::size_t topk, double exponent, const Features* features)
      : topk_(topk), exponent_(exponent), features_(features) {}

  /// 1 until topk candidates are measured; then (p / base)^exponent, as above.
  double weight(const spacegen::InstanceRef& choice, std::uint32_t value) const override;

  /// A measured candidate: its moves and, when learning, its features.
  void record(const std::vector<std::uint64_t>& moves, const std::vector<std::uint64_t>& features,
              double time_ns);

  /// A candidate evaluated (its hash) and its time, if it checked ok: the session never
  /// measures it again.
  void evaluated(std::uint64_t hash, std::optional<double> time_ns);
  /// Whether the candidate of `hash` was evaluated, with its time in `*time_ns`.
  bool was_evaluated(std::uint64_t hash, std::optional<double>* time_ns) const;

  bool learns() const { return features_ != nullptr; }
  /// What the model reads of `candidate` when there is a model, nothing otherwise.
  std::vector<std::uint64_t> features(const spacegen::CandidateBase& candidate) const {
    return features_ ? features_->of(candidate) : std::vector<std::uint64_t>{};
  }
  /// The learnt model's log time for a candidate of `features`.
  double predict(const std::vector<std::uint64_t>& features) const;
  std::size_t measured() const;

 private:
  struct Stats {
    double held = 0;
    std::vector<double> best;
  };
  std::size_t topk_;
  double exponent_;
  const Features* features_;
  mutable std::shared_mutex mutex_;
  std::unordered_map<std::uint64_t, Stats> stats_;
  std::unordered_map<std::uint64_t, std::optional<double>> evaluated_;
  std::vector<double> best_;
  std::size_t measured_ = 0;
  AdditiveModel model_;
};

}  // namespace sculpt::search
