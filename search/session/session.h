#pragma once
// A search session: what every search algorithm shares. It owns the walk's context (decision
// order, bounds, the cut), the searching threads, the evaluations in flight on the evaluator,
// ids, the budget, a resumed search's history and the statistics; an algorithm (MCTS,
// branch-and-bound, random) only proposes candidates and hears their times.
//
// Threads: `threads` searching threads propose, generate code and submit while the device
// measures, keeping up to `in_flight` (2 threads + 2, or 2 per device queue + 2 where the evaluator
// has more queues than threads) evaluations queued so that no device waits for a candidate; the
// calling thread collects evaluations as they end (a slow compilation holds only its own place
// in flight) and numbers them as it collects them. With one thread it also does the searching,
// at fixed points (between collections, each of the oldest evaluation in flight), so that a seed
// fixes the whole search. A candidate is submitted only when its bound is below the best time
// collected so far (once a candidate runs faster than its bound, the model is wrong for this
// device: then below the best time times 4 times the worst bound / time seen), and a candidate
// already evaluated is never measured again (the algorithm hears its time again).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "perf_model/model.h"
#include "search/algorithms/mcts.h"
#include "search/model/features.h"
#include "search/session/algorithm.h"
#include "search/session/candidate_evaluator.h"
#include "search/session/decision_order.h"

namespace sculpt::search {

enum class AlgorithmKind { mcts, bb, random };
std::string_view to_string(AlgorithmKind kind);
/// The algorithm a name (`mcts`, `bb`, `random`) names; nothing for another.
std::optional<AlgorithmKind> algorithm_from_string(std::string_view name);

struct SessionOptions {
  AlgorithmKind algorithm = AlgorithmKind::mcts;
  MctsOptions mcts{};
  /// What MCTS's learnt model reads of a candidate (model/features.h), for screening (`screen`
  /// above 1, the CPU's default); not owned.
  const Features* features = nullptr;
  /// Choices decided first, in order (DecisionOrder::parse); absent: the default for the
  /// evaluator's device (DecisionOrder::standard).
  std::optional<std::string> order{};
  /// Evaluations in all, those recalled from a resumed log included.
  std::int64_t evals = 100;
  /// Wall-clock budget; absent: until `evals` candidates are evaluated.
  std::optional<std::chrono::duration<double>> budget{};
  std::uint64_t seed = 1;
  /// Searching threads, at most kMaxThreads: each holds a tree walk's candidates, and past the
  /// machine's cores more generate no more code.
  int threads = 1;
  static constexpr int kMaxThreads = 256;
  /// Evaluations submitted and not yet collected; 0: 2 threads + 2 (the collecting thread may
  /// lag on a loaded machine while the device works through what it holds), or 2 per device
  /// queue (CandidateEvaluator::queues) + 2 when that is more: one measured and one compiled
  /// on each.
  int in_flight = 0;
  /// A candidate stops being timed once its runs average over this many times the best time
  /// measured before it (device::Cutoff): 0 or at least 1; 0: each is timed as the device plans.
  double cutoff = 4;
  /// Candidates to evaluate first, in order, before the algorithm proposes any: other searches'
  /// best (`sculpt search --start-from`), each the actions of a logged candidate replayed on
  /// this space as far as they apply (replay_what_applies: another problem's sizes may refuse a
  /// tile size) and completed by a rollout. The algorithm hears each one's time as a recalled
  /// candidate's (MCTS: its tree path, its move statistics, its best candidates for neighbours).
  std::vector<std::vector<spacegen::Action>> starts{};
  /// Asked while waiting for the device: once it answers true (a Ctrl-C), the search ends as if
  /// its budget had run out. Called from several threads.
  std::function<bool()> stop_requested{};
};

/// One candidate as the search evaluated it.
struct Evaluated {
  std::int64_t id = 0;
  std::vector<spacegen::Action> actions;
  device::KernelCode code;
  /// Its lower bound; none without a model.
  std::optional<double> bound_ns;
  device::Evaluation evaluation;
  /// One of SessionOptions::starts, not the algorithm's.
  bool start = false;
  double t = 0;  // seconds since the session started
};

struct SessionStats {
  std::string algorithm;
  int threads = 1;
  std::int64_t evaluated = 0;
  /// Walks the algorithm made (each a descent to a candidate, a dead end or a cut).
  std::int64_t rollouts = 0;
  std::int64_t dead_ends = 0;
  /// Walks that found nothing below the cut, leaves whose bound reached it among them, and
  /// queued candidates the device left unmeasured, their bound past its cutoff by then
  /// (device::PastTheCutoff).
  std::int64_t pruned = 0;
  /// Candidates found again after they were evaluated, which were not measured again.
  std::int64_t repeats = 0;
  /// Submitted but not run: still waiting when the budget ran out (or a stop was requested).
  std::int64_t abandoned = 0;
  /// Evaluated, but timed less than the device planned: slower than the cutoff; of those, the
  /// runs killed far past it.
  std::int64_t cut_short = 0;
  std::int64_t killed = 0;
  /// Of those killed, the ones a sample of their grid put past the cutoff before any full run
  /// (device::RunPlan::sample).
  std::int64_t sampled = 0;
  /// A candidate measured faster than its bound (by more than 2%, a measurement's noise): proof
  /// that the model misjudges the device.
  struct Violation {
    std::int64_t id = 0;
    double time_ns = 0;
    double bound_ns = 0;
  };
  /// Evaluations measured faster than their bound, a resumed log's included; from the first on,
  /// the bound cuts only past the best time times `slack` (SearchContext::slack). The first is
  /// named in the summary.
  std::int64_t bound_violations = 0;
  std::optional<Violation> first_violation;
  double slack = 1;
  /// The algorithm had nothing left to propose: every candidate was evaluated or cut.
  bool exhausted = false;
  /// What ended the session: "evaluations" (as many as asked), "budget", "stop" (requested, a
  /// Ctrl-C) or "exhausted".
  std::string stopped_by;
  double wall_s = 0;
  /// Seconds summed over the searching threads: propagation (restrictions and scans for the
  /// next decision), the model's bounds, code generation, and paused while the device measured.
  double propagation_s = 0;
  double model_s = 0;
  double codegen_s = 0;
  double paused_s = 0;
  /// The device's: compiling (summed over its compilers) and measuring.
  double compile_s = 0;
  double measure_s = 0;
  /// Share of the wall time from the fifth evaluation collected (the first, in a shorter
  /// session) to the end during which the device measured nothing (averaged over its queues).
  double device_idle_share = 0;

