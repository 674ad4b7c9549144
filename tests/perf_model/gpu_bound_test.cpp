// On the GPU (label gpu, skipped without one): the bound is at most the measured time (within 2%
// of noise) of SCULPT_CANDIDATES random candidates (100) of axpy 2^26, matmul 256x256x32 and
// matmul 1024^3, each measured as a search measures it, and of the benchmarks' hand-fixed
// recipes; prints the median and 10th percentile of measured / bound per problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "codegen/device_code.h"
#include "device/cuda_evaluator.h"
#include "search/gpu/code_features.h"
#include "search/gpu/device_evaluator.h"
#include "search/session/device_description.h"
#include "search/session/problem.h"
#include "search/session/session.h"
#include "support/check.h"
#include "tests/recipes/recipes.h"
#include "zoo/zoo.h"

namespace sculpt::perf_model {
namespace {

/// What MCTS learns its model of: the code a candidate of the GPU space becomes.
const search::CodeFeatures kCodeFeatures;

using namespace std::chrono_literals;

constexpr double kNoise = 1.02;

class OnTheGpu : public testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!device::cuda_available(&why)) GTEST_SKIP() << "no GPU to test on: " << why;
  }
  static device::CudaEvaluator& gpu() {
    static auto* evaluator = new device::CudaEvaluator();
    return *evaluator;
  }
  /// The description a search of this GPU reads (an H100's sm_90, an H200's h200).
  static const Description& described() {
    static const Description d = [] {
      std::string error;
      std::optional<Description> found = search::device_description(
          device::Kind::cuda, gpu().architecture(), "", &error, gpu().model());
      SCULPT_CHECK(found) << error;
      return *found;
    }();
    return d;
  }
};

/// Median and 10th percentile of measured / bound.
void report(const std::string& what, std::vector<double> ratios, int violations) {
  ASSERT_FALSE(ratios.empty()) << what;
  std::sort(ratios.begin(), ratios.end());
  std::printf(
      "%s: %zu measured, %d above their bound, measured / bound median %.3g, 10th "
      "percentile %.3g, least %.3g\n",
      what.c_str(), ratios.size(), violations, ratios[ratios.size() / 2],
      ratios[ratios.size() / 10], ratios.front());
}

class GpuBound : public OnTheGpu,
                 public testing::WithParamInterface<std::pair<std::string, std::string>> {};

TEST_P(GpuBound, RandomCandidatesAreNeverFasterThanTheirBound) {
  const auto& [name, size] = GetParam();
  const zoo::ZooLookup lookup = zoo::lookup_kernel(name, size);
  ASSERT_TRUE(lookup.ok()) << lookup.error;
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, described().limits);
  const Model model(kernel, described());
  search::SessionOptions options;
  options.features = &kCodeFeatures;
  options.algorithm = search::AlgorithmKind::random;
  const char* count = std::getenv("SCULPT_CANDIDATES");
  options.evals = count != nullptr ? std::atoi(count) : 100;
  options.budget = 45s;  // the run.sh step holds three and the recipes
  std::vector<double> ratios;
  int violations = 0;
  search::DeviceEvaluator evaluator(gpu(),
                                    search::make_problem(*lookup.info, lookup.sizes, kernel, 5));
  search::Session(*root, evaluator, &model, options).run([&](search::Evaluated&& e) {
    if (e.evaluation.check != device::Check::ok) return;
    const double ratio = *e.evaluation.time_ns / *e.bound_ns;
    ratios.push_back(ratio);
    if (ratio * kNoise < 1 && ++violations <= 3) {
      ADD_FAILURE() << name << " " << size << " candidate " << e.id << ": measured "
                    << *e.evaluation.time_ns << " ns, bound " << *e.bound_ns << " ns\n"
                    << e.code.source.substr(0, 4000);
    }
  });
  report(name + " " + size, ratios, violations);
  EXPECT_EQ(violations, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Problems, GpuBound,
    testing::Values(std::pair<std::string, std::string>{"axpy", "67108864"},
                    std::pair<std::string, std::string>{"matmul", "256x256x32"},
                    std::pair<std::string, std::string>{"matmul", "1024x1024x1024"}),
    [](const auto& param) {
      std::string size = param.param.second;
      std::replace(size.begin(), size.end(), 'x', '_');
      return param.param.first + "_" + size;
    });

class GpuBoundRecipes : public OnTheGpu {};

TEST_F(GpuBoundRecipes, AreNeverFasterThanTheirBound) {
  std::vector<double> ratios;
  int violations = 0;
  for (const recipes::Recipe& r : recipes::benchmark_recipes()) {
    const zoo::ZooLookup lookup = zoo::lookup_kernel(r.kernel, r.sizes);
    const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
    recipes::HandCandidate hand(kernel);
    r.decide(hand);
    const Bound bound = Model(kernel, described()).bound(hand.complete());
    const device::Evaluation e =
        gpu().evaluate(codegen::kernel_code(hand.complete(), device::Language::ptx, "recipe"),
                       search::make_problem(*lookup.info, lookup.sizes, kernel, 5));
    ASSERT_EQ(e.check, device::Check::ok) << r.name << ": " << e.message;
    const double ratio = *e.time_ns / bound.ns;
    std::printf("%s: measured %.4g us, bound %.4g us (%s), measured / bound %.3g\n", r.name.c_str(),
                *e.time_ns / 1e3, bound.ns / 1e3, bound.bottleneck().resource.c_str(), ratio);
    ratios.push_back(ratio);
    if (ratio * kNoise < 1) {
      ++violations;
      ADD_FAILURE() << r.name << ": measured below the bound\n" << bound.explain();
    }
  }
  report("recipes", ratios, violations);
}

}  // namespace
}  // namespace sculpt::perf_model
