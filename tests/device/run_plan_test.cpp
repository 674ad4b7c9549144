// How many timed runs a plan asks for: between min_runs and max_runs within the budget, no more
// once two runs are all over the cutoff, and min_runs (or two) when they are far from the best
// time; how long one run may last.
#include "device/run_plan.h"

#include <gtest/gtest.h>

#include <vector>

namespace sculpt::device {
namespace {

using namespace std::chrono_literals;

// `count` timed runs of `ns` each.
std::vector<std::int64_t> runs_of(int count, std::int64_t ns) {
  return std::vector<std::int64_t>(static_cast<std::size_t>(count), ns);
}

// Whether `p` wants another run after `count` runs whose total is `total_ns`, spread evenly.
bool wants_another(const RunPlan& p, int count, std::int64_t total_ns) {
  if (count == 0) return p.wants_another({});
  std::vector<std::int64_t> runs = runs_of(count, total_ns / count);
  runs[0] += total_ns % count;
  return p.wants_another(runs);
}

RunPlan plan() {
  RunPlan p;
  p.budget = 100ms;
  p.min_runs = 3;
  p.max_runs = 10;
  return p;
}

TEST(RunPlan, RunsAtLeastMinRunsThenUntilTheBudget) {
  const RunPlan p = plan();
  EXPECT_TRUE(wants_another(p, 0, 0));
  EXPECT_TRUE(wants_another(p, 2, std::int64_t{500'000'000}));  // over the budget, under min_runs
  EXPECT_TRUE(wants_another(p, 3, std::int64_t{50'000'000}));
  EXPECT_FALSE(wants_another(p, 3, std::int64_t{100'000'000}));
  EXPECT_FALSE(wants_another(p, 10, 0));
  EXPECT_FALSE(p.cut_short(runs_of(2, 250'000'000)));
}

TEST(RunPlan, TheCutoffStopsTwoRunsThatAreAllOverIt) {
  RunPlan p = plan();
  p.cutoff = 20ms;
  EXPECT_TRUE(wants_another(p, 0, 0));  // at least one timed run
  // One run of 30 ms decides nothing: another process may have held a core.
  EXPECT_TRUE(wants_another(p, 1, std::int64_t{30'000'000}));
  EXPECT_FALSE(p.cut_short(runs_of(1, 30'000'000)));
  // Two runs over the cutoff: stopped, though under min_runs.
  EXPECT_FALSE(wants_another(p, 2, std::int64_t{60'000'000}));
  EXPECT_TRUE(p.cut_short(runs_of(2, 30'000'000)));
  // One of two under it: the timing goes on.
  const std::vector<std::int64_t> delayed_once = {30'000'000, 15'000'000};
  EXPECT_TRUE(p.wants_another(delayed_once));
  EXPECT_FALSE(p.cut_short(delayed_once));
  // Runs the plan would have stopped anyway were not cut short.
  EXPECT_FALSE(p.cut_short(runs_of(10, 30'000'000)));
  EXPECT_FALSE(p.cut_short(runs_of(4, 25'000'000)));
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

TEST(RunPlan, OnlyCandidatesNearTheBestGetAPreciseTime) {
  RunPlan p = plan();  // 3 to 10 runs within 100 ms
  p.budget = 1s;
  p.cutoff = 40ms;
  p.best = 10ms;  // precise within 1.2 times: 12 ms
  // At 1.05 times the best: the whole plan.
  for (int runs = 0; runs < 10; ++runs) EXPECT_TRUE(p.wants_another(runs_of(runs, 10'500'000)));
  EXPECT_FALSE(p.wants_another(runs_of(10, 10'500'000)));
  // At 1.5 times: min_runs runs, and not cut short (the cutoff is 4 times the best).
  EXPECT_TRUE(p.wants_another(runs_of(1, 15'000'000)));
  EXPECT_TRUE(p.wants_another(runs_of(2, 15'000'000)));
  EXPECT_FALSE(p.wants_another(runs_of(3, 15'000'000)));
  EXPECT_FALSE(p.cut_short(runs_of(3, 15'000'000)));
  // The median decides: one slow run among fast ones does not stop the timing.
  EXPECT_TRUE(p.wants_another(std::vector<std::int64_t>{10'000'000, 30'000'000, 10'000'000}));
  EXPECT_FALSE(p.wants_another(std::vector<std::int64_t>{13'000'000, 9'000'000, 13'000'000}));
  // Over twice the threshold (24 ms) from the first two runs: two runs.
  EXPECT_TRUE(p.wants_another(runs_of(1, 30'000'000)));
  EXPECT_FALSE(p.wants_another(runs_of(2, 30'000'000)));
  EXPECT_FALSE(p.cut_short(runs_of(2, 30'000'000)));
  EXPECT_TRUE(p.wants_another(std::vector<std::int64_t>{30'000'000, 11'000'000}));
  // Off: the whole plan.
  p.precise_within = 0;
  EXPECT_TRUE(p.wants_another(runs_of(3, 15'000'000)));
  p.precise_within = 1.2;
  p.best.reset();
  EXPECT_TRUE(p.wants_another(runs_of(3, 15'000'000)));
}

TEST(RunPlan, TheBestComesWithTheCutoff) {
  RunPlan p = plan();
  const RunPlan none = p.with_cutoff(CutoffSnapshot{});
  EXPECT_FALSE(none.cutoff);
  EXPECT_FALSE(none.best);
  const RunPlan cut = p.with_cutoff(Cutoff(4.0, 2e6).snapshot());
  EXPECT_EQ(cut.cutoff, 8ms);
  EXPECT_EQ(cut.best, 2ms);
}

TEST(RunPlan, ARunIsNotKilledBeforeItLastsTwoRestarts) {
  RunPlan p = plan();
  p.run_timeout = 10s;
  p.cutoff = 20ms;
  p.restart_cost = 300ms;  // a worker's start and the problem's upload
  EXPECT_EQ(p.run_limit(), 600ms);
  RunOutcome killed = killed_at_run_limit("the warm-up run", p);
  EXPECT_EQ(killed.check, Check::timeout);
  EXPECT_TRUE(killed.cut_short);
  EXPECT_EQ(killed.message,
            "the warm-up run took longer than 600 ms (2 times the 300 ms that restarting after a "
            "kill costs; the cutoff is 20 ms); killed");
  // Ten cutoffs longer than two restarts: the cutoff's limit.
  p.cutoff = 100ms;
  EXPECT_EQ(p.run_limit(), 1s);
  EXPECT_EQ(killed_at_run_limit("timed run 1", p).message,
            "timed run 1 took longer than 1000 ms (10 times the cutoff of 100 ms); killed");
  // A restart over the timeout: the timeout.
  p.restart_cost = 6s;
  EXPECT_EQ(p.run_limit(), 10s);
  EXPECT_FALSE(killed_at_run_limit("timed run 1", p).cut_short);
  // No cutoff, no early kill.
  p.cutoff.reset();
  p.restart_cost = 1ms;
  EXPECT_EQ(p.run_limit(), 10s);
}

TEST(RunPlan, AWarmUpOverTwoCutoffsAndTheKillFloorIsTheOnlyRun) {
  RunPlan p = plan();
  EXPECT_FALSE(p.warm_up_decides(std::int64_t{10'000'000'000}));  // no cutoff
  p.cutoff = 80ms;
  EXPECT_FALSE(p.warm_up_decides(std::int64_t{160'000'000}));
  EXPECT_TRUE(p.warm_up_decides(std::int64_t{160'000'001}));
  p.cutoff = 10ms;  // two cutoffs are under the kill floor, 100 ms
  EXPECT_FALSE(p.warm_up_decides(std::int64_t{90'000'000}));
  EXPECT_TRUE(p.warm_up_decides(std::int64_t{101'000'000}));
  RunOutcome outcome{.check = Check::ok, .warm_up_ns = 250'000'000};
  const Evaluation e = evaluation_of(outcome, p);
  EXPECT_EQ(e.check, Check::ok);
  EXPECT_EQ(e.time_ns, 250e6);
  EXPECT_EQ(e.runs, 0);
  EXPECT_TRUE(e.cut_short);
  outcome.mismatch = "y[3]: 1 instead of 2";
  EXPECT_EQ(evaluation_of(outcome, p).check, Check::wrong);
}

TEST(RunPlan, ASampleIsASixteenthOfTheGridsRoundsAndHalfOfThat) {
  RunPlan p;
  // 1,024 blocks on 2 threads: 512 rounds; 16 and 32 sampled.
  const std::optional<RunPlan::Sample> large = p.sample_of(1024, 2);
  ASSERT_TRUE(large);
  EXPECT_EQ(large->small, 16);
  EXPECT_EQ(large->large, 32);
  EXPECT_EQ(large->rounds, 512);
  EXPECT_EQ(large->threads, 2);
  // 70 blocks on 8 threads: 9 rounds, the last partly idle; one and two sampled.
  const std::optional<RunPlan::Sample> odd = p.sample_of(70, 8);
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->small, 1);
  EXPECT_EQ(odd->large, 2);
  EXPECT_EQ(odd->rounds, 9);
  // Seven rounds: two of them are no sample worth its runs; nor one block, nor sampling off.
  EXPECT_FALSE(p.sample_of(14, 2));
  EXPECT_FALSE(p.sample_of(1, 2));
  p.sample = 0;
  EXPECT_FALSE(p.sample_of(1024, 2));
}

TEST(RunPlan, ASampleExtendsTheCostOfARoundNotWhatEveryCallCosts) {
  const RunPlan::Sample s{.small = 16, .large = 32, .rounds = 512, .threads = 2};
  // 1 ms a call and 0.1 ms a round: 1 + 51.2 ms.
  EXPECT_DOUBLE_EQ(s.estimate_ns(2.6e6, 4.2e6), 52.2e6);
  // Proportional: the large sample scaled up.
  EXPECT_DOUBLE_EQ(s.estimate_ns(1e6, 2e6), 32e6);
  // Noise: the small one slower than the large or much faster: each round costs between half
  // the large's average and its average.
  EXPECT_DOUBLE_EQ(s.estimate_ns(3e6, 2e6), 17e6);
  EXPECT_DOUBLE_EQ(s.estimate_ns(0.1e6, 2e6), 32e6);
}

TEST(RunPlan, ASampleCutsOnlyPastTheCutoff) {
  RunPlan p;
  EXPECT_FALSE(p.sample_cuts(1e12));  // no cutoff, no cut
  p.cutoff = 20ms;
  EXPECT_FALSE(p.sample_cuts(20e6));
  EXPECT_TRUE(p.sample_cuts(20.1e6));
  const RunOutcome cut = cut_by_sample(300e6, "32 and 64 of 1024 blocks in 9.5 and 18.75 ms", p);
  EXPECT_EQ(cut.check, Check::timeout);
  EXPECT_TRUE(cut.cut_short);
  EXPECT_EQ(cut.message,
            "estimated at 300 ms from the grid's first 32 and 64 of 1024 blocks in 9.5 and 18.75 "
            "ms, past the cutoff of 20 ms; not run in full");
  const Evaluation e = evaluation_of(cut, p);
  EXPECT_EQ(e.check, Check::timeout);
  EXPECT_TRUE(e.cut_short);
  EXPECT_FALSE(e.time_ns);
  EXPECT_EQ(e.estimate_ns, 300e6);
}

}  // namespace
}  // namespace sculpt::device
