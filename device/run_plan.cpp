#include "device/run_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "support/check.h"

namespace sculpt::device {

void RunPlan::validate() const {
  SCULPT_CHECK(min_runs >= 1 && max_runs >= min_runs)
      << "run counts " << min_runs << ".." << max_runs;
  SCULPT_CHECK(!cutoff || cutoff->count() > 0) << "cutoff " << cutoff->count() << " ns";
  SCULPT_CHECK(cutoffs_to_kill >= 1) << "cutoffs_to_kill " << cutoffs_to_kill;
  SCULPT_CHECK(cutoffs_after_warm_up >= 1) << "cutoffs_after_warm_up " << cutoffs_after_warm_up;
  SCULPT_CHECK(restarts_to_kill >= 0) << "restarts_to_kill " << restarts_to_kill;
  SCULPT_CHECK(precise_within == 0 || precise_within >= 1) << "precise_within " << precise_within;
  SCULPT_CHECK(sample >= 0 && sample <= 1) << "sample " << sample;
}

std::optional<RunPlan::Sample> RunPlan::sample_of(std::int64_t grid, int threads) const {
  if (sample <= 0 || grid <= 0 || threads <= 0) return std::nullopt;
  const std::int64_t rounds = (grid + threads - 1) / threads;
  const std::int64_t small = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::lround(static_cast<double>(rounds) * sample / 2)));
  if (8 * small > rounds) return std::nullopt;
  return Sample{.small = small, .large = 2 * small, .rounds = rounds, .threads = threads};
}

double RunPlan::Sample::estimate_ns(double small_ns, double large_ns) const {
  const double average = large_ns / static_cast<double>(large);
  const double per_round =
      std::clamp((large_ns - small_ns) / static_cast<double>(large - small), average / 2, average);
  return large_ns + per_round * static_cast<double>(rounds - large);
}

bool RunPlan::far_from_best(std::span<const std::int64_t> run_ns) const {
  if (!best || precise_within <= 0 || run_ns.empty()) return false;
  const double precise = precise_within * static_cast<double>(best->count());
  // Far off from kDecisive runs: all of them over twice the threshold.
  if (all_over(run_ns, 2 * precise)) return true;
  if (static_cast<int>(run_ns.size()) < min_runs) return false;
  return summarize_runs({run_ns.begin(), run_ns.end()}).median_ns > precise;
}

namespace {

std::int64_t ceil_ms(std::chrono::nanoseconds d) {
  return std::chrono::ceil<std::chrono::milliseconds>(d).count();
}

}  // namespace

RunOutcome killed_after(const std::string& phase, std::chrono::nanoseconds limit) {
  return RunOutcome{
      .check = Check::timeout,
      .message = fmt::format("{} took longer than {} ms; killed", phase, ceil_ms(limit))};
}

RunOutcome killed_at_run_limit(const std::string& phase, const RunPlan& plan) {
  if (plan.run_limit() >= plan.run_timeout) return killed_after(phase, plan.run_timeout);
  RunOutcome outcome{.check = Check::timeout, .cut_short = true};
  const std::chrono::nanoseconds by_cutoff =
      std::max(plan.kill_floor, *plan.cutoff * plan.cutoffs_to_kill);
  if (plan.restart_wait() > by_cutoff) {
    outcome.message = fmt::format(
        "{} took longer than {} ms ({} times the {} ms that restarting after a kill costs; the "
        "cutoff is {:.4g} ms); killed",
        phase, ceil_ms(plan.run_limit()), plan.restarts_to_kill, ceil_ms(*plan.restart_cost),
        plan.cutoff->count() / 1e6);
  } else {
    outcome.message =
        fmt::format("{} took longer than {} ms ({} times the cutoff of {:.4g} ms); killed", phase,
                    ceil_ms(plan.run_limit()), plan.cutoffs_to_kill, plan.cutoff->count() / 1e6);
  }
  return outcome;
}

RunOutcome cut_by_sample(double estimate_ns, const std::string& sample, const RunPlan& plan) {
  return RunOutcome{
      .check = Check::timeout,
      .message = fmt::format("estimated at {:.4g} ms from the grid's first {}, past the cutoff "
                             "of {:.4g} ms; not run in full",
                             estimate_ns / 1e6, sample, plan.cutoff->count() / 1e6),
      .cut_short = true,
      .estimate_ns = estimate_ns};
}

Evaluation evaluation_of(RunOutcome outcome, const RunPlan& plan) {
  Evaluation evaluation;
  evaluation.check = outcome.check;
  evaluation.message = std::move(outcome.message);
  evaluation.estimate_ns = outcome.estimate_ns;
  if (outcome.check != Check::ok) {
    evaluation.cut_short = outcome.cut_short;
    return evaluation;
  }
  if (outcome.run_ns.empty() && outcome.warm_up_ns && plan.warm_up_decides(*outcome.warm_up_ns)) {
    evaluation.time_ns = static_cast<double>(*outcome.warm_up_ns);
    evaluation.cut_short = true;
  } else {
    const RunStatistics statistics = summarize_runs(outcome.run_ns);
    evaluation.time_ns = statistics.median_ns;
    evaluation.spread_ns = statistics.spread_ns;
    evaluation.runs = static_cast<int>(outcome.run_ns.size());
    evaluation.cut_short = plan.cut_short(outcome.run_ns);
  }
  if (outcome.mismatch) {
    evaluation.check = Check::wrong;
    evaluation.message = std::move(*outcome.mismatch);
  }
  return evaluation;
}

}  // namespace sculpt::device
