// A search's cutoff: a multiple of the best ok time observed, none before the first.
#include "device/cutoff.h"

#include <gtest/gtest.h>

#include <limits>

namespace sculpt::device {
namespace {

using std::chrono::nanoseconds;

Evaluation timed(Check check, double time_ns) {
  Evaluation e;
  e.check = check;
  e.time_ns = time_ns;
  return e;
}

TEST(Cutoff, IsAMultipleOfTheBestOkTime) {
  Cutoff cutoff(4);
  EXPECT_FALSE(cutoff.get());
  cutoff.observe(timed(Check::wrong, 10));  // a wrong result's time is no best
  cutoff.observe(Evaluation{.check = Check::fault});
  EXPECT_FALSE(cutoff.get());
  cutoff.observe(timed(Check::ok, 1000));
  EXPECT_EQ(cutoff.get(), nanoseconds(4000));
  cutoff.observe(timed(Check::ok, 3000));
  EXPECT_EQ(cutoff.get(), nanoseconds(4000));
  cutoff.observe(timed(Check::ok, 250.4));
  EXPECT_EQ(cutoff.get(), nanoseconds(1002));
}

TEST(Cutoff, StartsFromAPreviousBestAndNeverReachesZero) {
  EXPECT_EQ(Cutoff(1.5, 2000).get(), nanoseconds(3000));
  EXPECT_EQ(Cutoff(1, 0.1).get(), nanoseconds(1));
}

TEST(Cutoff, IsLoweredByATimeMeasuredElsewhereAndSaysItsBest) {
  Cutoff cutoff(2);
  EXPECT_EQ(cutoff.factor(), 2);
  EXPECT_FALSE(cutoff.best_ns());
  cutoff.lower(500);
  EXPECT_EQ(cutoff.best_ns(), 500);
  EXPECT_EQ(cutoff.get(), nanoseconds(1000));
  cutoff.lower(800);  // slower: no change
  EXPECT_EQ(cutoff.best_ns(), 500);
  cutoff.observe(timed(Check::ok, 400));
  EXPECT_EQ(cutoff.best_ns(), 400);
}

TEST(Cutoff, ASnapshotHoldsTheCutoffAndTheBestTimeTogether) {
  Cutoff cutoff(4);
  EXPECT_FALSE(cutoff.snapshot().cutoff);
  EXPECT_FALSE(cutoff.snapshot().best);
  cutoff.lower(2500.4);
  const CutoffSnapshot snapshot = cutoff.snapshot();
  EXPECT_EQ(snapshot.cutoff, nanoseconds(10002));
  EXPECT_EQ(snapshot.best, nanoseconds(2500));
  EXPECT_EQ(Cutoff(1, 0.1).snapshot().best, nanoseconds(1));
}

TEST(Cutoff, AFactorTooLargeForTheClockCutsNothing) {
  EXPECT_FALSE(Cutoff(1e300, 2000).get());
  EXPECT_FALSE(Cutoff(std::numeric_limits<double>::infinity(), 2000).get());
}

}  // namespace
}  // namespace sculpt::device
