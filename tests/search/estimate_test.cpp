// Space-size estimators (search/estimate/estimate.h) against exact counts: on tiny generated test
// spaces (tests/spacegen/spaces/) whose search tree is enumerated in full, the 95% intervals of
// Knuth's and Chen's methods contain the exact number of leaves, Knuth's dead-end interval
// contains the exact probability of a dead end, uniform trees are counted exactly, every
// estimate is a function of its seed, and a stop request keeps the samples finished.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "generated/space_conflict/space.h"
#include "generated/space_property/space.h"
#include "search/estimate/estimate.h"
#include "search/session/descent.h"
#include "tests/spacegen/space_fixture.h"

namespace sculpt::search {
namespace {

using spacegen::CandidateBase;
using spacegen::test::Backbone;
using spacegen::test::make_candidate;

Sampling seeded(std::uint64_t seed, std::size_t threads = 0) {
  Sampling sampling;
  sampling.seed = seed;
  sampling.threads = threads;
  return sampling;
}

/// The search tree below `node`, enumerated: its leaves, and the probability that a uniform
/// random descent from `node` ends at a dead end.
struct ExactTree {
  double leaves = 0;
  double dead_end_probability = 0;
};

ExactTree enumerate(const CandidateBase& node) {
  const auto choice = node.first_open_instance();
  if (!choice) return {1, 0};
  const auto children = valid_children(node, *choice);
  if (children.empty()) return {0, 1};
  ExactTree tree;
  for (const auto& child : children) {
    const ExactTree below = enumerate(*child);
    tree.leaves += below.leaves;
    tree.dead_end_probability += below.dead_end_probability / static_cast<double>(children.size());
  }
  return tree;
}

/// A backbone of spaces/property.space: one dimension per universe of sizes.
Backbone property_world(const std::vector<std::vector<std::int64_t>>& universes) {
  Backbone fun;
  for (const auto& sizes : universes) fun.add_dim(sizes);
  return fun;
}

/// spaces/conflict.space over `insts` unflagged instructions and one dimension: every
/// instruction is RED or GREEN, the dimension is forced GREEN at the root.
Backbone uniform_world(int insts) {
  Backbone fun;
  for (int i = 0; i < insts; ++i) fun.add_inst();
  fun.add_dim({1});
  return fun;
}

TEST(MeanEstimate, StandardErrorAndNormalInterval) {
  const std::vector<double> samples = {1, 2, 3, 4};
  const MeanEstimate estimate = mean_estimate(samples);
  EXPECT_EQ(estimate.samples, 4u);
  EXPECT_DOUBLE_EQ(estimate.mean, 2.5);
  EXPECT_NEAR(estimate.standard_error, 0.6454972, 1e-6);  // sd 1.2910 / sqrt(4)
  EXPECT_NEAR(estimate.low, 2.5 - 1.96 * 0.6454972, 1e-3);
  EXPECT_NEAR(estimate.high, 2.5 + 1.96 * 0.6454972, 1e-3);
  const std::vector<double> spread = {0, 0, 0, 100};
  EXPECT_EQ(mean_estimate(spread).low, 0) << "counts are never negative";
}

// How much of the sum the largest sample holds: what says whether the interval means anything.
TEST(MeanEstimate, LargestShareOfTheSum) {
  const std::vector<double> alike = {2, 2, 2, 2};
  EXPECT_DOUBLE_EQ(mean_estimate(alike).largest_share, 0.25);
  const std::vector<double> one_makes_the_mean = {1, 0, 2, 997};
  EXPECT_DOUBLE_EQ(mean_estimate(one_makes_the_mean).largest_share, 0.997);
  const std::vector<double> none = {0, 0};
  EXPECT_EQ(mean_estimate(none).largest_share, 0);
}

TEST(Proportion, WilsonIntervalStaysInsideAndIsNotEmptyAtZero) {
  const Proportion none = proportion(0, 100);
  EXPECT_EQ(none.rate, 0);
  EXPECT_EQ(none.low, 0);
  EXPECT_NEAR(none.high, 0.0370, 1e-3);
  const Proportion half = proportion(50, 100);
  EXPECT_NEAR(half.low, 0.4038, 1e-3);
  EXPECT_NEAR(half.high, 0.5962, 1e-3);
  EXPECT_EQ(proportion(100, 100).high, 1);
}

TEST(Estimate, UniformTreeIsCountedExactly) {
  const auto root = make_candidate<space_conflict::Candidate>(uniform_world(7));
  ASSERT_EQ(enumerate(*root).leaves, 128);
  std::mt19937_64 rng(3);
  const KnuthSample sample = knuth_sample(*root, rng);
  EXPECT_EQ(sample.leaves, 128);
  EXPECT_EQ(sample.depth, 7u);
  EXPECT_FALSE(sample.dead_end);
  EXPECT_EQ(sample.propagations, 14u);
  const KnuthEstimate knuth = knuth_estimate(*root, 50, seeded(3));
  EXPECT_EQ(knuth.leaves.mean, 128);
  EXPECT_EQ(knuth.leaves.standard_error, 0);
  EXPECT_EQ(knuth.dead_ends.hits, 0u);
  EXPECT_EQ(knuth.mean_depth, 7);
  const ChenEstimate chen = chen_estimate(*root, 10, seeded(3));
  EXPECT_EQ(chen.leaves.mean, 128);
  EXPECT_EQ(chen.leaves.standard_error, 0);
  EXPECT_EQ(chen.mean_expanded, 7) << "one stratum per depth";
}

// A cut at depth 3 of the uniform tree of 2^7 leaves: 8 nodes there, each over 16 leaves; the
// share kept is what `keep` says of them, and the candidates below kept nodes follow.
TEST(Estimate, CutCountsTheNodesAtItsDepthAndWhatItKeeps) {
  const auto root = make_candidate<space_conflict::Candidate>(uniform_world(7));
  const CutEstimate all = cut_estimate(
      *root, 3, [](const CandidateBase&) { return true; }, 20, seeded(5));
  EXPECT_EQ(all.nodes.mean, 8);
  EXPECT_EQ(all.kept_nodes.mean, 8);
  EXPECT_EQ(all.leaves.mean, 128);
  EXPECT_EQ(all.kept_leaves.mean, 128);
  const CutEstimate none = cut_estimate(
      *root, 3, [](const CandidateBase&) { return false; }, 20, seeded(5));
  EXPECT_EQ(none.nodes.mean, 8);
  EXPECT_EQ(none.kept_nodes.mean, 0);
  EXPECT_EQ(none.kept_leaves.mean, 0);
  // Past the leaves' depth, no node is met.
  const CutEstimate deep = cut_estimate(
      *root, 9, [](const CandidateBase&) { return true; }, 5, seeded(5));
  EXPECT_EQ(deep.nodes.mean, 0);
  EXPECT_EQ(deep.leaves.mean, 128);
  // Keeping some of the nodes at depth 3 keeps as large a share of the leaves: each has 16.
  const CutEstimate half = cut_estimate(
      *root, 3, [](const CandidateBase& node) { return node.hash() % 2 == 0; }, 400, seeded(5));
  EXPECT_EQ(half.nodes.mean, 8);
  EXPECT_NEAR(half.kept_nodes.mean / half.nodes.mean, half.kept_leaves.mean / half.leaves.mean,
              1e-12);
}

TEST(Estimate, DeadRootHasNoLeaves) {
  Backbone fun;
  fun.add_dim({1}, ~0u, /*flag=*/true);  // flagged: RED; a dimension: GREEN
  spacegen::Status status = spacegen::Status::Ok;
  const auto root = make_candidate<space_conflict::Candidate>(fun, &status);
  ASSERT_EQ(status, spacegen::Status::Conflict);
  const KnuthEstimate knuth = knuth_estimate(*root, 5, seeded(1));
  EXPECT_EQ(knuth.leaves.mean, 0);
  EXPECT_EQ(knuth.dead_ends.hits, 5u);
  EXPECT_EQ(chen_estimate(*root, 5, seeded(1)).leaves.mean, 0);
}

// Worlds of spaces/property.space whose trees have both leaves and dead ends: propagation does
// not see every conflict of its transitive order and merged sizes before full assignment
// (exactly 20, 72 and 312 leaves; a random descent dies with probability 0.79, 0.57, 0.46).
const std::vector<std::vector<std::vector<std::int64_t>>> kPropertyWorlds = {
    {{1}, {2}, {1, 4}},
    {{1}, {1, 2}, {1, 2, 4}},
    {{1, 2, 4}, {1, 2, 4}, {1, 2, 4}},
};

/// Runs of an estimator whose 95% interval holds the exact value, among `runs` seeds.
template <typename Covers>
int covering_runs(int runs, Covers&& covers) {
  int covering = 0;
  for (int seed = 1; seed <= runs; ++seed) covering += covers(static_cast<std::uint64_t>(seed));
  return covering;
}

// A 95% interval misses now and then, and more often than 5% on the heavy-tailed samples of
// both estimators; over 40 seeds it must hold the exact value in most runs, and the mean of all
// runs (an unbiased estimate from every sample) must be within four of its standard errors.
TEST(Estimate, IntervalsContainTheExactCount) {
  constexpr int kRuns = 40;
  for (const auto& universes : kPropertyWorlds) {
    const auto root = make_candidate<space_property::Candidate>(property_world(universes));
    const ExactTree exact = enumerate(*root);
    ASSERT_GT(exact.dead_end_probability, 0);
    SCOPED_TRACE(testing::Message() << "exactly " << exact.leaves << " leaves, dead ends "
                                    << exact.dead_end_probability);
    // Sums of the runs' means and of their variances (squared standard errors).
    double knuth_total = 0, knuth_variance = 0;
    double chen_total = 0, chen_variance = 0;
    const int knuth_covering = covering_runs(kRuns, [&](std::uint64_t seed) {
      const KnuthEstimate knuth = knuth_estimate(*root, 300, seeded(seed));
      knuth_total += knuth.leaves.mean;
      knuth_variance += knuth.leaves.standard_error * knuth.leaves.standard_error;
      return knuth.leaves.low <= exact.leaves && exact.leaves <= knuth.leaves.high;
    });
    const int dead_end_covering = covering_runs(kRuns, [&](std::uint64_t seed) {
      const Proportion dead = knuth_estimate(*root, 300, seeded(seed)).dead_ends;
      return dead.low <= exact.dead_end_probability && exact.dead_end_probability <= dead.high;
    });
    const int chen_covering = covering_runs(kRuns, [&](std::uint64_t seed) {
      const ChenEstimate chen = chen_estimate(*root, 30, seeded(seed));
      chen_total += chen.leaves.mean;
      chen_variance += chen.leaves.standard_error * chen.leaves.standard_error;
      return chen.leaves.low <= exact.leaves && exact.leaves <= chen.leaves.high;
    });
    EXPECT_GE(knuth_covering, kRuns * 8 / 10);
    EXPECT_GE(dead_end_covering, kRuns * 8 / 10);
    EXPECT_GE(chen_covering, kRuns * 8 / 10);
    EXPECT_NEAR(knuth_total / kRuns, exact.leaves, 4 * std::sqrt(knuth_variance) / kRuns);
    EXPECT_NEAR(chen_total / kRuns, exact.leaves, 4 * std::sqrt(chen_variance) / kRuns);
  }
}

TEST(Estimate, DeadEndsCountNoLeaves) {
  const auto root = make_candidate<space_property::Candidate>(property_world(kPropertyWorlds[0]));
  ASSERT_GT(enumerate(*root).dead_end_probability, 0);
  std::mt19937_64 rng(1);
  std::size_t dead_ends = 0;
  for (int i = 0; i < 200; ++i) {
    const KnuthSample sample = knuth_sample(*root, rng);
    if (sample.dead_end) {
      ++dead_ends;
      EXPECT_EQ(sample.leaves, 0);
    } else {
      EXPECT_GE(sample.leaves, 1);
    }
  }
  EXPECT_GT(dead_ends, 0u);
}

TEST(Estimate, SameSeedSameEstimateOnAnyThreads) {
  const auto root = make_candidate<space_property::Candidate>(property_world(kPropertyWorlds[1]));
  const KnuthEstimate a = knuth_estimate(*root, 100, seeded(7, 1));
  std::size_t calls = 0;
  std::size_t last = 0;
  Sampling watched = seeded(7, 4);
  watched.on_sample = [&](std::size_t done) {
    ++calls;
    last = std::max(last, done);
  };
  const KnuthEstimate b = knuth_estimate(*root, 100, watched);
  EXPECT_EQ(a.leaves.mean, b.leaves.mean);
  EXPECT_EQ(a.leaves.standard_error, b.leaves.standard_error);
  EXPECT_EQ(a.dead_ends.hits, b.dead_ends.hits);
  EXPECT_EQ(a.propagations, b.propagations);
  EXPECT_EQ(calls, 100u);
  EXPECT_EQ(last, 100u);
  EXPECT_NE(a.leaves.mean, knuth_estimate(*root, 100, seeded(8)).leaves.mean);
  const ChenEstimate c = chen_estimate(*root, 20, seeded(7, 1));
  const ChenEstimate d = chen_estimate(*root, 20, seeded(7, 3));
  EXPECT_EQ(c.leaves.mean, d.leaves.mean);
  EXPECT_EQ(c.propagations, d.propagations);
  EXPECT_NE(c.leaves.mean, chen_estimate(*root, 20, seeded(8)).leaves.mean);
}

// A stop request (a Ctrl-C) ends the sampling: the estimate is that of the samples finished,
// and a probe under way is dropped rather than waited for.
TEST(Estimate, AStopRequestKeepsTheSamplesFinished) {
  const auto root = make_candidate<space_property::Candidate>(property_world(kPropertyWorlds[1]));
  Sampling stopping = seeded(7, 1);
  std::size_t done = 0;
  stopping.on_sample = [&](std::size_t n) { done = n; };
  stopping.stop_requested = [&] { return done >= 5; };
  const KnuthEstimate knuth = knuth_estimate(*root, 100, stopping);
  EXPECT_EQ(knuth.leaves.samples, 5u);
  EXPECT_EQ(knuth.dead_ends.samples, 5u);
  // The first five samples of the seed, as an estimate of five would draw them.
  const KnuthEstimate five = knuth_estimate(*root, 5, seeded(7, 1));
  EXPECT_EQ(knuth.leaves.mean, five.leaves.mean);
  EXPECT_EQ(knuth.mean_depth, five.mean_depth);
  // Samples are drawn a chunk at a time: asking for more than memory could hold is no error.
  done = 0;
  const KnuthEstimate endless =
      knuth_estimate(*root, std::numeric_limits<std::size_t>::max(), stopping);
  EXPECT_EQ(endless.leaves.samples, 5u);
  EXPECT_EQ(endless.leaves.mean, five.leaves.mean);

  // A probe is asked before expanding each depth (in batches of up to 256 strata).
  std::mt19937_64 rng(1);
  std::size_t asked = 0;
  const ChenProbe cut = chen_probe(*root, rng, [&] { return ++asked > 2; });
  EXPECT_FALSE(cut.finished);
  EXPECT_EQ(asked, 3u);
  std::mt19937_64 same(1);
  const ChenProbe complete = chen_probe(*root, same);
  EXPECT_TRUE(complete.finished);
  EXPECT_GT(cut.expanded, 1u);
  EXPECT_LT(cut.expanded, complete.expanded);
  Sampling stopped = seeded(7, 2);
  stopped.stop_requested = [] { return true; };
  const ChenEstimate none = chen_estimate(*root, 10, stopped);
  EXPECT_EQ(none.leaves.samples, 0u);
  EXPECT_EQ(none.mean_expanded, 0);
}

}  // namespace
}  // namespace sculpt::search
