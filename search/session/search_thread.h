#pragma once
// The tools a searching thread walks the space with: the next decision (the search's decision
// order), a node's children with their lower bounds, the primary paper's rollout rule, and the
// cut (the best time measured so far), with the time spent in propagation and in the model
// counted for the session's statistics.
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "perf_model/model.h"
#include "search/session/candidate_evaluator.h"
#include "search/session/decision_order.h"
#include "spacegen/runtime/candidate.h"

namespace sculpt::search {

/// Nanoseconds summed over the searching threads.
struct SearchClocks {
  std::atomic<std::int64_t> propagation_ns{0};
  std::atomic<std::int64_t> model_ns{0};
  std::atomic<std::int64_t> codegen_ns{0};
  std::atomic<std::int64_t> paused_ns{0};
};

/// Once the bound proved wrong, how much above the best time, past its worst misjudgement, a
/// bound must be to cut: a candidate timed past 4 times the best is cut short anyway
/// (SessionOptions::cutoff), and a bound thousands of times above it (a grid of one thread
/// running 2^26 iterations) still spares the device seconds of a run it would kill.
inline constexpr double kMisjudgedMargin = 4;

/// What the threads of one search share.
struct SearchContext {
  SearchContext(const DecisionOrder& order, const perf_model::Model* model,
                const CandidateEvaluator& evaluator)
      : order(order), model(model), evaluator(evaluator) {}
  const DecisionOrder& order;
  /// Null: every bound is 0 (nothing is ever cut).
  const perf_model::Model* model = nullptr;
  const CandidateEvaluator& evaluator;
  /// The best time measured so far; infinity before the first.
  std::atomic<double> cut{std::numeric_limits<double>::infinity()};
  /// What the best time is multiplied by before a bound is compared with it: 1 until a
  /// candidate runs faster than its bound. The model then misjudges this device (a description
  /// measured on a busy machine, another GPU than the one described), so the cut takes the
  /// worst misjudgement seen (bound / time) times kMisjudgedMargin.
  std::atomic<double> slack{1};
  SearchClocks clocks;
  /// Asked at each step of a walk while a session runs: once it answers true (the budget spent,
  /// a stop requested), the walk under way is abandoned (WalkStopped), so that a search of a
  /// large space stops within a step, not at the end of its proposal. Called from every
  /// searching thread.
  std::function<bool()> stop{};
};

/// Thrown by a SearchThread's walks once SearchContext::stop answers true.
struct WalkStopped {};

/// A child of a node along its next decision.
struct Child {
  std::uint32_t value = 0;
  std::unique_ptr<spacegen::CandidateBase> candidate;
  double bound_ns = 0;
};

/// A preference among the values of a decision, learnt from measured times, that multiplies
/// the rollout rule's weights (MCTS's move statistics).
class ValuePreference {
 public:
  virtual ~ValuePreference() = default;
  /// A positive factor; 1 for no preference.
  virtual double weight(const spacegen::InstanceRef& choice, std::uint32_t value) const = 0;
};

class SearchThread {
 public:
  SearchThread(SearchContext& context, std::uint64_t seed) : context_(context), rng_(seed) {}

  /// While one lives, this thread's walks do not stop when the session asks: what an algorithm
  /// does on hearing of an evaluation (Algorithm::recall) must finish, or its tree would be
  /// left half built and the WalkStopped would escape the thread that collects evaluations.
  class Unstoppable {
   public:
    explicit Unstoppable(SearchThread& thread) : thread_(thread), was_(thread.stoppable_) {
      thread.stoppable_ = false;
    }
    ~Unstoppable() { thread_.stoppable_ = was_; }
    Unstoppable(const Unstoppable&) = delete;
    Unstoppable& operator=(const Unstoppable&) = delete;

   private:
    SearchThread& thread_;
    bool was_;
  };

  /// What a bound must be below to be worth evaluating: the best time measured so far, times
  /// the slack a wrong bound earned (SearchContext::slack).
  double cut() const {
    return context_.cut.load(std::memory_order_relaxed) *
           context_.slack.load(std::memory_order_relaxed);
  }
  std::mt19937_64& rng() { return rng_; }
  const DecisionOrder& order() const { return context_.order; }

  /// The next decision of `node` in the search's order; nothing when it is fully specified.
  std::optional<spacegen::InstanceRef> next_decision(const spacegen::CandidateBase& node);
  /// The lower bound of a candidate, partial or not (of the GPU space when there is a model).
  double bound(const spacegen::CandidateBase& candidate);
  /// The children of `node` along `choice` whose restriction propagates, with their bounds, in
  /// value order. Like every walk, throws WalkStopped once SearchContext::stop answers true.
  std::vector<Child> children(const spacegen::CandidateBase& node,
                              const spacegen::InstanceRef& choice);
  /// A random descent (uniform among valid values) in the search's order; null at a dead end.
  std::unique_ptr<spacegen::CandidateBase> random_descent(const spacegen::CandidateBase& from);
  /// One of `bounds`, those below the cut weighted by how far below it they are (the paper's
  /// rollout rule: max(1, 1000 (1 - bound/cut)), or, while the cut is infinite, by how far below
  /// the largest they are: 1 + 10 largest/bound), times `preference` when given (one factor per
  /// bound); nothing when none is below the cut.
  std::optional<std::size_t> pick_by_bound(std::span<const double> bounds,
                                           std::span<const double> preference = {});
  /// Descends from `node` (whose bound `*bound_ns` holds) to a fully specified candidate, each
  /// step taking a child by pick_by_bound and leaving its bound in `*bound_ns`; null when a step
  /// has no child below the cut (`*pruned` then says whether children existed but were all cut,
  /// rather than none being valid: a dead end).
  /// With a `preference`, each child's weight is also multiplied by its value's.
  std::unique_ptr<spacegen::CandidateBase> rollout(std::unique_ptr<spacegen::CandidateBase> node,
                                                   double* bound_ns, bool* pruned,
                                                   const ValuePreference* preference = nullptr);
  /// The actions that rebuild `candidate`, fully specified, from `root`: its values of the
  /// decisions a descent in the search's order takes.
  std::vector<spacegen::Action> actions_to(const spacegen::CandidateBase& candidate,
                                           const spacegen::CandidateBase& root);
  /// Waits while the device measures, when it asks searching threads to.
  void pause_while_measuring();

 private:
  /// Throws WalkStopped when the session asks walks to stop.
  void stop_if_asked() const;

  SearchContext& context_;
  std::mt19937_64 rng_;
  bool stoppable_ = true;
};

}  // namespace sculpt::search
