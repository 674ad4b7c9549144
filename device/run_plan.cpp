#include "device/run_plan.h"

#include "support/check.h"

namespace sculpt::device {

void RunPlan::validate() const {
  SCULPT_CHECK(min_runs >= 1 && max_runs >= min_runs)
      << "run counts " << min_runs << ".." << max_runs;
}

Evaluation evaluation_of(RunOutcome outcome, const ProblemData& data,
                         const std::function<const void*(std::size_t)>& result) {
  Evaluation evaluation;
  evaluation.check = outcome.check;
  evaluation.message = std::move(outcome.message);
  if (outcome.check != Check::ok) return evaluation;
  RunStatistics statistics = summarize_runs(outcome.run_ns);
  evaluation.time_ns = statistics.median_ns;
  evaluation.spread_ns = statistics.spread_ns;
  evaluation.runs = static_cast<int>(outcome.run_ns.size());
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (!data.is_result(i)) continue;
    if (auto mismatch = data.compare(i, result(i))) {
      evaluation.check = Check::wrong;
      evaluation.message = std::move(*mismatch);
      break;
    }
  }
  return evaluation;
}

}  // namespace sculpt::device
