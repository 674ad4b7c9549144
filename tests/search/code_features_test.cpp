// The learnt model's features: the loops around each instruction, and the grid. The paper's
// outer product in its two nestings shares only what does not depend on which loop is inside.
#include "search/gpu/code_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "codegen/lower.h"
#include "tests/codegen/golden_candidates.h"
#include "tests/recipes/hand_candidate.h"

namespace sculpt::search {
namespace {

/// The features of the paper's outer product (C[i, j] = A[i] * B[j]) with every loop
/// sequential and fused across nests, d_i outside d_j or inside it (golden_candidates.h).
std::vector<std::uint64_t> outer_product_features(bool i_outside) {
  recipes::HandCandidate d(testing::outer_product());
  testing::decide_outer_product_nesting(d, i_outside);
  const gpu_space::Candidate& candidate = d.complete();
  return code_features(codegen::lower(candidate), candidate.backbone().kernel());
}

TEST(CodeFeatures, NameTheLoopsAroundEachInstructionAndTheGrid) {
  const std::vector<std::uint64_t> i_outside = outer_product_features(true);
  const std::vector<std::uint64_t> j_outside = outer_product_features(false);
  EXPECT_EQ(outer_product_features(true), i_outside);
  // Two per loop around an instruction (with and without its size), at most the two innermost:
  // the load outside the inner loop has one loop, the other load, the mul and the store two;
  // one per instruction for the loops over threads around it (none here); and the blocks and
  // threads.
  EXPECT_EQ(i_outside.size(), 2 * (1 + 2 + 2 + 2) + 4 + 2u);
  EXPECT_EQ(j_outside.size(), i_outside.size());
  ASSERT_TRUE(std::is_sorted(i_outside.begin(), i_outside.end()));
  ASSERT_TRUE(std::is_sorted(j_outside.begin(), j_outside.end()));
  std::vector<std::uint64_t> shared;
  std::set_intersection(i_outside.begin(), i_outside.end(), j_outside.begin(), j_outside.end(),
                        std::back_inserter(shared));
  // Shared: the grid, the loops over threads (none), and each load's innermost loop (its own
  // dimension either way); the mul and the store have the other dimension innermost.
  EXPECT_EQ(shared.size(), 2u + 4 + 2 + 2);
}

}  // namespace
}  // namespace sculpt::search
