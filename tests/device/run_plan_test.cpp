// How many timed runs a plan asks for: between min_runs and max_runs within the budget, and no
// more once the runs average over the cutoff.
#include "device/run_plan.h"

#include <gtest/gtest.h>

namespace sculpt::device {
namespace {

using namespace std::chrono_literals;

RunPlan plan() {
  RunPlan p;
  p.budget = 100ms;
  p.min_runs = 3;
  p.max_runs = 10;
  return p;
}

TEST(RunPlan, RunsAtLeastMinRunsThenUntilTheBudget) {
  const RunPlan p = plan();
  EXPECT_TRUE(p.wants_another(0, 0));
  EXPECT_TRUE(p.wants_another(2, std::int64_t{500'000'000}));  // over the budget, under min_runs
  EXPECT_TRUE(p.wants_another(3, std::int64_t{50'000'000}));
  EXPECT_FALSE(p.wants_another(3, std::int64_t{100'000'000}));
  EXPECT_FALSE(p.wants_another(10, 0));
  EXPECT_FALSE(p.cut_short(2, std::int64_t{500'000'000}));
}

TEST(RunPlan, TheCutoffStopsRunsThatAverageOverIt) {
  RunPlan p = plan();
  p.cutoff = 20ms;
  EXPECT_TRUE(p.wants_another(0, 0));  // at least one timed run
  // One run of 30 ms: over the cutoff, though under min_runs.
  EXPECT_FALSE(p.wants_another(1, std::int64_t{30'000'000}));
  EXPECT_TRUE(p.cut_short(1, std::int64_t{30'000'000}));
  // Two runs averaging 15 ms go on.
  EXPECT_TRUE(p.wants_another(2, std::int64_t{30'000'000}));
  EXPECT_FALSE(p.cut_short(2, std::int64_t{30'000'000}));
  // Runs the plan would have stopped anyway were not cut short.
  EXPECT_FALSE(p.cut_short(10, std::int64_t{300'000'000}));
  EXPECT_FALSE(p.cut_short(4, std::int64_t{100'000'000}));
}

}  // namespace
}  // namespace sculpt::device
