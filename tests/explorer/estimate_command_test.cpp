// `sculpt estimate`: the report of both methods on a small kernel, its determinism for a seed
// whatever the number of threads, a Ctrl-C that keeps the samples finished, and the user errors
// (unknown kernel, malformed size, bad method, no samples or probes, negative or absurd jobs) that
// exit with the usage code and one message on stderr.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"

namespace sculpt::explorer {
namespace {

Outcome run_estimate(std::vector<std::string> args) {
  args.insert(args.begin(), "estimate");
  return run_sculpt(std::move(args));
}

TEST(EstimateCommand, ReportsBothMethods) {
  const Outcome outcome =
      run_estimate({"--kernel", "axpy", "--size", "1024", "--samples", "2", "--seed", "3"});
  ASSERT_EQ(outcome.code, kExitOk) << outcome.err;
  EXPECT_EQ(outcome.out.rfind("axpy 1024 on sm_90: ", 0), 0u) << outcome.out;
  EXPECT_NE(outcome.out.find("\nknuth  "), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("] 95%, largest sample "), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("% of the sum, 2 samples, dead ends "), std::string::npos)
      << outcome.out;
  EXPECT_NE(outcome.out.find("\nchen   "), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("% of the sum, 2 probes, "), std::string::npos) << outcome.out;
  EXPECT_TRUE(outcome.err.empty()) << outcome.err;
}

// A Ctrl-C stops the sampling: the estimates of the samples finished are printed, Chen's is not
// started, and the exit status says which signal.
TEST(EstimateCommand, ACtrlCPrintsTheEstimateOfTheSamplesFinished) {
  // Once the command catches SIGINT (it does while it samples), and a few samples later.
  Interrupter interrupter([] {
    if (!Interrupter::command_catches()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return true;
  });
  const Outcome outcome = run_estimate({"--kernel", "matmul", "--size", "256x256x32", "--samples",
                                        "10000000", "-j", "1", "--method", "both"});
  interrupter.stop();
  EXPECT_EQ(outcome.code, kExitInterrupted + SIGINT) << outcome.err;
  EXPECT_NE(outcome.out.find(" of 10000000 samples, dead ends "), std::string::npos) << outcome.out;
  EXPECT_EQ(outcome.out.find("\nchen "), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.err.find("sculpt estimate: interrupted by SIGINT (Interrupt); the estimates "
                             "are of the samples finished\n"),
            std::string::npos)
      << outcome.err;
}

// The model's cut on a kernel's tree: a line with the nodes at the depth and the share of them the
// bound keeps. No candidate of matmul 256x256x32 is faster than the launch floor: a cut at 1 ns
// keeps none.
TEST(EstimateCommand, CutsTheTreeWithTheBound) {
  const Outcome kept = run_estimate({"--kernel", "matmul", "--size", "256x256x32", "--method",
                                     "knuth", "--samples", "20", "--cut", "1s", "--depth", "4"});
  ASSERT_EQ(kept.code, kExitOk) << kept.err;
  EXPECT_NE(kept.out.find("\ncut    at 1 s on depth 4 (20 samples, "), std::string::npos)
      << kept.out;
  EXPECT_NE(kept.out.find(", 100% of them with a bound below the cut; of the "), std::string::npos)
      << kept.out;
  const Outcome none = run_estimate({"--kernel", "matmul", "--size", "256x256x32", "--method",
                                     "knuth", "--samples", "20", "--cut", "1ns"});
  ASSERT_EQ(none.code, kExitOk) << none.err;
  EXPECT_NE(none.out.find(" on depth 10 "), std::string::npos) << none.out;
  EXPECT_NE(none.out.find(", 0% of them with a bound below the cut; "), std::string::npos)
      << none.out;
}

TEST(EstimateCommand, ProbesApartFromSamples) {
  const Outcome outcome = run_estimate(
      {"--kernel", "axpy", "--size", "1024", "--samples", "4", "--probes", "1", "--seed", "3"});
  ASSERT_EQ(outcome.code, kExitOk) << outcome.err;
  EXPECT_NE(outcome.out.find("% of the sum, 4 samples, "), std::string::npos) << outcome.out;
  // One probe shows no spread: no interval rather than an empty one around the mean.
  EXPECT_NE(outcome.out.find("  (no interval), 1 probe, "), std::string::npos) << outcome.out;
}

TEST(EstimateCommand, ChenTakesAtMostTenProbesUnlessAsked) {
  const Outcome outcome = run_estimate({"--kernel", "axpy", "--size", "1024", "--samples", "12"});
  ASSERT_EQ(outcome.code, kExitOk) << outcome.err;
  EXPECT_NE(outcome.out.find("% of the sum, 12 samples, "), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("% of the sum, 10 probes, "), std::string::npos) << outcome.out;
}

TEST(EstimateCommand, SameSeedSameReportOnAnyThreads) {
  auto report = [](const std::string& jobs) {
    const Outcome outcome = run_estimate({"--kernel", "axpy", "--size", "1024", "--method", "knuth",
                                          "--samples", "10", "--seed", "5", "--jobs", jobs});
    // The report ends with ", <seconds> s, <rate>/s": keep what precedes the seconds.
    return outcome.out.substr(0, outcome.out.rfind(", ", outcome.out.find(" s, ")));
  };
  const std::string one = report("1");
  EXPECT_NE(one.find("10 samples"), std::string::npos) << one;
  EXPECT_EQ(one, report("1"));
  EXPECT_EQ(one, report("3"));
}

struct BadEstimate {
  std::string name;
  std::vector<std::string> args;
  std::string message;
};

class EstimateCommandErrors : public testing::TestWithParam<BadEstimate> {};

TEST_P(EstimateCommandErrors, OneMessageAndUsageExit) {
  const Outcome outcome = run_estimate(GetParam().args);
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_TRUE(outcome.out.empty()) << outcome.out;
  EXPECT_EQ(outcome.err.rfind("sculpt estimate: " + GetParam().message, 0), 0u) << outcome.err;
  EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, EstimateCommandErrors,
    testing::Values(
        BadEstimate{"UnknownKernel", {"--kernel", "axpyy"}, "unknown kernel 'axpyy' (known: axpy"},
        BadEstimate{"MalformedSize",
                    {"--kernel", "matmul", "--size", "256x256"},
                    "size '256x256' has 2 fields"},
        BadEstimate{"BadMethod",
                    {"--kernel", "axpy", "--method", "exact"},
                    "--method is 'exact', not knuth, chen or both"},
        BadEstimate{"ZeroSamples",
                    {"--kernel", "axpy", "--samples", "0"},
                    "--samples is 0, not a positive number"},
        BadEstimate{"NegativeSamples",
                    {"--kernel", "axpy", "--samples", "-3"},
                    "--samples is -3, not a positive number"},
        BadEstimate{"ZeroProbes",
                    {"--kernel", "axpy", "--probes", "0"},
                    "--probes is 0, not a positive number"},
        BadEstimate{"NegativeJobs",
                    {"--kernel", "axpy", "--jobs", "-1"},
                    "--jobs is -1, not 0 (every hardware thread) or a count up to 1024"},
        BadEstimate{"MalformedCut",
                    {"--kernel", "axpy", "--cut", "55.5 us"},
                    "malformed --cut '55.5 us' (expected a time: 55.5us, 1.2ms)"},
        BadEstimate{"NegativeDepth",
                    {"--kernel", "axpy", "--cut", "1us", "--depth", "-1"},
                    "--depth is -1, not a number of decisions"},
        BadEstimate{"UnknownDescription",
                    {"--kernel", "axpy", "--description", "sm_12"},
                    "sm_12: neither a shipped description"},
        BadEstimate{"TooManyJobs",
                    {"--kernel", "axpy", "--jobs", "100000"},
                    "--jobs is 100000, not 0 (every hardware thread) or a count up to 1024"}),
    [](const auto& param) { return param.param.name; });

// Parse errors reach main(), which reports them and exits with the usage code.
TEST(EstimateCommand, MissingKernelIsAParseError) {
  EXPECT_THROW(run_estimate({"--size", "1024"}), CLI::RequiredError);
}

}  // namespace
}  // namespace sculpt::explorer
