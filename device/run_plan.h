#pragma once
// How many times a device runs a candidate, and how the outcome of those runs becomes an
// Evaluation: shared by every device, so that their times and checks mean the same thing.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "device/cutoff.h"
#include "device/evaluator.h"

namespace sculpt::device {

/// How many times to run a candidate and how long to wait for it. Copied as bytes to the
/// processes that run candidates: it stays trivially copyable.
struct RunPlan {
  /// Longest a single run may take; the candidate is killed after that.
  std::chrono::nanoseconds run_timeout = std::chrono::seconds(10);
  /// Timed runs go on while their total stays under the budget, between min_runs and max_runs.
  std::chrono::nanoseconds budget = std::chrono::milliseconds(500);
  int min_runs = 3;
  int max_runs = 100;
  /// A candidate whose timed runs are all over this stops being timed, min_runs or not, once
  /// kDecisive runs say so: a search sets it to a multiple of its best time, past which
  /// precision buys nothing.
  std::optional<std::chrono::nanoseconds> cutoff{};
  /// The best time the cutoff is a multiple of, when a search knows one. Only candidates near it
  /// need a precise time: timing stops once min_runs runs have a median over `precise_within`
  /// times it, or once kDecisive runs are all over twice that (a candidate 1.5 times the best
  /// gets min_runs runs, one at 3 times kDecisive runs, one within 1.2 times the whole plan). Its
  /// time is the median of the runs made, as always; the cutoff did not stop it (not cut short).
  /// `precise_within` 0: off.
  std::optional<std::chrono::nanoseconds> best{};
  double precise_within = 1.2;
  /// With a cutoff, a run (the warm-up included) is killed as a timeout once it lasts this many
  /// cutoffs, but not before `kill_floor`, nor before `restarts_to_kill` times `restart_cost`
  /// when the device says what a kill costs it: a candidate that slow cannot be the best, and
  /// letting it finish would cost its warm-up and a timed run (seconds each on a CPU), but
  /// waiting longer than a restart of what the kill takes down costs more than the restart.
  int cutoffs_to_kill = 10;
  std::chrono::nanoseconds kill_floor = std::chrono::milliseconds(100);
  /// With a cutoff, a warm-up run over this many cutoffs, and over `kill_floor` (past what
  /// starting threads and faulting pages in can add to it), is the candidate's only run: its
  /// time is the warm-up's, cut short. Such a candidate cannot become the best, and at large
  /// sizes on a CPU each timed run costs as much again (matmul 1024^3: candidates of 2-5 s ran
  /// their warm-up and two timed runs). The warm-up is no faster than the runs that would follow
  /// it, so the time errs high, and its results are checked as always.
  int cutoffs_after_warm_up = 2;
  /// The runs that stop the timing early: one run decides nothing. On a CPU, two OpenMP threads
  /// of a candidate could share a core while the other was busy, each parallel region then
  /// waiting a scheduler slice: 10% of the 4,800 candidates of sixteen
  /// searches of matmul 256x256x32 were timed at 3.5-3.8 or 7.5-7.8 ms on their one run, and
  /// 87 of the 422 whose code another candidate had too ran over 3 times slower than their twin
  /// (7.6 ms against 18.7 us), teaching the search that the fastest family was among the slowest.
  static constexpr int kDecisive = 2;
  /// What killing a run costs beyond the run itself, as last measured: the CUDA device's worker
  /// restart (a new context, the problem uploaded again). The CPU device's kill costs a child
  /// process, nothing to speak of: none.
  std::optional<std::chrono::nanoseconds> restart_cost{};
  int restarts_to_kill = 2;
  /// Sampled runs, where a candidate can run part of its grid (codegen::print_c's
  /// `<entry>_blocks`): with a cutoff, before the warm-up, the grid's first blocks, this share
  /// of its rounds of `threads` blocks and half of it, each twice, after a first run that warms
  /// them up. A line through the two sizes' faster times, extended to the whole grid, estimates
  /// a run. An estimate past the cutoff ends the evaluation there, a timeout cut short: on a CPU
  /// the warm-up of a candidate slower than the cutoff costs seconds at large sizes, four times
  /// the sample. 0: off.
  double sample = 1.0 / 16;

  /// The rounds of blocks a sample of a grid runs (`small` and twice as many, `large`), out of
  /// the grid's `rounds` of `threads` blocks.
  struct Sample {
    std::int64_t small = 0;
    std::int64_t large = 0;
    std::int64_t rounds = 0;
    int threads = 1;
    /// A run of the whole grid, from the times of the two sizes: each round beyond `large`
    /// costs what a round between the two did (what every call costs, starting OpenMP's
    /// threads or allocating a block's storage, is not multiplied), but no more than a round
    /// of the large sample did on average, nor less than half that: the difference of two
    /// short runs is noisy, and the estimate is to err low, never past what scaling the large
    /// sample up would give, nor far under it.
    double estimate_ns(double small_ns, double large_ns) const;
  };
  /// Of a grid of `grid` blocks that `threads` threads run in rounds; nothing when the sample
  /// would take over a quarter of the grid's rounds (no gain worth its runs), or when off.
  std::optional<Sample> sample_of(std::int64_t grid, int threads) const;
  /// Whether a sample's estimate of a run puts the candidate past the cutoff.
  bool sample_cuts(double estimate_ns) const {
    return cutoff && estimate_ns > static_cast<double>(cutoff->count());
  }

