// The zoo the registry builds from its definitions (zoo/zoo.tc) against the zoo by hand
// (tests/zoo/): the same backbone for every kernel the language defines, the same lowered code
// for the same candidates of the matmul family, and derived references that agree with the
// hand-written ones.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "codegen/lower.h"
#include "gpu_space/space.h"
#include "perf_model/description.h"
#include "search/session/descent.h"
#include "tests/zoo/hand_written.h"
#include "zoo/zoo.h"

namespace sculpt::frontend {
namespace {

const backbone::KernelInfo& hand(const std::string& name) {
  const backbone::KernelInfo* info = hand_written::find(name);
  EXPECT_NE(info, nullptr) << name;
  return *info;
}

std::vector<std::string> defined_names() {
  std::vector<std::string> names;
  for (const backbone::KernelInfo& info : hand_written::kernels()) names.push_back(info.name);
  return names;
}

// The binary carries zoo.tc as it is in the source tree.
TEST(ZooDefinitions, TheRegistryEmbedsZooTc) {
  std::ifstream in(std::string(SCULPT_SOURCE_DIR) + "/zoo/zoo.tc", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(zoo::zoo_definitions(), text.str());
}

// Every zoo kernel but strided_matmul, which the language cannot say, comes from its
// definition and has a kernel by hand to be held to.
TEST(ZooDefinitions, EveryKernelButStridedMatmulIsHeldToOneByHand) {
  for (const backbone::KernelInfo& info : zoo::kernel_zoo()) {
    EXPECT_EQ(hand_written::find(info.name) == nullptr, info.name == "strided_matmul") << info.name;
  }
  for (const backbone::KernelInfo& info : hand_written::kernels()) {
    EXPECT_NE(zoo::find_kernel(info.name), nullptr) << info.name;
  }
}

class ZooBackbones : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooBackbones, TheDefinitionBuildsTheBackboneByHand) {
  const backbone::KernelInfo& zoo = *zoo::find_kernel(GetParam());
  const backbone::Sizes sizes = backbone::test_sizes(zoo.sizes);
  EXPECT_EQ(zoo.build(sizes).to_string(), hand(GetParam()).build(sizes).to_string());
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooBackbones, ::testing::ValuesIn(defined_names()),
                         [](const auto& info) { return info.param; });

class ZooReferences : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooReferences, TheDerivedReferenceAgreesWithTheHandWrittenOne) {
  const backbone::KernelInfo& zoo = *zoo::find_kernel(GetParam());
  const backbone::Sizes sizes = backbone::test_sizes(zoo.sizes);
  const backbone::Kernel kernel = zoo.build(sizes);
  backbone::HostArgs by_hand = backbone::make_host_args(kernel, 7);
  backbone::HostArgs derived = by_hand;
  hand(GetParam()).reference(sizes, by_hand);
  zoo.reference(sizes, derived);
  // Bit for bit, but gesummv: its definition rounds A . x and B . x to floats, as the device
  // does, where the hand-written reference keeps them in double.
  const double tolerance = GetParam() == "gesummv" ? backbone::default_tolerance(kernel) : 0;
  const std::optional<backbone::Mismatch> mismatch =
      backbone::compare_outputs(kernel, by_hand, derived, tolerance);
  EXPECT_FALSE(mismatch) << mismatch->to_string();
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooReferences, ::testing::ValuesIn(defined_names()),
                         [](const auto& info) { return info.param; });

class MatmulFamily : public ::testing::TestWithParam<std::string> {};

// Random candidates of the zoo's kernel, replayed on the kernel by hand: the same code.
TEST_P(MatmulFamily, TheSameCandidatesLowerToTheSameCode) {
  const backbone::KernelInfo& zoo = *zoo::find_kernel(GetParam());
  const backbone::Sizes sizes = backbone::test_sizes(zoo.sizes);
  const gpu_space::DeviceDescription limits = perf_model::Description::named("sm_90").limits;
  const auto zoo_root = gpu_space::make_root(zoo.build(sizes), limits);
  const auto hand_root = gpu_space::make_root(hand(GetParam()).build(sizes), limits);
  std::mt19937_64 rng(11);
  int compared = 0;
  for (int i = 0; i < 40; ++i) {
    search::Descent descent = search::random_descent(*zoo_root, rng);
    if (!descent.candidate) continue;
    const std::unique_ptr<spacegen::CandidateBase> replayed = hand_root->clone();
    ASSERT_EQ(replayed->apply(descent.actions), spacegen::Status::Ok);
    EXPECT_EQ(codegen::lower(static_cast<const gpu_space::Candidate&>(*descent.candidate)).dump(),
              codegen::lower(static_cast<const gpu_space::Candidate&>(*replayed)).dump());
    ++compared;
  }
  EXPECT_GE(compared, 10);
}

INSTANTIATE_TEST_SUITE_P(Zoo, MatmulFamily, ::testing::Values("matmul", "matmul_ta", "matmul_tb"));

}  // namespace
}  // namespace sculpt::frontend