  double evaluations_per_s() const { return wall_s > 0 ? evaluated / wall_s : 0; }
  double rollouts_per_s() const { return wall_s > 0 ? rollouts / wall_s : 0; }
  double dead_end_rate() const {
    return rollouts > 0 ? static_cast<double>(dead_ends) / static_cast<double>(rollouts) : 0;
  }
  /// A few lines for a person: rates, then where the time went.
  std::string summary() const;
  /// One JSON object, every field above and the rates (the event log's statistics line).
  std::string to_json() const;
};

class Session {
 public:
  /// `root`: of the GPU space when `model` or a device evaluates (a stand-in takes any space).
  /// Throws std::invalid_argument for a decision order the space does not have.
  Session(const spacegen::CandidateBase& root, CandidateEvaluator& evaluator,
          const perf_model::Model* model, SessionOptions options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// The decision order in use.
  const DecisionOrder& order() const { return order_; }

  /// An evaluation of an earlier session (a resumed log), in log order, before run(): the
  /// algorithm rebuilds its state from it, its time lowers the cut, its candidate is not
  /// measured again, and ids continue after it. False with a message when its actions do not
  /// replay to a fully specified candidate of this space.
  bool recall(std::int64_t id, const std::vector<spacegen::Action>& actions,
              std::optional<double> time_ns, std::string* error);

  /// Searches, calling `on_evaluated` for each evaluation in id order, on the calling thread:
  /// ids are given in the order evaluations are collected, which with several threads is the
  /// order they end, not the order they were submitted.
  /// When the budget runs out or a stop is requested, the evaluation being measured finishes
  /// and those still waiting are abandoned. A DeviceError from the device, or an exception from
  /// `on_evaluated`, stops the threads and propagates.
  SessionStats run(const std::function<void(Evaluated&&)>& on_evaluated);

 private:
  class Run;

  const spacegen::CandidateBase& root_;
  CandidateEvaluator& evaluator_;
  SessionOptions options_;
  DecisionOrder order_;
  std::unique_ptr<SearchContext> context_;
  std::unique_ptr<SearchThread> main_thread_;
  std::unique_ptr<Algorithm> algorithm_;
  /// Candidates evaluated (recalled or submitted), by hash, with their time once known.
  std::unordered_map<std::uint64_t, std::optional<double>> seen_;
  std::optional<std::int64_t> last_id_;
  std::int64_t recalled_ = 0;
  /// Bound violations seen so far, recalled ones included (under Run's lock while running).
  std::int64_t violations_ = 0;
  std::optional<SessionStats::Violation> first_violation_;

  /// Counts an evaluation measured faster than its bound and widens the cut past its error.
  void note_violation(std::int64_t id, double time_ns, double bound_ns);
};

}  // namespace sculpt::search
