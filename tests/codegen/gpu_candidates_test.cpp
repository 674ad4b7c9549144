// Random fully specified candidates of every zoo kernel, at moderate sizes, printed as PTX and
// compiled, run and checked on the GPU: every one must be right. Skips when no GPU answers.
// SCULPT_CANDIDATES changes the count (200 by default). A failure prints the candidate's
// decisions and its PTX.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>

#include "backbone/zoo/zoo.h"
#include "device/cuda_evaluator.h"
#include "search/descent.h"
#include "search/problem.h"
#include "search/random_search.h"
#include "tests/backbone/zoo_names.h"

namespace sculpt::codegen {
namespace {

int candidates_per_kernel() {
  const char* count = std::getenv("SCULPT_CANDIDATES");
  return count != nullptr ? std::atoi(count) : 200;
}

/// Sizes large enough for many blocks and threads, small enough for slow candidates.
const std::map<std::string, std::string> kModerateSizes = {{"axpy", "65536"},
                                                           {"matmul", "128x128x64"},
                                                           {"matmul_ta", "128x128x64"},
                                                           {"matmul_tb", "128x128x64"},
                                                           {"strided_matmul", "64x64x32"},
                                                           {"batched_matmul", "4x64x64x32"},
                                                           {"tbmm", "8x26x72x26"},
                                                           {"mv", "512x256"},
                                                           {"gesummv", "256"},
                                                           {"matmul_bias_relu", "128x128x64"},
                                                           {"mlp2", "64x128x64x32"}};

device::CudaEvaluator& gpu() {
  static device::CudaEvaluator* evaluator = [] {
    device::CudaEvaluatorOptions options;
    options.plan.min_runs = options.plan.max_runs = 1;  // checking needs the warm-up run only
    return new device::CudaEvaluator(options);
  }();
  return *evaluator;
}

class GpuCandidates : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why;
    if (!device::cuda_available(&why)) GTEST_SKIP() << "no GPU to test on: " << why;
  }
};

TEST_P(GpuCandidates, RandomCandidatesComputeTheReference) {
  const backbone::ZooLookup lookup =
      backbone::lookup_kernel(GetParam(), kModerateSizes.at(GetParam()));
  ASSERT_TRUE(lookup.ok()) << lookup.error;
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, gpu_space::DeviceDescription::sm90());
  ASSERT_FALSE(root->conflict()) << root->conflict()->to_string();
  const auto problem = search::make_problem(*lookup.info, lookup.sizes, kernel, /*seed=*/9);
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()) + 1);
  struct Submitted {
    std::vector<spacegen::Action> actions;
    device::KernelCode code;
    std::future<device::Evaluation> evaluation;
  };
  std::vector<Submitted> submitted;
  for (int i = 0; i < candidates_per_kernel(); ++i) {
    search::Descent descent = search::random_descent(*root, rng);
    if (!descent.candidate) continue;
    device::KernelCode code =
        search::kernel_code(static_cast<const gpu_space::Candidate&>(*descent.candidate),
                            device::Language::ptx, "candidate");
    auto future = gpu().submit(code, problem);
    submitted.push_back({std::move(descent.actions), std::move(code), std::move(future)});
  }
  int failures = 0;
  for (Submitted& s : submitted) {
    const device::Evaluation e = s.evaluation.get();
    if (e.check == device::Check::ok || ++failures > 3) continue;
    std::string actions;
    for (const spacegen::Action& a : s.actions) actions += spacegen::to_json(a) + "\n";
    ADD_FAILURE() << GetParam() << ": " << device::to_string(e.check) << ": " << e.message
                  << "\ndecisions:\n"
                  << actions << "PTX:\n"
                  << s.code.source;
  }
  EXPECT_EQ(failures, 0) << failures << " of " << submitted.size() << " candidates failed";
}

INSTANTIATE_TEST_SUITE_P(Zoo, GpuCandidates, testing::ValuesIn(backbone::zoo_names()),
                         [](const auto& param) { return param.param; });

/// A kernel reading far out of bounds faults; the next candidate still runs right.
TEST(GpuCandidatesFault, AFaultingKernelIsSurvived) {
  std::string why;
  if (!device::cuda_available(&why)) GTEST_SKIP() << "no GPU to test on: " << why;
  const backbone::ZooLookup lookup = backbone::lookup_kernel("axpy", "4096");
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, gpu_space::DeviceDescription::sm90());
  const auto problem = search::make_problem(*lookup.info, lookup.sizes, kernel, 1);
  std::mt19937_64 rng(3);
  search::Descent descent = search::random_descent(*root, rng);
  ASSERT_TRUE(descent.candidate);
  const device::KernelCode good =
      search::kernel_code(static_cast<const gpu_space::Candidate&>(*descent.candidate),
                          device::Language::ptx, "candidate");
  // The same kernel with every address moved a terabyte away.
  device::KernelCode faulty = good;
  const std::string load = "cvta.to.global.u64 %prm_x, %prm_x;";
  const std::size_t at = faulty.source.find(load);
  ASSERT_NE(at, std::string::npos);
  faulty.source.insert(at + load.size(), "\n  add.u64 %prm_x, %prm_x, 1099511627776;");
  EXPECT_EQ(gpu().evaluate(faulty, problem).check, device::Check::fault);
  EXPECT_EQ(gpu().evaluate(good, problem).check, device::Check::ok);
}

}  // namespace
}  // namespace sculpt::codegen
