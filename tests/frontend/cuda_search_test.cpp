// The kernels of definitions alone searched with `--device cuda` on the fake CUDA driver, whose
// PTX emulator runs each candidate: every candidate's PTX (affine accesses, strides and all)
// computes what the reference derived from the definition computes. Needs no GPU.
#include <gtest/gtest.h>

#include <filesystem>

#include "search/log/event_log.h"
#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"
#include "tests/frontend/new_kernels.h"

namespace sculpt::explorer {
namespace {

using frontend::testing::NewKernel;

class DefinedKernelsOnTheFakeGpu : public ::testing::TestWithParam<NewKernel> {};

TEST_P(DefinedKernelsOnTheFakeGpu, EveryCandidateChecksOk) {
  const NewKernel& k = GetParam();
  const std::filesystem::path dir = fresh_dir("defined_cuda_" + k.name);
  const Outcome outcome = run_sculpt({"search", "--def", frontend::testing::kKernelsFile,
                                      "--kernel", k.name, "--size", k.sizes, "--device", "cuda",
                                      "--evals", "5", "--cutoff", "0", "--out", dir.string()});
  ASSERT_EQ(outcome.code, kExitOk) << outcome.err;
  const search::LogContents log = search::read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  EXPECT_EQ(log.header.device, device::Kind::cuda);
  ASSERT_EQ(log.evaluations.size(), 5u);
  for (const search::LogEvaluation& e : log.evaluations) EXPECT_EQ(e.check, "ok") << e.message;
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Kernels, DefinedKernelsOnTheFakeGpu,
                         ::testing::ValuesIn(frontend::testing::new_kernels()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace sculpt::explorer
