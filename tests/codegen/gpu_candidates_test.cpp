// Random fully specified candidates of every zoo kernel printed as PTX, run and checked: every
// one must be right. On the GPU (skipped when none answers) at moderate sizes, 200 per kernel;
// and on the fake driver's PTX emulator (tests/device/ptx_emulator.h) at the zoo's test sizes,
// 20 per kernel, which also fails a candidate for a data race or a barrier some threads miss.
// SCULPT_CANDIDATES changes the count. A failure prints the candidate's decisions and its PTX.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>

#include "codegen/device_code.h"
#include "device/cuda_evaluator.h"
#include "perf_model/description.h"
#include "search/session/candidate_evaluator.h"
#include "search/session/descent.h"
#include "search/session/problem.h"
#include "tests/device/fake_cuda.h"
#include "tests/recipes/recipes.h"
#include "tests/zoo/zoo_names.h"
#include "zoo/zoo.h"

namespace sculpt::codegen {
namespace {

int candidates_per_kernel(int otherwise) {
  const char* count = std::getenv("SCULPT_CANDIDATES");
  return count != nullptr ? std::atoi(count) : otherwise;
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

device::CudaEvaluatorOptions checking_options() {
  device::CudaEvaluatorOptions options;
  options.plan.min_runs = options.plan.max_runs = 1;  // checking needs the warm-up run only
  return options;
}

device::CudaEvaluator& gpu() {
  static auto* evaluator = new device::CudaEvaluator(checking_options());
  return *evaluator;
}

device::CudaEvaluator& emulator() {
  static auto* evaluator = [] {
    device::CudaEvaluatorOptions options = checking_options();
    options.worker.driver_library = device::fake_cuda_driver();
    return new device::CudaEvaluator(options);
  }();
  return *evaluator;
}

/// Runs `count` random candidates of kernel `name` at `sizes` on `device`: each must be right.
void check_random_candidates(device::CudaEvaluator& device, const std::string& name,
                             const std::string& sizes, int count) {
  const zoo::ZooLookup lookup = zoo::lookup_kernel(name, sizes);
  ASSERT_TRUE(lookup.ok()) << lookup.error;
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, perf_model::Description::named("sm_90").limits);
  ASSERT_FALSE(root->conflict()) << root->conflict()->to_string();
  const auto problem = search::make_problem(*lookup.info, lookup.sizes, kernel, /*seed=*/9);
  std::mt19937_64 rng(std::hash<std::string>()(name) + 1);
  struct Submitted {
    std::vector<spacegen::Action> actions;
    device::KernelCode code;
    std::future<device::Evaluation> evaluation;
  };
  std::vector<Submitted> submitted;
  for (int i = 0; i < count; ++i) {
    search::Descent descent = search::random_descent(*root, rng);
    if (!descent.candidate) continue;
    device::KernelCode code =
        codegen::kernel_code(static_cast<const gpu_space::Candidate&>(*descent.candidate),
                             device::Language::ptx, "candidate");
    auto future = device.submit(code, problem);
    submitted.push_back({std::move(descent.actions), std::move(code), std::move(future)});
  }
  int failures = 0;
  for (Submitted& s : submitted) {
    const device::Evaluation e = s.evaluation.get();
    if (e.check == device::Check::ok || ++failures > 3) continue;
    std::string actions;
    for (const spacegen::Action& a : s.actions) actions += spacegen::to_json(a) + "\n";
    ADD_FAILURE() << name << ": " << device::to_string(e.check) << ": " << e.message
                  << "\ndecisions:\n"
                  << actions << "PTX:\n"
                  << s.code.source;
  }
  EXPECT_EQ(failures, 0) << failures << " of " << submitted.size() << " candidates failed";
}

class OnTheGpu : public testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!device::cuda_available(&why)) GTEST_SKIP() << "no GPU to test on: " << why;
  }
};

