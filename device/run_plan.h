#pragma once
// How many times a device runs a candidate, and how the outcome of those runs becomes an
// Evaluation: shared by every device, so that their times and checks mean the same thing.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device/evaluator.h"

namespace sculpt::device {

/// How many times to run a candidate and how long to wait for it.
struct RunPlan {
  /// Longest a single run may take; the candidate is killed after that.
  std::chrono::nanoseconds run_timeout = std::chrono::seconds(10);
  /// Timed runs go on while their total stays under the budget, between min_runs and max_runs.
  std::chrono::nanoseconds budget = std::chrono::milliseconds(500);
  int min_runs = 3;
  int max_runs = 100;
  /// A candidate whose timed runs average over this stops being timed, min_runs or not: a
  /// search sets it to a multiple of its best time, past which precision buys nothing.
  std::optional<std::chrono::nanoseconds> cutoff{};
  /// With a cutoff, a run (the warm-up included) is killed as a timeout once it lasts this many
  /// cutoffs, but not before `kill_floor`: a candidate that slow cannot be the best, and letting
  /// it finish would cost its warm-up and a timed run (seconds each on a CPU).
  int cutoffs_to_kill = 10;
  std::chrono::nanoseconds kill_floor = std::chrono::milliseconds(100);

  /// This plan with `candidate_cutoff` in place of its own cutoff, when there is one.
  RunPlan with_cutoff(std::optional<std::chrono::nanoseconds> candidate_cutoff) const {
    RunPlan plan = *this;
    if (candidate_cutoff) plan.cutoff = candidate_cutoff;
    return plan;
  }
  /// How long one run may take before it is killed: run_timeout, or less with a cutoff.
  std::chrono::nanoseconds run_limit() const {
    if (!cutoff) return run_timeout;
    return std::min(run_timeout, std::max(kill_floor, *cutoff * cutoffs_to_kill));
  }
  /// Whether `runs` timed runs that took `total_ns` together average over the cutoff.
  bool over_cutoff(int runs, std::int64_t total_ns) const {
    return cutoff && runs > 0 && total_ns > runs * cutoff->count();
  }
  /// Whether another timed run follows `runs` timed runs that took `total_ns` together.
  bool wants_another(int runs, std::int64_t total_ns) const {
    return within_plan(runs, total_ns) && !over_cutoff(runs, total_ns);
  }
  /// Whether the cutoff, and only the cutoff, stopped the timing after these runs.
  bool cut_short(int runs, std::int64_t total_ns) const {
    return within_plan(runs, total_ns) && over_cutoff(runs, total_ns);
  }

  /// Checks that the counts make sense (a programming error otherwise).
  void validate() const;

 private:
  bool within_plan(int runs, std::int64_t total_ns) const {
    return runs < max_runs && (runs < min_runs || total_ns < budget.count());
  }
};

/// What running a candidate gave, before its results are compared with the reference.
struct RunOutcome {
  /// ok (the warm-up results are readable), fault, timeout, or compile_error when the code
  /// does not load or lacks its entry point.
  Check check = Check::ok;
  /// Durations of the timed runs, in nanoseconds.
  std::vector<std::int64_t> run_ns{};
  std::string message{};
  /// A timeout at the cutoff's run limit, under the plan's run_timeout.
  bool cut_short = false;
  /// Of an ok outcome: the first result parameter the warm-up run left different from the
  /// reference (ProblemData::first_mismatch), compared where the results are.
  std::optional<std::string> mismatch{};
};

/// The timeout of something killed during `phase` after `limit` ("loading the compiled object
/// took longer than 10000 ms; killed").
RunOutcome killed_after(const std::string& phase, std::chrono::nanoseconds limit);

/// The outcome of a run killed during `phase` at `plan`'s run limit: a timeout that says so ("the
/// warm-up run took longer than 10000 ms; killed"), naming the cutoff when that set the limit
/// (then it is cut short).
RunOutcome killed_at_run_limit(const std::string& phase, const RunPlan& plan);

/// The evaluation of an outcome of `plan`: any check but ok is returned as it is; an ok outcome
/// gets the median and spread of its runs (and whether the cutoff stopped them), then becomes
/// `wrong` (keeping its time) when it has a mismatch.
Evaluation evaluation_of(RunOutcome outcome, const RunPlan& plan);

}  // namespace sculpt::device
