#include "device/run_plan.h"

#include <fmt/format.h>

#include <numeric>

#include "support/check.h"

namespace sculpt::device {

void RunPlan::validate() const {
  SCULPT_CHECK(min_runs >= 1 && max_runs >= min_runs)
      << "run counts " << min_runs << ".." << max_runs;
  SCULPT_CHECK(!cutoff || cutoff->count() > 0) << "cutoff " << cutoff->count() << " ns";
  SCULPT_CHECK(cutoffs_to_kill >= 1) << "cutoffs_to_kill " << cutoffs_to_kill;
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
  outcome.message =
      fmt::format("{} took longer than {} ms ({} times the cutoff of {:.4g} ms); killed", phase,
                  ceil_ms(plan.run_limit()), plan.cutoffs_to_kill, plan.cutoff->count() / 1e6);
  return outcome;
}

Evaluation evaluation_of(RunOutcome outcome, const RunPlan& plan) {
  Evaluation evaluation;
  evaluation.check = outcome.check;
  evaluation.message = std::move(outcome.message);
  if (outcome.check != Check::ok) {
    evaluation.cut_short = outcome.cut_short;
    return evaluation;
  }
  RunStatistics statistics = summarize_runs(outcome.run_ns);
  evaluation.time_ns = statistics.median_ns;
  evaluation.spread_ns = statistics.spread_ns;
  evaluation.runs = static_cast<int>(outcome.run_ns.size());
  evaluation.cut_short = plan.cut_short(
      evaluation.runs,
      std::accumulate(outcome.run_ns.begin(), outcome.run_ns.end(), std::int64_t{0}));
  if (outcome.mismatch) {
    evaluation.check = Check::wrong;
    evaluation.message = std::move(*outcome.mismatch);
  }
  return evaluation;
}

}  // namespace sculpt::device
