// Golden tests of the lowered kernel for hand-fixed candidates: the two nestings of the paper's
// outer product (listing 8) and a tiled matmul staging its tiles in shared memory, and the C the
// C printer makes of that matmul. Run with SCULPT_ACCEPT_GOLDEN=1 to rewrite the golden files
// after an intended change.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "codegen/c_printer.h"
#include "codegen/lower.h"
#include "tests/codegen/golden_candidates.h"
#include "tests/recipes/hand_candidate.h"
#include "zoo/zoo.h"

namespace sculpt::codegen {
namespace {

using Decide = recipes::HandCandidate;

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

/// The lowered outer product (golden_candidates.h), d_i outside d_j or inside it.
std::string outer_product_nesting(bool i_outside) {
  Decide d(testing::outer_product());
  testing::decide_outer_product_nesting(d, i_outside);
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
