// The learnt model: it recovers what each move costs from candidates' times, ranks unseen
// combinations by their moves, also when fitted only as its samples grow, and a move seldom
// measured keeps a weight pulled towards 0.
#include "search/model/additive_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace sculpt::search {
namespace {

// Candidates of four binary decisions, move 2d+v for decision d's value v, whose log time is a
// sum of one cost per value: the model learns the costs' differences.
void expect_learns_costs(AdditiveModel& model, int samples) {
  const double cost[4][2] = {{0, 1.5}, {0.2, 0}, {0, 0.7}, {2.0, 0}};
  std::mt19937_64 rng(1);
  for (int i = 0; i < samples; ++i) {
    std::vector<std::uint64_t> moves;
    double log_time = std::log(1e4);
    for (int d = 0; d < 4; ++d) {
      const int v = static_cast<int>(rng() % 2);
      moves.push_back(2 * d + v);
      log_time += cost[d][v];
    }
    model.add(moves, std::exp(log_time));
  }
  EXPECT_EQ(model.samples(), static_cast<std::size_t>(samples));
  for (int d = 0; d < 4; ++d) {
    std::vector<std::uint64_t> zero = {0, 2, 4, 6}, one = zero;
    one[d] += 1;
    EXPECT_NEAR(model.predict(one) - model.predict(zero), cost[d][1] - cost[d][0], 0.01) << d;
  }
  EXPECT_NEAR(model.predict(std::vector<std::uint64_t>{0, 3, 4, 7}), std::log(1e4), 0.01);
}

TEST(AdditiveModel, LearnsWhatEachValueCostsFromTimes) {
  AdditiveModel model(0.01);
  expect_learns_costs(model, 64);
}

// Fitted only as the samples grow by a hundredth (from the first one here), it learns the same.
TEST(AdditiveModel, FittedAsTheSamplesGrowItLearnsTheSame) {
  AdditiveModel model(0.01, /*every_sample=*/0);
  expect_learns_costs(model, 5000);
}

// One candidate holding move 9 ran 100 times slower than the others: with a ridge of one sample,
// move 9's weight takes half of that, not all of it.
TEST(AdditiveModel, AMoveSeldomMeasuredIsPulledTowardsNoEffect) {
  AdditiveModel model(1);
  for (int i = 0; i < 20; ++i) model.add(std::vector<std::uint64_t>{1}, 1e3);
  model.add(std::vector<std::uint64_t>{1, 9}, 1e5);
  const double effect = model.predict(std::vector<std::uint64_t>{1, 9}) -
                        model.predict(std::vector<std::uint64_t>{1});
  EXPECT_GT(effect, 0.4 * std::log(100.0));
  EXPECT_LT(effect, 0.6 * std::log(100.0));
  // A move never measured changes nothing.
  EXPECT_EQ(model.predict(std::vector<std::uint64_t>{1, 42}),
            model.predict(std::vector<std::uint64_t>{1}));
}

}  // namespace
}  // namespace sculpt::search
