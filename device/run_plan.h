#pragma once
// How many times a device runs a candidate, and how the outcome of those runs becomes an
// Evaluation: shared by every device, so that their times and checks mean the same thing.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device/evaluator.h"
#include "device/problem_data.h"

namespace sculpt::device {

/// How many times to run a candidate and how long to wait for it.
struct RunPlan {
  /// Longest a single run may take; the candidate is killed after that.
  std::chrono::nanoseconds run_timeout = std::chrono::seconds(10);
  /// Timed runs go on while their total stays under the budget, between min_runs and max_runs.
  std::chrono::nanoseconds budget = std::chrono::milliseconds(500);
  int min_runs = 3;
  int max_runs = 100;

  /// Whether another timed run follows `runs` timed runs that took `total_ns` together.
  bool wants_another(int runs, std::int64_t total_ns) const {
    return runs < max_runs && (runs < min_runs || total_ns < budget.count());
  }

  /// Checks that the counts make sense (a programming error otherwise).
  void validate() const;
};

/// What running a candidate gave, before its results are compared with the reference.
struct RunOutcome {
  /// ok (the warm-up results are readable), fault, timeout, or compile_error when the code
  /// does not load or lacks its entry point.
  Check check = Check::ok;
  /// Durations of the timed runs, in nanoseconds.
  std::vector<std::int64_t> run_ns{};
  std::string message{};
};

/// The evaluation of an outcome: any check but ok is returned as it is; an ok outcome gets the
/// median and spread of its runs, then becomes `wrong` (keeping its time) when a result
/// parameter differs from the reference. `result(i)` gives what the warm-up run left in result
/// parameter i.
Evaluation evaluation_of(RunOutcome outcome, const ProblemData& data,
                         const std::function<const void*(std::size_t)>& result);

}  // namespace sculpt::device
