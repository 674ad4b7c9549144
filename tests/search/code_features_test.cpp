// The learnt model's features: the loops around each instruction, and the grid. The paper's
// outer product in its two nestings shares only what does not depend on which loop is inside.
#include "search/code_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "backbone/builder.h"
#include "codegen/lower.h"
#include "search/hand_candidate.h"

namespace sculpt::search {
namespace {

namespace v = gpu_space::values;

/// C[i, j] = A[i] * B[j] (Table 1 of the paper), every loop sequential and fused across nests,
/// d_i outside d_j or inside it: the features of the code it becomes.
std::vector<std::uint64_t> outer_product_features(bool i_outside) {
  using namespace backbone;
  Builder b("outer_product");
  Size m = b.size("m", 4), n = b.size("n", 3);
  Array A = b.array("A", ElemType::kF32, {m}, MemRegion::Kind::kInput);
  Array B = b.array("B", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array C = b.array("C", ElemType::kF32, {m, n}, MemRegion::Kind::kOutput);
  Dim I = b.dim("i", m), J = b.dim("j", n);
  Value a = b.load(A, {I});  // load0 (i0), then load1 (j1), mul2 (i2, j3), store3 (i4, j5)
  Value bj = b.load(B, {J});
  b.store(C, {I, J}, b.mul(a, bj));
  HandCandidate d(std::move(b).finish());
  for (const char* dim : {"i0", "j1", "i2", "j3", "i4", "j5"}) d.kind(dim, v::dim_kind::LOOP);
  for (const char* src : {"i0", "j1", "i2", "j3"}) d.mapping(src, v::dim_mapping::MERGED);
  if (i_outside) {
    d.order("i0", "j1", v::order::OUTER).order("load0", "j1", v::order::BEFORE);
  } else {
    d.order("j1", "i0", v::order::OUTER).order("load1", "i0", v::order::BEFORE);
  }
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