  /// This plan with `candidate_cutoff` in place of its own cutoff, when there is one.
  RunPlan with_cutoff(std::optional<std::chrono::nanoseconds> candidate_cutoff) const {
    RunPlan plan = *this;
    if (candidate_cutoff) plan.cutoff = candidate_cutoff;
    return plan;
  }
  /// This plan with a search's cutoff and best time in place of its own, when it has them.
  RunPlan with_cutoff(const CutoffSnapshot& snapshot) const {
    RunPlan plan = with_cutoff(snapshot.cutoff);
    if (snapshot.best) plan.best = snapshot.best;
    return plan;
  }
  /// What a kill costs, times restarts_to_kill; zero when the device did not say.
  std::chrono::nanoseconds restart_wait() const {
    return restart_cost ? *restart_cost * restarts_to_kill : std::chrono::nanoseconds(0);
  }
  /// How long one run may take before it is killed: run_timeout, or less with a cutoff.
  std::chrono::nanoseconds run_limit() const {
    if (!cutoff) return run_timeout;
    return std::min(run_timeout, std::max({kill_floor, *cutoff * cutoffs_to_kill, restart_wait()}));
  }
  /// Whether timed runs of these durations, at least kDecisive, are all over the cutoff.
  bool over_cutoff(std::span<const std::int64_t> run_ns) const {
    return cutoff && all_over(run_ns, static_cast<double>(cutoff->count()));
  }
  /// Whether timed runs of these durations show a candidate too far from the best time for a
  /// precise time to matter (`best`, `precise_within`).
  bool far_from_best(std::span<const std::int64_t> run_ns) const;
  /// Whether another timed run follows timed runs of these durations.
  bool wants_another(std::span<const std::int64_t> run_ns) const {
    return within_plan(run_ns) && !over_cutoff(run_ns) && !far_from_best(run_ns);
  }
  /// Whether a warm-up run this long is all the timing a candidate gets (cutoffs_after_warm_up).
  bool warm_up_decides(std::int64_t warm_up_ns) const {
    return cutoff && warm_up_ns > std::max(kill_floor, *cutoff * cutoffs_after_warm_up).count();
  }
  /// Whether the cutoff stopped the timing after runs of these durations, before the plan would
  /// have (the best time may have stopped them too: far from the best is not cut short by
  /// itself).
  bool cut_short(std::span<const std::int64_t> run_ns) const {
    return within_plan(run_ns) && over_cutoff(run_ns);
  }

  /// Checks that the counts make sense (a programming error otherwise).
  void validate() const;

 private:
  /// Whether there are at least kDecisive timed runs of these durations, all over `limit_ns`.
  static bool all_over(std::span<const std::int64_t> run_ns, double limit_ns) {
    return static_cast<int>(run_ns.size()) >= kDecisive &&
           static_cast<double>(*std::min_element(run_ns.begin(), run_ns.end())) > limit_ns;
  }
  /// Whether the plan itself (runs and budget) has room for another run after these.
  bool within_plan(std::span<const std::int64_t> run_ns) const {
    const auto runs = static_cast<int>(run_ns.size());
    const std::int64_t total_ns = std::accumulate(run_ns.begin(), run_ns.end(), std::int64_t{0});
    return runs < max_runs && (runs < min_runs || total_ns < budget.count());
  }
};

static_assert(std::is_trivially_copyable_v<RunPlan>, "RunPlan travels as bytes");

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
  /// Of an ok outcome, the warm-up run's duration, when the device says it.
  std::optional<std::int64_t> warm_up_ns{};
  /// What a sampled run estimated a run at (RunPlan::sample), of an ok outcome or of one the
  /// sample cut (cut_by_sample).
  std::optional<double> estimate_ns{};
};

/// The outcome of a candidate whose sample, `sample` ("32 and 64 of 1024 blocks in 6.1 and 12.5
/// ms"), put its estimate past `plan`'s cutoff: a timeout cut short, never run in full.
RunOutcome cut_by_sample(double estimate_ns, const std::string& sample, const RunPlan& plan);

/// The timeout of something killed during `phase` after `limit` ("loading the compiled object
/// took longer than 10000 ms; killed").
RunOutcome killed_after(const std::string& phase, std::chrono::nanoseconds limit);

/// The outcome of a run killed during `phase` at `plan`'s run limit: a timeout that says so ("the
/// warm-up run took longer than 10000 ms; killed"), naming the cutoff, or the restart that a kill
/// costs, when that set the limit (then it is cut short).
RunOutcome killed_at_run_limit(const std::string& phase, const RunPlan& plan);

/// The evaluation of an outcome of `plan`: any check but ok is returned as it is; an ok outcome
/// gets the median and spread of its runs (and whether the cutoff stopped them), or its warm-up's
/// time when that was its only run (RunPlan::warm_up_decides; no timed runs, cut short), then
/// becomes `wrong` (keeping its time) when it has a mismatch.
Evaluation evaluation_of(RunOutcome outcome, const RunPlan& plan);

}  // namespace sculpt::device
