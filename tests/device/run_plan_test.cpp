// How many timed runs a plan asks for: between min_runs and max_runs within the budget, and no
// more once the runs average over the cutoff; how long one run may last.
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

TEST(RunPlan, ARunPastTenCutoffsIsKilledButNotBeforeTheFloor) {
  RunPlan p = plan();
  p.run_timeout = 10s;
  EXPECT_EQ(p.run_limit(), 10s);
  RunOutcome killed = killed_at_run_limit("the warm-up run", p);
  EXPECT_EQ(killed.check, Check::timeout);
  EXPECT_EQ(killed.message, "the warm-up run took longer than 10000 ms; killed");
  EXPECT_FALSE(killed.cut_short);
  p.cutoff = 20ms;
  EXPECT_EQ(p.run_limit(), 200ms);
  killed = killed_at_run_limit("timed run 2", p);
  EXPECT_EQ(killed.check, Check::timeout);
  EXPECT_EQ(killed.message,
            "timed run 2 took longer than 200 ms (10 times the cutoff of 20 ms); killed");
  EXPECT_TRUE(killed.cut_short);
  p.cutoff = 1ms;
  EXPECT_EQ(p.run_limit(), p.kill_floor);
  p.cutoff = 5s;
  EXPECT_EQ(p.run_limit(), 10s);
}

}  // namespace
}  // namespace sculpt::device
