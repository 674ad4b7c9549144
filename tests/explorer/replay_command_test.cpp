// `sculpt replay`: a search's best candidate rebuilt from its log prints exactly its best file's
// code and checks again on the device; other candidates and languages on request; a damaged or
// foreign log gets one message naming the file and line. And a search killed with SIGKILL
// resumes to a log whose best replays.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "search/log/event_log.h"
#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"

namespace sculpt::explorer {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The best file's code, below its header line.
std::string best_code_below_header(const std::filesystem::path& dir) {
  const std::string text = read_file(dir / "best.c");
  return text.substr(text.find('\n') + 1);
}

/// A 20-evaluation CPU search of a small matmul, made once for the tests that only read it.
class ReplayCommand : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::filesystem::path(fresh_dir("replay"));
    const Outcome search =
        run_sculpt({"search", "--kernel", "matmul", "--size", "16x16x16", "--device", "cpu",
                    "--evals", "20", "--out", dir_->string()});
    ASSERT_EQ(search.code, kExitOk) << search.err;
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }
  /// A copy of the search's folder whose log `edit` changes.
  static std::filesystem::path damaged_copy(const std::string& name,
                                            const std::function<void(std::string&)>& edit) {
    const std::filesystem::path copy = fresh_dir(name);
    std::filesystem::copy(*dir_, copy);
    std::string log = read_file(copy / "log.jsonl");
    edit(log);
    std::ofstream(copy / "log.jsonl", std::ios::binary | std::ios::trunc) << log;
    return copy;
  }
  static std::filesystem::path* dir_;
};
std::filesystem::path* ReplayCommand::dir_ = nullptr;

TEST_F(ReplayCommand, TheBestPrintsItsBestFileByteForByteAndChecksAgain) {
  const Outcome replay = run_sculpt({"replay", dir_->string()});
  ASSERT_EQ(replay.code, kExitOk) << replay.err;
  EXPECT_EQ(replay.out, best_code_below_header(*dir_));
  EXPECT_EQ(replay.err, "");

  const Outcome measured = run_sculpt({"replay", dir_->string(), "--measure", "--device", "cpu"});
  ASSERT_EQ(measured.code, kExitOk) << measured.err;
  // "// sculpt search: candidate 7 of ...": the same candidate, checked ok again.
  const std::string header = read_file(*dir_ / "best.c");
  const std::string id = header.substr(28, header.find(' ', 28) - 28);
  EXPECT_TRUE(measured.out.starts_with("candidate " + id + " on cpu: ok, ")) << measured.out;
  EXPECT_NE(measured.out.find("; logged on cpu: ok, "), std::string::npos) << measured.out;
}

TEST_F(ReplayCommand, EmitsPtxForSm90AndCudaCFromACpuLog) {
  const Outcome ptx = run_sculpt({"replay", dir_->string(), "--emit", "ptx"});
  ASSERT_EQ(ptx.code, kExitOk) << ptx.err;
  EXPECT_TRUE(ptx.out.starts_with("// launch candidate: grid ")) << ptx.out;
  EXPECT_NE(ptx.out.find(".target sm_90"), std::string::npos) << ptx.out;
  EXPECT_NE(ptx.out.find(".entry candidate"), std::string::npos) << ptx.out;

  const Outcome cuda = run_sculpt({"replay", dir_->string(), "--emit", "cuda"});
  ASSERT_EQ(cuda.code, kExitOk) << cuda.err;
  EXPECT_NE(cuda.out.find("__global__"), std::string::npos) << cuda.out;
}

TEST_F(ReplayCommand, SeveralCandidatesEachUnderAHeaderLineFastestFirst) {
  const Outcome best = run_sculpt({"replay", dir_->string(), "--best", "3"});
  ASSERT_EQ(best.code, kExitOk) << best.err;
  std::size_t headers = 0;
  for (std::size_t at = best.out.find("// sculpt replay: candidate "); at != std::string::npos;
       at = best.out.find("// sculpt replay: candidate ", at + 1)) {
    ++headers;
  }
  EXPECT_EQ(headers, 3u) << best.out;
  // The first is the best file's.
  EXPECT_NE(best.out.find(best_code_below_header(*dir_)), std::string::npos);

  const Outcome two =
      run_sculpt({"replay", dir_->string(), "--id", "2", "--measure", "--device", "cpu"});
  EXPECT_NE(two.out.find("candidate 2 on cpu: "), std::string::npos) << two.out << two.err;
}

struct BadLog {
  const char* name;
  std::function<void(std::string&)> edit;
  std::vector<std::string> more;
  std::string message;  // after the log's path
};

