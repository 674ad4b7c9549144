// Random fully specified candidates of every zoo kernel, at its test sizes, lowered, printed as
// C, compiled, run and checked against the zoo's reference on the CPU device: every one must be
// right (a mismatch is a bug in the space, the lowering or the printer; one in eight keeps its
// block's storage on the heap, as large blocks do), and its C must compile
// without a warning, at -O1 and, for a twentieth of them, with the device's flags (-O3
// -march=native: other passes, other warnings). SCULPT_CANDIDATES changes the count (200 by
// default). A failure prints the candidate's decisions.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <random>

#include "codegen/c_printer.h"
#include "codegen/lower.h"
#include "device/cpu_evaluator.h"
#include "perf_model/description.h"
#include "search/session/descent.h"
#include "search/session/problem.h"
#include "tests/zoo/zoo_names.h"
#include "zoo/zoo.h"

namespace sculpt::codegen {
namespace {

int candidates_per_kernel() {
  const char* count = std::getenv("SCULPT_CANDIDATES");
  return count != nullptr ? std::atoi(count) : 200;
}

class CpuCandidates : public testing::TestWithParam<std::string> {};

TEST_P(CpuCandidates, RandomCandidatesComputeTheReference) {
  const backbone::KernelInfo& info = *zoo::find_kernel(GetParam());
  const backbone::Sizes sizes = backbone::test_sizes(info.sizes);
  const backbone::Kernel kernel = info.build(sizes);
  const auto root = gpu_space::make_root(kernel, perf_model::Description::named("sm_90").limits);
  ASSERT_FALSE(root->conflict()) << root->conflict()->to_string();
  const auto problem = search::make_problem(info, sizes, kernel, /*seed=*/5);
  // Checking needs the warm-up run only; without timing, compilation may overlap measuring.
  device::CpuEvaluatorOptions options;
  options.flags = {"-O1", "-Wall", "-Wextra", "-Werror", "-fopenmp", "-fPIC", "-shared"};
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
    // One in eight keeps its block's storage on the heap, as the printer does past 512 KiB.
    COptions c_options;
    if (i % 8 == 7) c_options.max_stack_bytes = 0;
    device::KernelCode code{
        device::Language::c, print_c(lowered, "candidate", c_options), "candidate", {}};
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

TEST_P(CpuCandidates, RandomCandidatesCompileWithoutWarningsWithTheDeviceFlags) {
  const backbone::KernelInfo& info = *zoo::find_kernel(GetParam());
  const backbone::Sizes sizes = backbone::test_sizes(info.sizes);
  const auto root =
      gpu_space::make_root(info.build(sizes), perf_model::Description::named("sm_90").limits);
  ASSERT_FALSE(root->conflict()) << root->conflict()->to_string();
  std::vector<std::string> flags = device::CpuEvaluatorOptions{}.flags;
  flags.insert(flags.end(), {"-Wall", "-Wextra", "-Werror"});
  device::CCompiler compiler("", flags, "", std::chrono::seconds(120),
                             device::CpuEvaluatorOptions{}.flags_if_accepted);
  std::mt19937_64 rng(std::hash<std::string>()(info.name) + 1);
  std::vector<std::pair<std::string, std::string>> sources;  // (dump, C)
  const int count = std::max(1, candidates_per_kernel() / 20);
  for (int i = 0; static_cast<int>(sources.size()) < count && i < 100 * count; ++i) {
    search::Descent descent = search::random_descent(*root, rng);
    if (!descent.candidate) continue;
    const LoweredKernel lowered =
        lower(static_cast<const gpu_space::Candidate&>(*descent.candidate));
    sources.emplace_back(lowered.dump(), print_c(lowered, "candidate"));
  }
  // Two compilers at a time, each taking every other source.
  std::vector<device::CCompiler::Result> results(sources.size());
  auto compile_from = [&](std::size_t first) {
    for (std::size_t i = first; i < sources.size(); i += 2) {
      results[i] = compiler.compile(sources[i].second);
    }
  };
  auto second = std::async(std::launch::async, compile_from, 1);
  compile_from(0);
  second.get();
  for (std::size_t i = 0; i < sources.size(); ++i) {
    EXPECT_TRUE(results[i].object && results[i].log.empty())
        << info.name << ": " << results[i].log << "\n"
        << sources[i].first;
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, CpuCandidates, testing::ValuesIn(zoo::zoo_names()),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace sculpt::codegen
