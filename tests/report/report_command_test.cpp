// `sculpt report`: the page of a real search beside its log or where --out says, and one located
// message with exit 2 for what cannot be read or written.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "search/log/event_log.h"
#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"

namespace sculpt::explorer {
namespace {

std::string read(const std::filesystem::path& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

std::size_t points(const std::string& html) {
  std::size_t n = 0;
  for (std::size_t at = html.find("class=\"evaluation\""); at != std::string::npos;
       at = html.find("class=\"evaluation\"", at + 1)) {
    ++n;
  }
  return n;
}

TEST(ReportCommand, WritesTheReportOfASearch) {
  const std::filesystem::path dir = fresh_dir("report_command");
  const Outcome search = run_sculpt(small_search(dir, "4"));
  ASSERT_EQ(search.code, kExitOk) << search.err;
  const search::LogContents log = search::read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  const auto ok = std::count_if(log.evaluations.begin(), log.evaluations.end(),
                                [](const search::LogEvaluation& e) { return e.check == "ok"; });

  const Outcome report = run_sculpt({"report", dir.string()});
  ASSERT_EQ(report.code, kExitOk) << report.err;
  EXPECT_EQ(report.out, "axpy 64 on cpu: report of 4 evaluations written to " +
                            (dir / "report.html").string() + "\n");
  const std::string html = read(dir / "report.html");
  EXPECT_EQ(points(html), static_cast<std::size_t>(ok));
  EXPECT_NE(html.find("session 1"), std::string::npos);

  const std::filesystem::path elsewhere = dir / "elsewhere.html";
  const Outcome top = run_sculpt(
      {"report", (dir / "log.jsonl").string(), "--out", elsewhere.string(), "--top", "1"});
  ASSERT_EQ(top.code, kExitOk) << top.err;
  EXPECT_EQ(std::count(top.out.begin(), top.out.end(), '\n'), 1) << top.out;
  const std::string one = read(elsewhere);
  EXPECT_NE(one.find("The fastest 1 candidate<"), std::string::npos);
  std::filesystem::remove_all(dir);
}

struct BadReport {
  const char* name;
  std::vector<std::string> args;
  std::string message;
};
// CTest lists a case by its name, not its bytes.
void PrintTo(const BadReport& c, std::ostream* out) { *out << c.name; }

class ReportCommandErrors : public testing::TestWithParam<BadReport> {};

TEST_P(ReportCommandErrors, OneMessageAndUsageExit) {
  const Outcome outcome = run_sculpt(GetParam().args);
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_EQ(outcome.err.find("sculpt report: " + GetParam().message), 0u) << outcome.err;
  EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
  EXPECT_EQ(outcome.out, "");
}

/// A run folder whose log's second line is damaged.
std::string damaged_log() {
  const std::filesystem::path dir = fresh_dir("report_damaged");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "log.jsonl")
      << R"({"kind":"header","format":1,"kernel":"axpy","sizes":{"n":64},"device":"cpu",)"
      << R"("space_hash":"0","seed":1,"algorithm":"mcts"})"
      << "\n{\"kind\":\"evaluation\"\n";
  return dir.string();
}

/// A log of a kernel the zoo does not have.
std::string unknown_kernel() {
  const std::filesystem::path dir = fresh_dir("report_unknown");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "log.jsonl")
      << R"({"kind":"header","format":1,"kernel":"nope","sizes":{"n":64},"device":"cpu",)"
      << R"("space_hash":"0","seed":1,"algorithm":"mcts"})"
      << "\n";
  return dir.string();
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, ReportCommandErrors,
    testing::Values(
        BadReport{"NoSuchRun", {"report", "/no/such/run"}, "/no/such/run: cannot read the log"},
        BadReport{"DamagedLog", {"report", damaged_log()}, damaged_log() + "/log.jsonl:2: "},
        BadReport{"UnknownKernel",
                  {"report", unknown_kernel()},
                  unknown_kernel() + "/log.jsonl:1: unknown kernel 'nope'"}),
    [](const auto& param) { return param.param.name; });

TEST(ReportCommand, SaysWhenTheReportCannotBeWritten) {
  const std::filesystem::path dir = fresh_dir("report_unwritable");
  ASSERT_EQ(run_sculpt(small_search(dir, "1")).code, kExitOk);
  const Outcome outcome =
      run_sculpt({"report", dir.string(), "--out", (dir / "no/such/report.html").string()});
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_EQ(
      outcome.err.find("sculpt report: cannot write " + (dir / "no/such/report.html").string()), 0u)
      << outcome.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sculpt::explorer
