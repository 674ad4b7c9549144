// `sculpt bound`: a logged candidate's bound with its breakdown beside its measured time (the
// search logged the same bound), a kernel's root, and one located message with exit 2 for what
// cannot be read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "search/log/event_log.h"
#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"

namespace sculpt::explorer {
namespace {

using namespace search;

TEST(BoundCommand, ExplainsALoggedCandidateAsTheSearchBoundIt) {
  const std::filesystem::path dir = fresh_dir("bound");
  const Outcome search = run_sculpt(small_search(dir, "3"));
  ASSERT_EQ(search.code, kExitOk) << search.err;
  const LogContents log = read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  ASSERT_EQ(log.evaluations.size(), 3u);
  EXPECT_EQ(log.header.model, "cpu");
  const LogEvaluation& e = log.evaluations[1];
  ASSERT_TRUE(e.bound_ns);
  ASSERT_TRUE(e.time_ns);
  EXPECT_GT(*e.bound_ns, 0);
  EXPECT_LE(*e.bound_ns, *e.time_ns);

  const Outcome bound = run_sculpt({"bound", dir.string(), "--id", "1", "--counts"});
  ASSERT_EQ(bound.code, kExitOk) << bound.err;
  EXPECT_NE(bound.out.find("axpy 64 on cpu, candidate 1 of " + (dir / "log.jsonl").string() +
                           ": measured "),
            std::string::npos)
      << bound.out;
  std::smatch ratio;
  ASSERT_TRUE(std::regex_search(bound.out, ratio, std::regex(R"(measured / bound: ([0-9.e+]+))")))
      << bound.out;
  EXPECT_NEAR(std::stod(ratio[1]), *e.time_ns / *e.bound_ns, *e.time_ns / *e.bound_ns * 1e-2);
  EXPECT_NE(bound.out.find("lower bound "), std::string::npos) << bound.out;
  // Without --id, the best candidate; the log file itself names the run too.
  const Outcome best = run_sculpt({"bound", (dir / "log.jsonl").string()});
  ASSERT_EQ(best.code, kExitOk) << best.err;
  EXPECT_NE(best.out.find("candidate "), std::string::npos) << best.out;
}

TEST(BoundCommand, ALogOfAGpuIsBoundWithTheDescriptionOfItsModel) {
  // An H200's search (tests/perf_model/h200/), its header naming the GPU as searches now do.
  std::ifstream in(std::string(SCULPT_SOURCE_DIR) + "/tests/perf_model/h200/axpy_67108864.jsonl");
  std::string header, rest, line;
  std::getline(in, header);
  while (std::getline(in, line)) rest += line + "\n";
  ASSERT_EQ(header.back(), '}');
  header.insert(header.size() - 1, R"x(,"model":"NVIDIA H200 (sm_90)")x");
  const std::filesystem::path dir = fresh_dir("bound_h200");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "log.jsonl") << header << "\n" << rest;

  const Outcome h200 = run_sculpt({"bound", dir.string()});
  ASSERT_EQ(h200.code, kExitOk) << h200.err;
  EXPECT_TRUE(h200.out.starts_with("axpy 67108864 on h200, candidate ")) << h200.out;
  const Outcome asked = run_sculpt({"bound", dir.string(), "--description", "sm_90"});
  ASSERT_EQ(asked.code, kExitOk) << asked.err;
  EXPECT_TRUE(asked.out.starts_with("axpy 67108864 on sm_90, candidate ")) << asked.out;
}

TEST(BoundCommand, ExplainsAKernelsRootOnTheGpu) {
  const Outcome root =
      run_sculpt({"bound", "--kernel", "matmul", "--size", "256x256x32", "--counts"});
  ASSERT_EQ(root.code, kExitOk) << root.err;
  EXPECT_TRUE(root.out.starts_with("matmul 256x256x32 on sm_90, every candidate:\nlower bound "))
      << root.out;
  EXPECT_NE(root.out.find("fp32     device"), std::string::npos) << root.out;
  EXPECT_NE(root.out.find("fma3"), std::string::npos) << root.out;
}

struct BadBound {
  const char* name;
  std::vector<std::string> args;
  std::string message;
};
// CTest lists a case by its name, not its bytes.
void PrintTo(const BadBound& c, std::ostream* out) { *out << c.name; }

class BoundCommandErrors : public testing::TestWithParam<BadBound> {};

TEST_P(BoundCommandErrors, OneMessageAndUsageExit) {
  const Outcome outcome = run_sculpt(GetParam().args);
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_EQ(outcome.err.find("sculpt bound: " + GetParam().message), 0u) << outcome.err;
  EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
}

std::string corrupt_log() {
  const std::filesystem::path dir = fresh_dir("bound_corrupt");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "log.jsonl") << "{\"kind\":\"header\"\n";
  return dir.string();
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, BoundCommandErrors,
    testing::Values(
        BadBound{"NothingToBound", {"bound"}, "give a search's log"},
        BadBound{"LogAndKernel", {"bound", "x", "--kernel", "axpy"}, "give a search's log"},
        BadBound{"SizeWithALog", {"bound", "x", "--size", "64"}, "--size goes with --kernel"},
        BadBound{"UnknownKernel", {"bound", "--kernel", "nope"}, "unknown kernel 'nope'"},
        BadBound{"NoSuchLog", {"bound", "/no/such/run"}, "/no/such/run"},
        BadBound{"CorruptLog", {"bound", corrupt_log()}, corrupt_log() + "/log.jsonl:1: "},
        BadBound{"NoSuchDescription",
                 {"bound", "--kernel", "axpy", "--description", "sm_12"},
                 "sm_12: neither a shipped description"}),
    [](const auto& param) { return param.param.name; });

}  // namespace
}  // namespace sculpt::explorer
