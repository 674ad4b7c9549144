// `sculpt search`: the user errors (unknown kernel, malformed size or budget, a cutoff under 1,
// a run folder that cannot be made, foreign or corrupt log, a problem larger than memory) that must
// exit with the usage code and one message.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tests/explorer/run_sculpt.h"

namespace sculpt::explorer {
namespace {

struct BadSearch {
  std::string name;
  std::vector<std::string> args;
  std::string message;
};

class SearchCommandErrors : public testing::TestWithParam<BadSearch> {};

TEST_P(SearchCommandErrors, OneMessageAndUsageExit) {
  std::vector<std::string> args = {"search"};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
  const Outcome outcome = run_sculpt(args);
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_NE(outcome.err.find(GetParam().message), std::string::npos) << outcome.err;
  EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, SearchCommandErrors,
    testing::Values(
        BadSearch{"UnknownKernel", {"--kernel", "nope"}, "unknown kernel 'nope'"},
        BadSearch{"SizeArity", {"--kernel", "matmul", "--size", "12x3"}, "has 2 fields"},
        BadSearch{
            "MalformedBudget", {"--kernel", "axpy", "--budget", "5 minutes"}, "malformed --budget"},
        BadSearch{"ZeroEvals", {"--kernel", "axpy", "--evals", "0"}, "--evals must be positive"},
        BadSearch{"CutoffUnderOne",
                  {"--kernel", "axpy", "--cutoff", "0.5"},
                  "--cutoff 0.5 is neither 0 (off) nor a factor of at least 1"},
        BadSearch{
            "UnknownAlgorithm", {"--kernel", "axpy", "--algorithm", "mcts"}, "unknown algorithm"},
        BadSearch{
            "RunFolderCannotBeMade",
            {"--kernel", "axpy", "--size", "64", "--device", "cpu", "--out", "/proc/sculpt_run"},
            "cannot create the run folder /proc/sculpt_run: "},
        BadSearch{"MissingLogOnResume",
                  {"--kernel", "axpy", "--out", "/nonexistent_sculpt_dir/x", "--resume", "--device",
                   "cpu"},
                  "cannot read the log"}),
    [](const auto& param) { return param.param.name; });

TEST(SearchCommandErrors, ForeignAndCorruptLogsAreRefused) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("sculpt_search_errors_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  ASSERT_EQ(run_sculpt({"search", "--kernel", "axpy", "--size", "64", "--device", "cpu", "--evals",
                        "1", "--out", dir.string()})
                .code,
            kExitOk);
  const Outcome again = run_sculpt({"search", "--kernel", "axpy", "--size", "64", "--device", "cpu",
                                    "--evals", "1", "--out", dir.string()});
  EXPECT_EQ(again.code, kExitUsage);
  EXPECT_NE(again.err.find("exists already"), std::string::npos) << again.err;
  const Outcome foreign = run_sculpt({"search", "--kernel", "axpy", "--size", "128", "--device",
                                      "cpu", "--evals", "2", "--out", dir.string(), "--resume"});
  EXPECT_EQ(foreign.code, kExitUsage);
  EXPECT_NE(foreign.err.find("written by another search"), std::string::npos) << foreign.err;
  std::ofstream(dir / "log.jsonl") << "{\"kind\":\"header\",\"format\":7}\n";
  const Outcome corrupt = run_sculpt({"search", "--kernel", "axpy", "--size", "64", "--device",
                                      "cpu", "--evals", "2", "--out", dir.string(), "--resume"});
  EXPECT_EQ(corrupt.code, kExitUsage);
  EXPECT_NE(corrupt.err.find("log.jsonl:1:"), std::string::npos) << corrupt.err;
  std::filesystem::remove_all(dir);
}

// Sizes whose arrays cannot fit in memory stop with the size the problem needs, not with an
// allocation failure (this one would need 7.6 TB: A's elements are 32 apart).
TEST(SearchCommandErrors, ProblemLargerThanMemory) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("sculpt_search_huge_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  const Outcome outcome =
      run_sculpt({"search", "--kernel", "strided_matmul", "--size", "165000x165000x165000",
                  "--device", "cpu", "--evals", "1", "--out", dir.string()});
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_NE(outcome.err.find("cpu device: problem 'strided_matmul' needs 7623 GB of host memory"),
            std::string::npos)
      << outcome.err;
  EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sculpt::explorer
