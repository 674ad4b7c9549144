// MCTS's own parts, apart from a search: the tree policies' choice among visited edges (TAG and
// UCT) and the move statistics that weigh a rollout's children.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

#include "search/algorithms/move_statistics.h"
#include "search/algorithms/tree_policy.h"

namespace sculpt::search {
namespace {

TEST(TreePolicy, TagsThresholdIsTheTopkthBestTimeOfTheEdges) {
  const std::vector<double> a{1, 4, 6}, b{2, 3}, none;
  EXPECT_EQ(tag_threshold({{3, &a, 1}, {2, &b, 2}}, 3), 3);
  EXPECT_EQ(tag_threshold({{3, &a, 1}, {2, &b, 2}}, 10), 6) << "all of them when fewer";
  EXPECT_TRUE(std::isinf(tag_threshold({{1, &none, INFINITY}}, 3)));
}

TEST(TreePolicy, TagTakesTheEdgeWithMoreTimesUnderTheThreshold) {
  const std::vector<double> fast{1, 2}, slow{10, 11};
  MctsOptions options;
  options.topk = 2;
  EXPECT_EQ(pick_visited(options, {{5, &slow, 10}, {5, &fast, 1}}, 1), 1u);
  EXPECT_EQ(pick_visited(options, {{5, &fast, 1}, {5, &slow, 10}}, 1), 0u);
  EXPECT_GT(tag_score({5, &fast, 1}, 2, 10, 2, 1), tag_score({5, &slow, 10}, 2, 10, 2, 1));
}

TEST(TreePolicy, TagsConfidenceBoundTakesAnEdgeSeldomVisited) {
  // Once visited, with no time under the threshold, against one visited a hundred times with one:
  // the bound on the first's share is far wider.
  const std::vector<double> once{50}, often{1, 60};
  MctsOptions options;
  options.topk = 1;
  EXPECT_EQ(pick_visited(options, {{100, &often, 1}, {1, &once, 50}}, 1), 1u);
}

TEST(TreePolicy, UctTakesTheFastestEdgeAmongEquallyVisitedOnes) {
  const std::vector<double> t{};
  MctsOptions options;
  options.policy = MctsOptions::Policy::uct;
  EXPECT_EQ(pick_visited(options, {{4, &t, 20}, {4, &t, 10}, {4, &t, 40}}, 10), 1u);
  // Exploration: an edge visited once against one visited a thousand times, a little faster.
  EXPECT_EQ(pick_visited(options, {{1000, &t, 10}, {1, &t, 12}}, 10), 1u);
  options.exploration = 0;
  EXPECT_EQ(pick_visited(options, {{1000, &t, 10}, {1, &t, 12}}, 10), 0u) << "exploitation only";
}

/// Features never read here: the tests hand the statistics each candidate's features themselves.
class NoFeatures final : public Features {
 public:
  std::vector<std::uint64_t> of(const spacegen::CandidateBase&) const override { return {}; }
};

TEST(MoveStatistics, WeighMovesByTheShareOfTheBestTimesTheirCandidatesHold) {
  const spacegen::InstanceRef choice{3, {7}};
  const std::uint64_t good = move_key(choice, 0), bad = move_key(choice, 1);
  EXPECT_NE(good, bad);
  EXPECT_NE(move_key(choice, 0), move_key({3, {8}}, 0)) << "the objects are part of the move";
  MoveStatistics moves(/*topk=*/4, /*exponent=*/1, nullptr);
  for (int i = 0; i < 3; ++i) moves.record({good}, {}, 1 + i);
  EXPECT_EQ(moves.weight(choice, 0), 1) << "fewer than topk measured: no preference";
  for (int i = 0; i < 12; ++i) moves.record({bad}, {}, 100 + i);
  moves.record({good}, {}, 4);
  EXPECT_EQ(moves.measured(), 16u);
  // The four best are the good move's: its share is (4 + 2 base) / (4 + 2), base 1/4.
  EXPECT_DOUBLE_EQ(moves.weight(choice, 0), (4 + 0.5) / 6 / 0.25);
  EXPECT_DOUBLE_EQ(moves.weight(choice, 1), (0 + 0.5) / 14 / 0.25);
  EXPECT_DOUBLE_EQ(moves.weight(choice, 2), 1) << "a move never measured has the base rate";
  MoveStatistics flat(4, 0, nullptr);
  for (int i = 0; i < 8; ++i) flat.record({good}, {}, i);
  EXPECT_EQ(flat.weight(choice, 1), 1) << "exponent 0: no preference";
}

TEST(MoveStatistics, RememberWhatWasEvaluatedAndLearnOnlyWithFeatures) {
  MoveStatistics moves(4, 1, nullptr);
  std::optional<double> time_ns;
  EXPECT_FALSE(moves.was_evaluated(42, &time_ns));
  moves.evaluated(42, 7.5);
  moves.evaluated(43, std::nullopt);
  ASSERT_TRUE(moves.was_evaluated(42, &time_ns));
  EXPECT_EQ(time_ns, 7.5);
  ASSERT_TRUE(moves.was_evaluated(43, &time_ns));
  EXPECT_FALSE(time_ns) << "a candidate that did not check";
  EXPECT_FALSE(moves.learns());

  const NoFeatures features;
  MoveStatistics learning(4, 1, &features);
  EXPECT_TRUE(learning.learns());
  for (int i = 0; i < 20; ++i) {
    learning.record({}, {1}, 10);
    learning.record({}, {2}, 1000);
  }
  EXPECT_LT(learning.predict({1}), learning.predict({2}))
      << "the model learnt which feature the fast candidates hold";
}

}  // namespace
}  // namespace sculpt::search
