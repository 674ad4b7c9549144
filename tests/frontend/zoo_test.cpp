// The zoo in the language (frontend/examples/zoo.tc) against the zoo in C++: the same backbone
// where the language can say it, the same lowered code for the same candidates of the matmul
// family (and the golden tiled matmul of tests/codegen), and derived references that agree with
// the hand-written ones on every zoo kernel the language defines.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "backbone/zoo/zoo.h"
#include "codegen/lower.h"
#include "gpu_space/space.h"
#include "perf_model/description.h"
#include "search/descent.h"
#include "search/hand_candidate.h"
#include "tests/codegen/golden_candidates.h"
#include "tests/frontend/frontend_test_util.h"

namespace sculpt::frontend {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::vector<Definition>& zoo_definitions() {
  static const std::vector<Definition> defs = [] {
    Diagnostics diags;
    const std::string path = std::string(SCULPT_SOURCE_DIR) + "/frontend/examples/zoo.tc";
    std::vector<Definition> loaded = load_definitions(read(path), path, diags);
    EXPECT_FALSE(diags.has_errors()) << testing::printed(diags);
    return loaded;
  }();
  return defs;
}

/// The zoo kernel `name` from its definition, with the zoo's sizes and strip-mining.
backbone::KernelInfo in_the_language(const std::string& name) {
  const backbone::KernelInfo& zoo = *backbone::find_kernel(name);
  for (const Definition& def : zoo_definitions()) {
    if (def.name != name) continue;
    BuildOptions options;
    // The zoo leaves batches untiled, and tiles axpy's vector deeper.
    options.tiling["b"] = backbone::Tiling{};
    if (name == "axpy") {
      options.tiling["n"] =
          backbone::Tiling{{backbone::Tiling::range(2, 1024), backbone::Tiling::range(2, 4)}};
    }
    return kernel_info(std::make_shared<const Definition>(def), zoo.sizes, options);
  }
  ADD_FAILURE() << "zoo.tc does not define " << name;
  return zoo;
}

class ZooBackbones : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooBackbones, TheLanguageBuildsTheZoosBackbone) {
  const backbone::KernelInfo& zoo = *backbone::find_kernel(GetParam());
  const backbone::Sizes sizes = backbone::test_sizes(zoo.sizes);
  EXPECT_EQ(in_the_language(GetParam()).build(sizes).to_string(), zoo.build(sizes).to_string());
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooBackbones,
                         ::testing::Values("matmul", "matmul_ta", "matmul_tb", "batched_matmul",
                                           "tbmm", "mv", "matmul_bias_relu", "axpy"));

class ZooReferences : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooReferences, TheDerivedReferenceAgreesWithTheHandWrittenOne) {
  const backbone::KernelInfo& zoo = *backbone::find_kernel(GetParam());
  const backbone::Sizes sizes = backbone::test_sizes(zoo.sizes);
  const backbone::Kernel kernel = zoo.build(sizes);
  backbone::HostArgs hand = backbone::make_host_args(kernel, 7);
  backbone::HostArgs derived = hand;
  zoo.reference(sizes, hand);
  in_the_language(GetParam()).reference(sizes, derived);
  // Bit for bit, but gesummv: its definition rounds A . x and B . x to floats, as the device
  // does, where the hand-written reference keeps them in double.
  const double tolerance = GetParam() == "gesummv" ? backbone::default_tolerance(kernel) : 0;
  const std::optional<backbone::Mismatch> mismatch =
      backbone::compare_outputs(kernel, hand, derived, tolerance);
  EXPECT_FALSE(mismatch) << mismatch->to_string();
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooReferences,
                         ::testing::Values("matmul", "matmul_ta", "matmul_tb", "batched_matmul",
                                           "tbmm", "mv", "gesummv", "matmul_bias_relu", "mlp2",
                                           "axpy"));

class MatmulFamily : public ::testing::TestWithParam<std::string> {};

// Random candidates of the language's kernel, replayed on the zoo's: the same code.
TEST_P(MatmulFamily, TheSameCandidatesLowerToTheSameCode) {
  const backbone::KernelInfo& zoo = *backbone::find_kernel(GetParam());
  const backbone::Sizes sizes = backbone::test_sizes(zoo.sizes);
  const gpu_space::DeviceDescription limits = perf_model::Description::named("sm_90").limits;
  const auto language_root = gpu_space::make_root(in_the_language(GetParam()).build(sizes), limits);
  const auto zoo_root = gpu_space::make_root(zoo.build(sizes), limits);
  std::mt19937_64 rng(11);
  int compared = 0;
  for (int i = 0; i < 40; ++i) {
    search::Descent descent = search::random_descent(*language_root, rng);
    if (!descent.candidate) continue;
    const std::unique_ptr<spacegen::CandidateBase> replayed = zoo_root->clone();
    ASSERT_EQ(replayed->apply(descent.actions), spacegen::Status::Ok);
    EXPECT_EQ(codegen::lower(static_cast<const gpu_space::Candidate&>(*descent.candidate)).dump(),
              codegen::lower(static_cast<const gpu_space::Candidate&>(*replayed)).dump());
    ++compared;
  }
  EXPECT_GE(compared, 10);
}

INSTANTIATE_TEST_SUITE_P(Zoo, MatmulFamily, ::testing::Values("matmul", "matmul_ta", "matmul_tb"));

// tests/codegen's golden tiled matmul, from the definition.
TEST(MatmulFamily, TheGoldenTiledMatmulFromTheDefinition) {
  search::HandCandidate d(in_the_language("matmul").build(sculpt::testing::tiled_matmul_sizes()));
  sculpt::testing::decide_tiled_matmul_with_shared_tiles(d);
  EXPECT_EQ(codegen::lower(d.complete()).dump(),
            read(std::string(SCULPT_SOURCE_DIR) + "/tests/codegen/golden/tiled_matmul_shared.txt"));
}

}  // namespace
}  // namespace sculpt::frontend
