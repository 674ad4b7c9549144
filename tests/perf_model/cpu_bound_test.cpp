// The bound is not trivial on the CPU: every candidate a CPU search checks has a bound above 0
// and at most its measured time, with this machine's description as a search takes it (measured
// once, then kept in the user's cache folder). SCULPT_CANDIDATES candidates per zoo kernel at its
// test sizes (10 in CI, 100 in the slow run); prints the median of measured / bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "device/cpu_evaluator.h"
#include "search/gpu/code_features.h"
#include "search/gpu/device_evaluator.h"
#include "search/session/device_description.h"
#include "search/session/problem.h"
#include "search/session/session.h"
#include "tests/zoo/zoo_names.h"
#include "zoo/zoo.h"

namespace sculpt::perf_model {
namespace {

/// What MCTS learns its model of: the code a candidate of the GPU space becomes.
const search::CodeFeatures kCodeFeatures;

const Description& this_cpu() {
  static const Description d = [] {
    std::string error;
    std::optional<Description> found =
        search::device_description(device::Kind::cpu, {}, "", &error);
    SCULPT_CHECK(found) << error;
    return std::move(*found);
  }();
  return d;
}

class CpuBound : public testing::TestWithParam<std::string> {};

TEST_P(CpuBound, IsAboveZeroAndAtMostEveryMeasuredTime) {
  const backbone::KernelInfo& info = *zoo::find_kernel(GetParam());
  const backbone::Sizes sizes = backbone::test_sizes(info.sizes);
  const backbone::Kernel kernel = info.build(sizes);
  const auto root = gpu_space::make_root(kernel, this_cpu().limits);
  const Model model(kernel, this_cpu());
  device::CpuEvaluator cpu;
  search::SessionOptions options;
  options.features = &kCodeFeatures;
  options.algorithm = search::AlgorithmKind::random;
  const char* count = std::getenv("SCULPT_CANDIDATES");
  options.evals = count != nullptr ? std::atoi(count) : 10;
  options.seed = std::hash<std::string>()(info.name);
  // What the model says of a candidate, for a failure's message.
  auto explain = [&](const std::vector<spacegen::Action>& actions) {
    std::unique_ptr<spacegen::CandidateBase> c = root->clone();
    if (c->apply(actions) == spacegen::Status::Conflict) return std::string("(does not replay)");
    return model.bound(static_cast<const gpu_space::Candidate&>(*c)).explain();
  };
  std::vector<double> ratios;
  const auto problem = search::make_problem(info, sizes, kernel, 3);
  search::DeviceEvaluator evaluator(cpu, problem);
  search::Session(*root, evaluator, &model, options).run([&](search::Evaluated&& e) {
    if (e.evaluation.check != device::Check::ok) return;
    ASSERT_TRUE(e.bound_ns);
    EXPECT_GT(*e.bound_ns, 0);
    EXPECT_LE(*e.bound_ns, *e.evaluation.time_ns) << "candidate " << e.id << "\n"
                                                  << explain(e.actions);
    ratios.push_back(*e.evaluation.time_ns / *e.bound_ns);
  });
  ASSERT_FALSE(ratios.empty());
  std::sort(ratios.begin(), ratios.end());
  std::printf("%s: %zu candidates, median measured / bound %.3g (from %.3g to %.3g)\n",
              info.name.c_str(), ratios.size(), ratios[ratios.size() / 2], ratios.front(),
              ratios.back());
}

INSTANTIATE_TEST_SUITE_P(Zoo, CpuBound, testing::ValuesIn(zoo::zoo_names()),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace sculpt::perf_model
