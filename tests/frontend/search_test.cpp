// Kernels from definitions alone, through sculpt's front doors: `sculpt search --def/--expr` on
// the CPU device with every candidate checked against the derived reference (the kernels of
// frontend/examples/kernels.tc, none of which is in the zoo, selects included), `sculpt kernels
// --def`, the report and replay of a definition's run folder, located errors with exit code 2.
#include <gtest/gtest.h>

#include <filesystem>

#include "frontend/definition.h"
#include "search/log/event_log.h"
#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"
#include "tests/frontend/new_kernels.h"

namespace sculpt::explorer {
namespace {

using frontend::testing::kKernelsFile;
using frontend::testing::NewKernel;

class DefinedKernels : public ::testing::TestWithParam<NewKernel> {};

// Five candidates each, every one checked ok against the reference derived from the definition.
TEST_P(DefinedKernels, SearchOnTheCpuWithEveryCandidateChecked) {
  const NewKernel& k = GetParam();
  const std::filesystem::path dir = fresh_dir("defined_" + k.name);
  const Outcome outcome =
      run_sculpt({"search", "--def", kKernelsFile, "--kernel", k.name, "--size", k.sizes,
                  "--device", "cpu", "--evals", "5", "--cutoff", "0", "--out", dir.string()});
  ASSERT_EQ(outcome.code, kExitOk) << outcome.err;
  EXPECT_NE(outcome.out.find(": 5 evaluated (5 ok)"), std::string::npos) << outcome.out;
  const search::LogContents log = search::read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  EXPECT_EQ(log.header.kernel, k.name);
  ASSERT_EQ(log.evaluations.size(), 5u);
  for (const search::LogEvaluation& e : log.evaluations) EXPECT_EQ(e.check, "ok") << e.message;
  // The run folder keeps the definition: its report was written from it.
  EXPECT_TRUE(std::filesystem::exists(dir / frontend::kRunDefinitionFile));
  EXPECT_NE(outcome.out.find("report: "), std::string::npos) << outcome.err;
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Kernels, DefinedKernels,
                         ::testing::ValuesIn(frontend::testing::new_kernels()),
                         [](const auto& info) { return info.param.name; });

TEST(DefinedKernel, FromTheCommandLineThenReplayed) {
  const std::filesystem::path dir = fresh_dir("defined_expr");
  const Outcome outcome = run_sculpt(
      {"search", "--expr", "def scale(float(N) X, float s) -> (Y) { Y(i) = s * X(i) + 1 }",
       "--size", "N=64", "--device", "cpu", "--evals", "2", "--out", dir.string()});
  ASSERT_EQ(outcome.code, kExitOk) << outcome.err;
  EXPECT_NE(outcome.out.find("scale 64 on cpu: 2 evaluated (2 ok)"), std::string::npos)
      << outcome.out;
  const Outcome replayed = run_sculpt({"replay", dir.string(), "--id", "1"});
  ASSERT_EQ(replayed.code, kExitOk) << replayed.err;
  EXPECT_NE(replayed.out.find("kernel scale"), std::string::npos) << replayed.out;
  std::filesystem::remove_all(dir);
}

TEST(DefinedKernel, MistakesAreLocatedWithExitCode2) {
  const Outcome bad = run_sculpt({"search", "--expr",
                                  "def f(float(M,K) A, float(L,N) B) -> (C) { C(m,n) +=! A(m,k) "
                                  "* B(k,n) }",
                                  "--size", "M=2,K=2,L=2,N=2", "--device", "cpu"});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_EQ(bad.err,
            "sculpt search: --expr:1:66: error: mismatched sizes: index 'k' ranges over 0:L here "
            "but over 0:K at 1:59\n");
  const Outcome positional =
      run_sculpt({"search", "--def", kKernelsFile, "--kernel", "row_sum", "--size", "4x4"});
  EXPECT_EQ(positional.code, kExitUsage);
  EXPECT_EQ(positional.err,
            "sculpt search: the sizes of a definition are given by name: --size M=...,N=...\n");
  const Outcome empty = run_sculpt({"search", "--def", kKernelsFile, "--kernel", "conv1d", "--size",
                                    "M=3,N=5", "--device", "cpu"});
  EXPECT_EQ(empty.code, kExitUsage);
  EXPECT_NE(empty.err.find("kernels.tc:16:5: error: index 'i' ranges over 0:M - N + 1, empty for "
                           "M=3, N=5"),
            std::string::npos)
      << empty.err;
  const Outcome nothing = run_sculpt({"search", "--device", "cpu"});
  EXPECT_EQ(nothing.code, kExitUsage);
  EXPECT_EQ(nothing.err, "sculpt search: --kernel, --def or --expr is required\n");
}

TEST(DefinedKernel, KernelsDescribesADefinition) {
  const Outcome outcome = run_sculpt({"kernels", "--def", kKernelsFile, "--kernel", "conv1d"});
  ASSERT_EQ(outcome.code, kExitOk) << outcome.err;
  EXPECT_EQ(outcome.out,
            "conv1d: O(i) +=! I(i + x) * K(x)\n"
            "sizes: M, N\n"
            "  I: input f32(M)\n"
            "  K: input f32(N)\n"
            "  O: output f32(M - N + 1)\n"
            "dimensions: i in 0:M - N + 1, x in 0:N (reduced)\n");
  const Outcome sized =
      run_sculpt({"kernels", "--def", kKernelsFile, "--kernel", "conv1d", "--size", "M=10,N=3"});
  ASSERT_EQ(sized.code, kExitOk) << sized.err;
  EXPECT_NE(sized.out.find("  i_size   size   i32 = 8\n"), std::string::npos) << sized.out;
  const Outcome several = run_sculpt({"kernels", "--def", kKernelsFile});
  EXPECT_EQ(several.code, kExitUsage);
  EXPECT_NE(several.err.find("defines 9 kernels"), std::string::npos) << several.err;
}

}  // namespace
}  // namespace sculpt::explorer