TEST_F(ReplayCommand, ABadLogGetsOneLocatedMessageAndExit2) {
  const auto line_start = [](const std::string& log, int line) {
    std::size_t at = 0;
    for (int i = 1; i < line; ++i) at = log.find('\n', at) + 1;
    return at;
  };
  const std::vector<BadLog> cases = {
      {"foreign_space",
       [](std::string& log) {
         const std::size_t at = log.find("\"space_hash\":\"") + 14;
         log.replace(at, 16, "00000000000000ff");
       },
       {},
       ":1: written by another version of the space (space hash 00000000000000ff, today's "},
      {"damaged_middle_line",
       [&](std::string& log) { log.insert(line_start(log, 5), "{oops\n"); },
       {},
       ":5: "},
      {"unknown_id", [](std::string&) {}, {"--id", "99"}, ": no candidate 99 (ids 0 to 19)"},
  };
  for (const BadLog& c : cases) {
    const std::filesystem::path copy = damaged_copy(c.name, c.edit);
    std::vector<std::string> args = {"replay", copy.string()};
    args.insert(args.end(), c.more.begin(), c.more.end());
    const Outcome replay = run_sculpt(args);
    EXPECT_EQ(replay.code, kExitUsage) << c.name;
    EXPECT_EQ(replay.out, "") << c.name;
    EXPECT_TRUE(
        replay.err.starts_with("sculpt replay: " + (copy / "log.jsonl").string() + c.message))
        << c.name << ": " << replay.err;
    EXPECT_EQ(std::count(replay.err.begin(), replay.err.end(), '\n'), 1) << replay.err;
    std::filesystem::remove_all(copy);
  }
  const Outcome missing = run_sculpt({"replay", (*dir_ / "nothing").string()});
  EXPECT_EQ(missing.code, kExitUsage);
  EXPECT_EQ(missing.err, "sculpt replay: " + (*dir_ / "nothing").string() +
                             ": cannot read the log: No such file or directory\n");
}

// A crash while a line is written leaves it truncated: replay, bound and report all say so and
// read the complete lines before it, leaving the log as it is for --resume to mend. (Lines: the
// header, 20 evaluations, the session's statistics, then the truncated one.)
TEST_F(ReplayCommand, ATruncatedLastLineIsNamedLeftOutAndLeftAsItIs) {
  const std::filesystem::path copy = damaged_copy(
      "truncated", [](std::string& log) { log += "{\"kind\":\"evaluation\",\"id\":20,"; });
  const std::string before = read_file(copy / "log.jsonl");
  const std::string warning = (copy / "log.jsonl").string() +
                              ":23: truncated last line (a search stopped while writing it), "
                              "left out; `sculpt search --resume` removes it\n";
  const Outcome replay = run_sculpt({"replay", copy.string()});
  EXPECT_EQ(replay.code, kExitOk) << replay.err;
  EXPECT_EQ(replay.out, best_code_below_header(*dir_));
  EXPECT_EQ(replay.err, "sculpt replay: warning: " + warning);
  const Outcome bound = run_sculpt({"bound", copy.string()});
  EXPECT_EQ(bound.code, kExitOk) << bound.err;
  EXPECT_EQ(bound.err, "sculpt bound: warning: " + warning);
  const Outcome report =
      run_sculpt({"report", copy.string(), "--out", (copy / "page.html").string()});
  EXPECT_EQ(report.code, kExitOk) << report.err;
  EXPECT_EQ(report.err, "sculpt report: warning: " + warning);
  EXPECT_EQ(read_file(copy / "log.jsonl"), before);
  std::filesystem::remove_all(copy);
}

/// The number of complete lines in a file.
std::size_t lines_in(const std::filesystem::path& path) {
  const std::string text = read_file(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(ReplayAfterAKill, AResumedSearchKeepsEveryLineAndItsBestReplays) {
  const std::filesystem::path dir = fresh_dir("killed");
  const std::string sculpt = std::string(SCULPT_BINARY_DIR) + "/bin/sculpt";
  const std::vector<std::string> args = {sculpt,    "search",   "--kernel", "matmul",
                                         "--size",  "32x32x32", "--device", "cpu",
                                         "--evals", "40",       "--out",    dir.string()};
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  // Killed once a few evaluations are logged.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (std::chrono::steady_clock::now() < deadline &&
         !(std::filesystem::exists(dir / "log.jsonl") && lines_in(dir / "log.jsonl") >= 6)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the search ended before it was killed";
  const search::LogContents before = search::read_log(dir / "log.jsonl");
  ASSERT_TRUE(before.ok()) << before.error;
  ASSERT_LT(before.evaluation_count, 40u);

  const Outcome resumed =
      run_sculpt({"search", "--kernel", "matmul", "--size", "32x32x32", "--device", "cpu",
                  "--evals", "40", "--out", dir.string(), "--resume"});
  ASSERT_EQ(resumed.code, kExitOk) << resumed.err;
  const search::LogContents after = search::read_log(dir / "log.jsonl");
  ASSERT_TRUE(after.ok()) << after.error;
  ASSERT_EQ(after.evaluations.size(), 40u);
  for (std::size_t i = 0; i < after.evaluations.size(); ++i) {
    EXPECT_EQ(after.evaluations[i].id, static_cast<std::int64_t>(i));
  }
  // Every line written before the kill is still there, as it was.
  for (std::size_t i = 0; i < before.evaluations.size(); ++i) {
    EXPECT_EQ(after.evaluations[i].actions, before.evaluations[i].actions);
  }
  const Outcome replay = run_sculpt({"replay", dir.string()});
  ASSERT_EQ(replay.code, kExitOk) << replay.err;
  EXPECT_EQ(replay.out, best_code_below_header(dir));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sculpt::explorer
