// `sculpt search` on the CPU device: the event log's format (an evaluation cut short says so),
// resuming a search (after a crash, or after a Ctrl-C), the best code saved, a search started
// from another one's fastest candidates.
#include <gtest/gtest.h>

#include <filesystem>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>

#include "search/log/best_code.h"
#include "search/log/event_log.h"
#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"
#include "tests/support/full_disk.h"

namespace sculpt::explorer {
namespace {

using namespace search;

TEST(SearchCommand, LogsEveryEvaluationAndResumes) {
  const std::filesystem::path dir = fresh_dir("resume");
  // --cutoff 0: every candidate timed in full, so that a loaded machine kills none as a timeout.
  const Outcome first =
      run_sculpt({"search", "--kernel", "axpy", "--size", "256", "--device", "cpu", "--evals", "6",
                  "--seed", "3", "--cutoff", "0", "--out", dir.string()});
  ASSERT_EQ(first.code, kExitOk) << first.err;
  EXPECT_NE(first.out.find("best: candidate"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("code in " + (dir / "best.c").string()), std::string::npos) << first.out;

  LogContents log = read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  EXPECT_EQ(log.header.kernel, "axpy");
  EXPECT_EQ(log.header.device, device::Kind::cpu);
  EXPECT_EQ(log.header.seed, 3u);
  EXPECT_EQ(log.header.sizes, (std::vector<std::pair<std::string, std::int64_t>>{{"n", 256}}));
  ASSERT_EQ(log.evaluations.size(), 6u);
  for (std::size_t i = 0; i < log.evaluations.size(); ++i) {
    const LogEvaluation& e = log.evaluations[i];
    EXPECT_EQ(e.id, static_cast<std::int64_t>(i));
    EXPECT_EQ(e.check, "ok") << e.message;
    EXPECT_TRUE(e.time_ns.has_value());
    EXPECT_FALSE(e.actions.empty());
  }
  // The summary gives the best time in a unit that suits it, its spread in the same unit.
  std::smatch best;
  ASSERT_TRUE(std::regex_search(
      first.out, best,
      std::regex(
          R"(best: candidate (\d+), ([0-9.]+) (ns|us|ms|s) \(spread [0-9.e+-]+ \3 over \d+ runs\))")))
      << first.out;
  const LogEvaluation& logged = log.evaluations.at(std::stoul(best[1]));
  const double scale = best[3] == "ns" ? 1 : best[3] == "us" ? 1e3 : best[3] == "ms" ? 1e6 : 1e9;
  EXPECT_NEAR(std::stod(best[2]) * scale, *logged.time_ns, *logged.time_ns * 1e-3) << first.out;
  EXPECT_GE(std::stod(best[2]), 1) << first.out;
  EXPECT_LT(std::stod(best[2]), 1000) << first.out;

  // Resuming continues the log up to the new total, with fresh ids.
  const Outcome resumed =
      run_sculpt({"search", "--kernel", "axpy", "--size", "256", "--device", "cpu", "--evals", "9",
                  "--seed", "3", "--cutoff", "0", "--out", dir.string(), "--resume"});
  ASSERT_EQ(resumed.code, kExitOk) << resumed.err;
  log = read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  ASSERT_EQ(log.evaluations.size(), 9u);
  EXPECT_EQ(log.evaluations.back().id, 8);
  // Read one by one (as a resume reads it, keeping nothing), the same evaluations in order.
  std::vector<std::int64_t> ids;
  std::vector<std::size_t> lines;
  const LogContents streamed =
      read_log(dir / "log.jsonl", [&](LogEvaluation&& e, std::size_t line) {
        ids.push_back(e.id);
        lines.push_back(line);
      });
  ASSERT_TRUE(streamed.ok()) << streamed.error;
  EXPECT_TRUE(streamed.evaluations.empty());
  EXPECT_EQ(streamed.evaluation_count, 9u);
  EXPECT_EQ(streamed.last_id, 8);
  EXPECT_EQ(ids, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  // After the header, each session's evaluations then its statistics.
  EXPECT_EQ(lines, (std::vector<std::size_t>{2, 3, 4, 5, 6, 7, 9, 10, 11}));
  ASSERT_EQ(streamed.sessions.size(), 2u);
  EXPECT_NE(streamed.sessions[1].json.find("\"evaluated\":3"), std::string::npos)
      << streamed.sessions[1].json;
  EXPECT_EQ(streamed.complete_bytes, std::filesystem::file_size(dir / "log.jsonl"));
  // best.c holds the best of all the log's candidates, whichever run found it.
  const auto fastest = std::min_element(
      log.evaluations.begin(), log.evaluations.end(),
      [](const LogEvaluation& a, const LogEvaluation& b) { return *a.time_ns < *b.time_ns; });
  EXPECT_EQ(best_code_id(dir, device::Language::c), fastest->id);
  EXPECT_NE(resumed.out.find("code in " + (dir / "best.c").string()), std::string::npos)
      << resumed.out;
  std::filesystem::remove_all(dir);
}

// A budget may add up units, as durations are often written.
TEST(SearchCommand, ABudgetOfHoursAndMinutes) {
  const std::filesystem::path dir = fresh_dir("budget");
  const Outcome outcome = run_sculpt(small_search(dir, "1", {"--budget", "1h30m"}));
  EXPECT_EQ(outcome.code, kExitOk) << outcome.err;
  EXPECT_NE(outcome.out.find(": 1 evaluated (1 ok)"), std::string::npos) << outcome.out;
  std::filesystem::remove_all(dir);
}

// A budget past what a double holds is no limit, as one past what the clock holds is.
TEST(SearchCommand, ABudgetPastEveryNumberIsNoLimit) {
  const std::filesystem::path dir = fresh_dir("endless_budget");
  const Outcome outcome =
      run_sculpt(small_search(dir, "1", {"--budget", "1" + std::string(400, '0') + "h"}));
  EXPECT_EQ(outcome.code, kExitOk) << outcome.err;
  EXPECT_NE(outcome.out.find(": 1 evaluated (1 ok)"), std::string::npos) << outcome.out;
  std::filesystem::remove_all(dir);
}

// The best code lost (deleted, or a crash between the log line and the file): a resume replays
// the log's best candidate and writes its code again, the same code.
TEST(SearchCommand, AResumeWritesTheBestCodeAgain) {
  const std::filesystem::path dir = fresh_dir("best_again");
  const std::vector<std::string> args = small_search(dir, "3");
  ASSERT_EQ(run_sculpt(args).code, kExitOk);
  const std::filesystem::path best = dir / "best.c";
  const auto read = [](const std::filesystem::path& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string code = read(best);
  const std::optional<std::int64_t> id = best_code_id(dir, device::Language::c);
  ASSERT_TRUE(id);
  std::filesystem::remove(best);
  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  const Outcome resumed = run_sculpt(resume);
  ASSERT_EQ(resumed.code, kExitOk) << resumed.err;
  EXPECT_EQ(read(best), code);
  EXPECT_NE(resumed.out.find("best: candidate " + std::to_string(*id)), std::string::npos)
      << resumed.out;
  EXPECT_NE(resumed.out.find("code in " + best.string()), std::string::npos) << resumed.out;
  // Its --evals were all done already: it says so rather than do nothing in silence.
  EXPECT_EQ(resumed.err,
            "sculpt search: the log holds 3 evaluations, --evals asks for 3 in all: nothing to "
            "evaluate (raise --evals to go on)\n");
  std::filesystem::remove_all(dir);
}

TEST(SearchCommand, StartsFromAnotherSearchsFastestCandidates) {
  const std::filesystem::path before = fresh_dir("start_before");
  const std::filesystem::path after = fresh_dir("start_after");
  ASSERT_EQ(run_sculpt(small_search(before, "4")).code, kExitOk);
  const LogContents first = read_log(before / "log.jsonl");
  ASSERT_TRUE(first.ok()) << first.error;
  const LogEvaluation* fastest = nullptr;
  for (const LogEvaluation& e : first.evaluations) {
    if (e.check == "ok" && (fastest == nullptr || *e.time_ns < *fastest->time_ns)) fastest = &e;
  }
  ASSERT_NE(fastest, nullptr);
  // Another seed: without the start it would begin elsewhere.
  const Outcome started =
      run_sculpt(small_search(after, "2", {"--seed", "9", "--start-from", before.string()}));
  ASSERT_EQ(started.code, kExitOk) << started.err;
  const LogContents second = read_log(after / "log.jsonl");
  ASSERT_TRUE(second.ok()) << second.error;
  ASSERT_FALSE(second.evaluations.empty());
  EXPECT_EQ(second.evaluations[0].actions, fastest->actions);
  // The log and the report say which evaluations were another search's.
  EXPECT_TRUE(second.evaluations[0].start);
  EXPECT_FALSE(first.evaluations[0].start);
  std::ifstream report(after / "report.html");
  const std::string page((std::istreambuf_iterator<char>(report)), {});
  EXPECT_NE(page.find("another search&#39;s (--start-from)"), std::string::npos)
      << "the report marks the starts";
  std::filesystem::remove_all(before);
  std::filesystem::remove_all(after);
}

// Lines that are not the JSON of a log line: the message says where and why, in the log's
// terms (the key and what it holds), without nlohmann's tags.
TEST(EventLog, UnreadableLinesSayWhereAndWhy) {
  const std::filesystem::path dir = fresh_dir("unreadable");
  std::filesystem::create_directories(dir);
  const std::string header =
      R"({"kind":"header","format":1,"kernel":"axpy","sizes":{"n":64},"device":"cpu",)"
      R"("space_hash":"0000000000001234","seed":1,"algorithm":"random"})"
      "\n";
  const std::string evaluation =
      R"({"kind":"evaluation","id":0,"actions":[],"bound_ns":null,"time_ns":5.0,"check":"ok",)"
      R"("t":0.5,"spread_ns":0.1,"runs":3})";
  const std::pair<std::string, std::string> cases[] = {
      {header + "\n" + evaluation + "\n",
       ":2: an empty line (a log holds one JSON object per line)"},
      {header + R"({"kind":"evaluation",)" + "\n",
       ":2: column 22: syntax error while parsing object key - unexpected end of input; expected "
       "string literal"},
      {header + R"({"kind":"evaluation"})" + "\n", ":2: key 'id' not found"},
      {header + std::regex_replace(evaluation, std::regex(R"("id":0)"), R"("id":"0")") + "\n",
       ":2: 'id' is a string, not an integer"},
      {header + std::regex_replace(evaluation, std::regex(R"("runs":3)"), R"("runs":1e3)") + "\n",
       ":2: 'runs' is 1000.0, not an integer"},
      {header + std::regex_replace(evaluation, std::regex(R"("runs":3)"), R"("runs":3000000000)") +
           "\n",
       ":2: 'runs' is 3000000000, out of range"},
      {std::regex_replace(header, std::regex("0000000000001234"), "12x4"),
       ":1: 'space_hash' is '12x4', not a hexadecimal hash"},
  };
  for (const auto& [text, message] : cases) {
    std::ofstream(dir / "log.jsonl") << text;
    const LogContents log = read_log(dir / "log.jsonl");
    EXPECT_EQ(log.error, (dir / "log.jsonl").string() + message) << text;
  }
  std::filesystem::remove_all(dir);
}

TEST(EventLog, ACutShortEvaluationSaysSo) {
  const std::filesystem::path dir = fresh_dir("cut_short");
  std::filesystem::create_directories(dir);
  const LogHeader header{1, "axpy", {{"n", 64}}, device::Kind::cpu, 0x1234, 1, "random", "cpu"};
  {
    EventLog log = EventLog::create(dir / "log.jsonl", header);
    LogEvaluation e;
    e.check = "ok";
    e.time_ns = 9e6;
    e.runs = 1;
    e.cut_short = true;
    log.write(e);
    e.id = 1;
    e.cut_short = false;
    log.write(e);
  }
  std::ifstream in(dir / "log.jsonl");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Only the evaluation cut short carries the field.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3);
  EXPECT_NE(text.find(R"("runs":1,"cut_short":true})"), std::string::npos) << text;
  EXPECT_EQ(text.find("cut_short", text.find("cut_short") + 1), std::string::npos) << text;
  const LogContents log = read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  ASSERT_EQ(log.evaluations.size(), 2u);
  EXPECT_TRUE(log.evaluations[0].cut_short);
  EXPECT_FALSE(log.evaluations[1].cut_short);
  std::filesystem::remove_all(dir);
}

TEST(EventLog, ALineThatCannotBeWrittenIsAnErrorThatSaysWhy) {
  const std::filesystem::path dir = fresh_dir("full");
  std::filesystem::create_directories(dir);
  EventLog log = EventLog::create(
      dir / "log.jsonl", {1, "axpy", {{"n", 64}}, device::Kind::cpu, 0x1234, 1, "random", "cpu"});
  LogEvaluation e;
  e.check = "ok";
  e.time_ns = 1e6;
  std::string error;
  try {
    const test::FullDisk full(std::filesystem::file_size(dir / "log.jsonl"));
    log.write(e);
  } catch (const std::runtime_error& failure) {
    error = failure.what();
  }
  EXPECT_EQ(error, "cannot write " + (dir / "log.jsonl").string() + ": " + std::strerror(EFBIG));
  std::filesystem::remove_all(dir);
}

TEST(SearchCommand, TruncatedLastLineIsTheEvaluationInFlight) {
  const std::filesystem::path dir = fresh_dir("truncated");
  ASSERT_EQ(run_sculpt(small_search(dir, "2")).code, kExitOk);
  std::ofstream(dir / "log.jsonl", std::ios::app) << R"({"kind":"evaluation","id":2,"act)";
  LogContents log = read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  EXPECT_EQ(log.evaluations.size(), 2u);

  // Resuming replaces the lost evaluation, and the log stays readable (the new line does not
  // continue the truncated one).
  const Outcome resumed = run_sculpt(small_search(dir, "4", {"--resume"}));
  ASSERT_EQ(resumed.code, kExitOk) << resumed.err;
  log = read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  ASSERT_EQ(log.evaluations.size(), 4u);
  EXPECT_EQ(log.evaluations[2].id, 2);
  EXPECT_EQ(log.evaluations[3].id, 3);
  std::filesystem::remove_all(dir);
}

std::size_t line_count(const std::filesystem::path& path) {
  std::ifstream in(path);
  return static_cast<std::size_t>(
      std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n'));
}

TEST(SearchCommand, ACtrlCStopsTheSearchWithItsSummaryAndAResumableLog) {
  const std::filesystem::path dir = fresh_dir("interrupted");
  // Once two evaluations are logged.
  Interrupter interrupter([&] { return line_count(dir / "log.jsonl") >= 3; });
  const Outcome interrupted = run_sculpt(small_search(dir, "1000"));
  interrupter.stop();

  EXPECT_EQ(interrupted.code, kExitInterrupted + SIGINT) << interrupted.err;
  EXPECT_NE(interrupted.err.find("interrupted by SIGINT"), std::string::npos) << interrupted.err;
  EXPECT_NE(interrupted.out.find("best: candidate"), std::string::npos) << interrupted.out;
  LogContents log = read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  const std::size_t evaluated = log.evaluations.size();
  ASSERT_GE(evaluated, 2u);
  EXPECT_LT(evaluated, 1000u);
  EXPECT_NE(interrupted.out.find(std::to_string(evaluated) + " evaluated"), std::string::npos)
      << interrupted.out;

  const Outcome resumed =
      run_sculpt(small_search(dir, std::to_string(evaluated + 2), {"--resume"}));
  ASSERT_EQ(resumed.code, kExitOk) << resumed.err;
  log = read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  EXPECT_EQ(log.evaluations.size(), evaluated + 2);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sculpt::explorer
