// Golden tests of the lowered kernel for hand-fixed candidates: the two nestings of the paper's
// outer product (listing 8) and a tiled matmul staging its tiles in shared memory, and the C the
// C printer makes of that matmul. Run with SCULPT_ACCEPT_GOLDEN=1 to rewrite the golden files
// after an intended change.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "backbone/builder.h"
#include "codegen/c_printer.h"
#include "codegen/lower.h"
#include "search/hand_candidate.h"
#include "tests/codegen/golden_candidates.h"
#include "zoo/zoo.h"

namespace sculpt::codegen {
namespace {

using Decide = search::HandCandidate;
namespace v = gpu_space::values;

void expect_golden(const std::string& name, const std::string& text) {
  const std::string path = std::string(SCULPT_TEST_DATA_DIR) + "/golden/" + name + ".txt";
  if (std::getenv("SCULPT_ACCEPT_GOLDEN") != nullptr) {
    std::ofstream(path) << text;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing golden file " << path << " (SCULPT_ACCEPT_GOLDEN=1 writes it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(text, expected.str()) << "lowered kernel differs from " << path;
}

/// C[i, j] = A[i] * B[j] (Table 1 of the paper): a load in each of d_i and d_j.
backbone::Kernel outer_product() {
  using namespace backbone;
  Builder b("outer_product");
  Size m = b.size("m", 4), n = b.size("n", 3);
  Array A = b.array("A", ElemType::kF32, {m}, MemRegion::Kind::kInput);
  Array B = b.array("B", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array C = b.array("C", ElemType::kF32, {m, n}, MemRegion::Kind::kOutput);
  Dim I = b.dim("i", m), J = b.dim("j", n);
  Value a = b.load(A, {I});
  Value bj = b.load(B, {J});
  b.store(C, {I, J}, b.mul(a, bj));
  return std::move(b).finish();
}

/// Every loop sequential and fused across nests; `outer` is d_i or d_j.
std::string outer_product_nesting(bool i_outside) {
  Decide d(outer_product());
  // Nests: load0 (i0), load1 (j1), mul2 (i2, j3), store3 (i4, j5).
  for (const char* dim : {"i0", "j1", "i2", "j3", "i4", "j5"}) d.kind(dim, v::dim_kind::LOOP);
  for (const char* src : {"i0", "j1", "i2", "j3"}) d.mapping(src, v::dim_mapping::MERGED);
  if (i_outside) {
    d.order("i0", "j1", v::order::OUTER).order("load0", "j1", v::order::BEFORE);
  } else {
    d.order("j1", "i0", v::order::OUTER).order("load1", "i0", v::order::BEFORE);
  }
  return lower(d.complete()).dump();
}

TEST(LoweringGolden, OuterProductWithIOutside) {
  expect_golden("outer_product_i_outside", outer_product_nesting(true));
}

TEST(LoweringGolden, OuterProductWithJOutside) {
  expect_golden("outer_product_j_outside", outer_product_nesting(false));
}

/// A 64 x 64 x 32 matmul: 4 x 4 blocks of 8 x 8 threads holding 2 x 2 accumulators each, over
/// k in steps of 8 through shared tiles of A and B that the same threads copy.
LoweredKernel tiled_matmul_with_shared_tiles() {
  Decide d(zoo::find_kernel("matmul")->build(testing::tiled_matmul_sizes()));
  testing::decide_tiled_matmul_with_shared_tiles(d);
  return lower(d.complete());
}

TEST(LoweringGolden, TiledMatmulWithSharedTiles) {
  expect_golden("tiled_matmul_shared", tiled_matmul_with_shared_tiles().dump());
}

/// The C of the same kernel (cpu_candidates_test checks what C computes; this shows what a
/// change to the C printer does to its text).
TEST(CPrinterGolden, TiledMatmulWithSharedTiles) {
  expect_golden("tiled_matmul_shared_c", print_c(tiled_matmul_with_shared_tiles(), "candidate"));
}

}  // namespace
}  // namespace sculpt::codegen
