// Random fully specified candidates of every zoo kernel, at its test sizes, lowered, printed as
// C, compiled, run and checked against the zoo's reference on the CPU device: every one must be
// right (a mismatch is a bug in the space, the lowering or the printer). SCULPT_CANDIDATES
// changes the count (200 by default). A failure prints the candidate's decisions.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "backbone/zoo/zoo.h"
#include "codegen/c_printer.h"
#include "codegen/lower.h"
#include "device/cpu_evaluator.h"
#include "perf_model/description.h"
#include "search/descent.h"
#include "search/problem.h"
#include "tests/backbone/zoo_names.h"

namespace sculpt::codegen {
namespace {

int candidates_per_kernel() {
  const char* count = std::getenv("SCULPT_CANDIDATES");
  return count != nullptr ? std::atoi(count) : 200;
}

class CpuCandidates : public testing::TestWithParam<std::string> {};

TEST_P(CpuCandidates, RandomCandidatesComputeTheReference) {
  const backbone::KernelInfo& info = *backbone::find_kernel(GetParam());
  const backbone::Sizes sizes = backbone::test_sizes(info.sizes);
  const backbone::Kernel kernel = info.build(sizes);
  const auto root = gpu_space::make_root(kernel, perf_model::Description::named("sm_90").limits);
  ASSERT_FALSE(root->conflict()) << root->conflict()->to_string();
  const auto problem = search::make_problem(info, sizes, kernel, /*seed=*/5);
  // Checking needs the warm-up run only; without timing, compilation may overlap measuring.
  device::CpuEvaluatorOptions options;
  options.flags = {"-O1", "-fopenmp", "-fPIC", "-shared"};
  options.plan.min_runs = options.plan.max_runs = 1;
  options.pause_compilation_while_measuring = false;
  device::CpuEvaluator cpu(options);
  std::mt19937_64 rng(std::hash<std::string>()(info.name));
  struct Submitted {
    std::vector<spacegen::Action> actions;
    std::string dump;
    std::future<device::Evaluation> evaluation;
  };
  std::vector<Submitted> submitted;
  int dead_ends = 0;
  for (int i = 0; i < candidates_per_kernel(); ++i) {
    search::Descent descent = search::random_descent(*root, rng);
    if (!descent.candidate) {
      ++dead_ends;
      continue;
    }
    const LoweredKernel lowered =
        lower(static_cast<const gpu_space::Candidate&>(*descent.candidate));
    device::KernelCode code{device::Language::c, print_c(lowered, "candidate"), "candidate", {}};
    submitted.push_back(
        {std::move(descent.actions), lowered.dump(), cpu.submit(std::move(code), problem)});
  }
  for (Submitted& s : submitted) {
    const device::Evaluation e = s.evaluation.get();
    if (e.check == device::Check::ok) continue;
    std::string actions;
    for (const spacegen::Action& a : s.actions) actions += spacegen::to_json(a) + "\n";
    ADD_FAILURE() << info.name << ": " << device::to_string(e.check) << ": " << e.message << "\n"
                  << s.dump << "decisions:\n"
                  << actions;
  }
  RecordProperty("dead_ends", dead_ends);
  RecordProperty("evaluated", static_cast<int>(submitted.size()));
}

INSTANTIATE_TEST_SUITE_P(Zoo, CpuCandidates, testing::ValuesIn(backbone::zoo_names()),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace sculpt::codegen