class GpuCandidates : public OnTheGpu, public testing::WithParamInterface<std::string> {};

TEST_P(GpuCandidates, RandomCandidatesComputeTheReference) {
  check_random_candidates(gpu(), GetParam(), kModerateSizes.at(GetParam()),
                          candidates_per_kernel(200));
}

INSTANTIATE_TEST_SUITE_P(Zoo, GpuCandidates, testing::ValuesIn(zoo::zoo_names()),
                         [](const auto& param) { return param.param; });

class EmulatedCandidates : public testing::TestWithParam<std::string> {};

TEST_P(EmulatedCandidates, RandomCandidatesComputeTheReference) {
  const backbone::KernelInfo* info = zoo::find_kernel(GetParam());
  ASSERT_NE(info, nullptr);
  check_random_candidates(emulator(), GetParam(),
                          backbone::format_sizes(backbone::test_sizes(info->sizes)),
                          candidates_per_kernel(20));
}

INSTANTIATE_TEST_SUITE_P(Zoo, EmulatedCandidates, testing::ValuesIn(zoo::zoo_names()),
                         [](const auto& param) { return param.param; });

/// A kernel reading far out of bounds faults; the next candidate still runs right.
void check_fault_is_survived(device::CudaEvaluator& device) {
  const zoo::ZooLookup lookup = zoo::lookup_kernel("axpy", "4096");
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, perf_model::Description::named("sm_90").limits);
  const auto problem = search::make_problem(*lookup.info, lookup.sizes, kernel, 1);
  std::mt19937_64 rng(3);
  search::Descent descent = search::random_descent(*root, rng);
  ASSERT_TRUE(descent.candidate);
  const device::KernelCode good =
      codegen::kernel_code(static_cast<const gpu_space::Candidate&>(*descent.candidate),
                           device::Language::ptx, "candidate");
  // The same kernel with every address moved a terabyte away.
  device::KernelCode faulty = good;
  const std::string load = "cvta.to.global.u64 %prm_x, %prm_x;";
  const std::size_t at = faulty.source.find(load);
  ASSERT_NE(at, std::string::npos);
  faulty.source.insert(at + load.size(), "\n  add.u64 %prm_x, %prm_x, 1099511627776;");
  EXPECT_EQ(device.evaluate(faulty, problem).check, device::Check::fault);
  EXPECT_EQ(device.evaluate(good, problem).check, device::Check::ok);
}

class GpuCandidatesFault : public OnTheGpu {};

TEST_F(GpuCandidatesFault, AFaultingKernelIsSurvived) { check_fault_is_survived(gpu()); }

TEST(EmulatedCandidatesFault, AFaultingKernelIsSurvived) { check_fault_is_survived(emulator()); }

/// The benchmarks' recipes (tests/recipes/recipes.h) at their small sizes.
void check_recipes(device::CudaEvaluator& device) {
  for (const recipes::Recipe& r : recipes::benchmark_recipes()) {
    const zoo::ZooLookup lookup = zoo::lookup_kernel(r.kernel, r.small_sizes);
    ASSERT_TRUE(lookup.ok()) << lookup.error;
    const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
    recipes::HandCandidate hand(kernel);
    r.decide(hand);
    const device::KernelCode code =
        codegen::kernel_code(hand.complete(), device::Language::ptx, "recipe");
    const auto problem = search::make_problem(*lookup.info, lookup.sizes, kernel, /*seed=*/3);
    const device::Evaluation e = device.evaluate(code, problem);
    EXPECT_EQ(e.check, device::Check::ok) << r.name << " at " << r.small_sizes << ": " << e.message;
  }
}

class GpuRecipes : public OnTheGpu {};

TEST_F(GpuRecipes, ComputeTheReference) { check_recipes(gpu()); }

TEST(EmulatedRecipes, ComputeTheReference) { check_recipes(emulator()); }

}  // namespace
}  // namespace sculpt::codegen
