// Hostile input, as a demanding user or a security-minded tester gives it: inputs past the
// limits of what sculpt reads (deep or long expressions, many indices, kernels too large to
// search, endless logs), files sculpt must not replace (a FIFO, a symbolic link, a folder of the
// user's), counts that are not decimal, names of the generated code's languages. Each gets one
// message that names the limit or the file, exit code 2 (or, where it is no mistake, a search
// that works), and nothing of the user's is changed. And a search busy walking a large space,
// or waiting for a compiler, stops within a second of SIGINT or SIGTERM.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"
#include "tests/explorer/sculpt_process.h"

namespace sculpt::explorer {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string repeated(const std::string& unit, int n, const std::string& between = "") {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? between : "") + unit;
  return out;
}

/// `Y(i) = X(i) + X(i) + ...` with `terms` terms.
std::string sum_of(int terms) {
  return "def f(float(N) X) -> (Y) { Y(i) = " + repeated("X(i)", terms, " + ") + " }\n";
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class HostileInput : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fresh_dir(testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A file of the test's folder holding `text`.
  std::string file(const std::string& name, const std::string& text) {
    write_file(dir_ / name, text);
    return (dir_ / name).string();
  }

  /// `command` with `args` gave exit code 2 and one line naming `message`.
  void expect_refused(const std::vector<std::string>& args, const std::string& message) {
    const Outcome o = run_sculpt(args);
    EXPECT_EQ(o.code, kExitUsage) << args[0] << ": " << o.err;
    EXPECT_NE(o.err.find(message), std::string::npos) << o.err;
    EXPECT_EQ(lines(o.err), 1u) << o.err;
  }

  fs::path dir_;
};

// Items 1 and 4: prefix operators count as nesting, so that no chain of them can exhaust a
// stack or take time past the nesting limit; through --def and --expr alike.
TEST_F(HostileInput, PrefixChainsStopAtTheNestingLimit) {
  const std::string minus =
      "def f(float(N) X) -> (Y) { Y(i) = " + std::string(70000, '-') + "X(i) }\n";
  const std::string message =
      ":1:98: error: expressions nest more than 64 deep (parentheses, calls, selects and prefix "
      "operators)";
  expect_refused({"kernels", "--def", file("minus.tc", minus)}, message);
  expect_refused({"kernels", "--expr", minus}, message);
  const std::string nots =
      "def f(float(N) X) -> (Y) { Y(i) = " + std::string(100000, '!') + "(X(i) > 0) ? 1 : 0 }\n";
  expect_refused({"kernels", "--def", file("not.tc", nots)}, message);
  // 64 levels still parse: the right-hand side, 30 prefix operators, 32 parentheses and the
  // subscript of the call.
  const std::string deep = "def f(float(N) X) -> (Y) { Y(i) = " + std::string(30, '-') +
                           std::string(32, '(') + "X(i)" + std::string(32, ')') + " }\n";
  EXPECT_EQ(run_sculpt({"kernels", "--def", file("deep.tc", deep)}).code, kExitOk);
}

// Items 2 and 3: a definition holds at most 256 operands, so that a long sum is refused before
// a search spends minutes on each candidate of its space (or overflows a walk's stack).
TEST_F(HostileInput, LongSumsStopAtTheOperandLimit) {
  const std::string message =
      "error: a definition holds at most 256 operands (numbers, names and calls) in its "
      "expressions";
  expect_refused({"kernels", "--def", file("long.tc", sum_of(20000))}, message);
  expect_refused({"search", "--def", file("search.tc", sum_of(20000)), "--size", "N=1024",
                  "--device", "cpu", "--evals", "3", "--out", (dir_ / "run").string()},
                 message);
  expect_refused({"search", "--def", file("thousand.tc", sum_of(1000)), "--size", "N=1024",
                  "--device", "cpu", "--evals", "3", "--out", (dir_ / "run").string()},
                 message);
  EXPECT_FALSE(fs::exists(dir_ / "run"));
}

// The kernel a definition gives is refused when its space is too large to search, with the
// limit, at the definition, and no run folder is made.
TEST_F(HostileInput, KernelsTooLargeToSearchAreRefusedWithTheLimit) {
  expect_refused({"search", "--def", file("sum.tc", sum_of(24)), "--size", "N=1024", "--device",
                  "cpu", "--evals", "3", "--out", (dir_ / "run").string()},
                 "sum.tc:1:5: error: definition 'f' is too large: its 285 loop dimensions (a copy "
                 "of each index for each instruction, their tiles, and those of the temporaries "
                 "it may use) are more than the 256 a search takes; split it into smaller "
                 "definitions");
  EXPECT_FALSE(fs::exists(dir_ / "run"));
  // The largest sum below the limit is a kernel like any other.
  EXPECT_EQ(run_sculpt({"kernels", "--def", file("twenty.tc", sum_of(20)), "--size", "N=64"}).code,
            kExitOk);
}

// A file of definitions holds at most 1024: each is checked, with isl, whichever is picked.
TEST_F(HostileInput, AFileHoldsAtMost1024Definitions) {
  std::string many;
  for (int i = 0; i < 1100; ++i) {
    many += "def f" + std::to_string(i) + "(float(N) X) -> (Y) { Y(i) = X(i) }\n";
  }
  const Outcome o = run_sculpt({"kernels", "--def", file("many.tc", many), "--kernel", "f0"});
  EXPECT_EQ(o.code, kExitUsage);
  EXPECT_NE(o.err.find("many.tc:1025:1: error: a file holds at most 1024 definitions"),
            std::string::npos)
      << o.err.substr(0, 300);
}

// Item 5: at most 16 indices in a statement and 16 dimensions in a tensor.
TEST_F(HostileInput, ManyIndicesStopAtTheirLimit) {
  std::string indices, sizes;
  for (int i = 0; i < 50; ++i) {
    indices += (i ? "," : "") + std::string("i") + std::to_string(i);
    sizes += (i ? "," : "") + std::string("N") + std::to_string(i);
  }
  const std::string copy =
      "def f(float(" + sizes + ") X) -> (Y) { Y(" + indices + ") = X(" + indices + ") }\n";
  expect_refused({"kernels", "--def", file("copy.tc", copy)},
                 ":1:67: error: a tensor has at most 16 dimensions (each index is a loop of every "
                 "instruction of its statement, and a search's space grows faster than they do)");
  // Sixteen on the left, a seventeenth summed over.
  std::string lhs, sum;
  for (int i = 0; i < 17; ++i) {
    if (i < 16) lhs += (i ? "," : "") + std::string("i") + std::to_string(i);
    sum += (i ? "+" : "") + std::string("i") + std::to_string(i);
  }
  const std::string reduction =
      "def f(float(N) X) -> (Y) { Y(" + lhs + ") +=! X(" + sum + ") where i16 in 0:2 }\n";
  expect_refused({"kernels", "--def", file("reduction.tc", reduction)},
                 "error: a statement has at most 16 indices");
}

// Item 6: input files are regular files (a FIFO without a writer would block, /dev/zero fill
// memory); the one reader of logs stops at a line of 16 MiB, and logs with CRLF endings are
// refused rather than appended to with another ending.
TEST_F(HostileInput, EndlessOrForeignInputsAreRefusedWithTheirPlace) {
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  for (const std::string command : {"replay", "bound", "report"}) {
    expect_refused({command, "/dev/zero"},
                   "/dev/zero: cannot read the log: a device, not a regular file");
    expect_refused({command, fifo.string()},
                   fifo.string() + ": cannot read the log: a FIFO, not a regular file");
  }
  expect_refused(
      {"search", "--kernel", "axpy", "--device", "stand-in", "--start-from", "/dev/zero"},
      "--start-from: /dev/zero: cannot read the log: a device, not a regular file");
  expect_refused({"bound", "--kernel", "axpy", "--description", "/dev/zero"},
                 "cannot read the description /dev/zero: a device, not a regular file");
  expect_refused({"bound", "--kernel", "axpy", "--description", fifo.string()},
                 "cannot read the description " + fifo.string() + ": a FIFO, not a regular file");
  expect_refused({"kernels", "--def", fifo.string()},
                 "cannot read '" + fifo.string() + "': a FIFO, not a regular file");
  write_file(dir_ / "long.jsonl", std::string(17 << 20, 'x') + "\n");
  expect_refused({"replay", (dir_ / "long.jsonl").string()},
                 "long.jsonl:1: the line is longer than 16 MiB (sculpt writes no log so large: is "
                 "it a log?)");
  const fs::path run = dir_ / "run";
  ASSERT_EQ(run_sculpt(small_search(run, "2")).code, kExitOk);
  std::string log = read_file(run / "log.jsonl");
  std::string crlf;
  for (char c : log) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  write_file(run / "log.jsonl", crlf);
  expect_refused({"replay", run.string()},
                 "log.jsonl:1: the line ends in a carriage return (a log's lines end in a newline "
                 "alone: was it rewritten with CRLF line endings?)");
  expect_refused(small_search(run, "4", {"--resume"}), "log.jsonl:1: the line ends in a carriage");
  EXPECT_EQ(read_file(run / "log.jsonl"), crlf);
}

// Item 7: an output that is not a regular file is left as it is, and the command says why.
TEST_F(HostileInput, OutputsThatAreNotRegularFilesStayWhatTheyWere) {
  const fs::path run = dir_ / "run";
  ASSERT_EQ(run_sculpt(small_search(run, "2")).code, kExitOk);
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  const fs::path link = dir_ / "link";
  fs::create_symlink(dir_ / "target.html", link);
  expect_refused({"report", run.string(), "--out", fifo.string()},
                 "cannot write " + fifo.string() + ": a FIFO, not a regular file");
  expect_refused({"report", run.string(), "--out", link.string()},
                 "cannot write " + link.string() +
                     ": a symbolic link, which sculpt does not replace (name its target)");
  expect_refused({"characterize", "--device", "cpu", "--quick", "--out", fifo.string()},
                 "cannot write " + fifo.string() + ": a FIFO, not a regular file");
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_FALSE(fs::exists(dir_ / "target.html"));
  // A run folder's own report that became a FIFO is not replaced either.
  fs::remove(run / "report.html");
  ASSERT_EQ(mkfifo((run / "report.html").c_str(), 0644), 0);
  expect_refused({"report", run.string()}, "report.html: a FIFO, not a regular file");
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(run / "report.html")));
}

// Item 8: a search writes only into a new or empty folder, or a run folder with its log.
TEST_F(HostileInput, AFolderOfTheUsersIsNotARunFolder) {
  const fs::path mine = dir_ / "mine";
  fs::create_directories(mine);
  write_file(mine / "best.c", "mine\n");
  expect_refused(small_search(mine, "2"),
                 mine.string() +
                     " is not a run folder (it holds best.c and no log.jsonl): name a new or "
                     "empty folder");
  EXPECT_EQ(read_file(mine / "best.c"), "mine\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(mine), fs::directory_iterator()), 1);
  expect_refused(small_search("/", "2"), "/ is not a run folder (it holds ");
  // An empty folder is a new run's.
  const fs::path empty = dir_ / "empty";
  fs::create_directories(empty);
  EXPECT_EQ(run_sculpt(small_search(empty, "2")).code, kExitOk);
}

// Item 9 and the minor ones: counts and shares are decimal, the budget positive, the searching
// threads few enough to start.
TEST_F(HostileInput, CountsAreDecimalAndWithinReach) {
  for (const auto& [option, value, message] : std::vector<std::array<std::string, 3>>{
           {"--threads", "0x10", "--threads: a decimal integer up to 2147483647, not '0x10'"},
           {"--screen", "0x10", "--screen: a decimal integer up to 2147483647, not '0x10'"},
           {"--cutoff", "0x10", "--cutoff: a decimal number (4, 0.25, 1e3), not '0x10'"},
           {"--local", "inf", "--local: a decimal number (4, 0.25, 1e3), not 'inf'"},
           {"--wide", "nan", "--wide: a decimal number (4, 0.25, 1e3), not 'nan'"}}) {
    const SculptProcess::Finished f = run_sculpt_process(
        {"search", "--kernel", "axpy", "--device", "stand-in", option, value}, dir_ / "process");
    EXPECT_EQ(f.code, kExitUsage) << option;
    EXPECT_NE(f.err.find(message), std::string::npos) << f.err;
  }
  expect_refused({"search", "--kernel", "axpy", "--device", "stand-in", "--threads", "100000"},
                 "--threads must be between 1 and 256");
  expect_refused({"search", "--kernel", "axpy", "--device", "stand-in", "--budget", "0s", "--out",
                  (dir_ / "run").string()},
                 "--budget must be positive, not '0s'");
  EXPECT_FALSE(fs::exists(dir_ / "run"));
  // "010" is ten, as the README says counts are written.
  const Outcome ten =
      run_sculpt({"search", "--kernel", "axpy", "--size", "64", "--device", "stand-in", "--threads",
                  "010", "--evals", "2", "--out", (dir_ / "ten").string()});
  EXPECT_EQ(ten.code, kExitOk) << ten.err;
  EXPECT_NE(ten.out.find("on 10 threads"), std::string::npos) << ten.out;
}

// Item 10: a tensor may be named as C, CUDA C or the generated code name other things: its
// name in the code changes, not its meaning, and every candidate compiles.
TEST_F(HostileInput, TensorsNamedAsWordsOfTheGeneratedCodeSearch) {
  const std::string def =
      "def f(float(N) return, float(N) int, float(N) tid) -> (tmp0) {\n"
      "  tmp0(i) = return(i) * 2 + int(i) - tid(i)\n"
      "}\n";
  const fs::path run = dir_ / "run";
  const Outcome o = run_sculpt({"search", "--def", file("names.tc", def), "--size", "N=256",
                                "--device", "cpu", "--evals", "3", "--out", run.string()});
  ASSERT_EQ(o.code, kExitOk) << o.err;
  EXPECT_NE(o.out.find("(3 ok)"), std::string::npos) << o.out;
  const std::string best = read_file(run / "best.c");
  for (const char* name : {"return_", "int_", "tid_", "tmp0"}) {
    EXPECT_NE(best.find(name), std::string::npos) << name << " in\n" << best;
  }
}

/// A search that stops within a second of `signal`, sent once its run folder's log exists (the
/// session is under way) and `settle` has passed.
void expect_stops_within_a_second(const std::vector<std::string>& args, const fs::path& dir,
                                  int signal,
                                  const std::map<std::string, std::string>& environment = {}) {
  SculptProcess search(args, dir / "process", environment);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!fs::exists(dir / "run" / "log.jsonl") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(fs::exists(dir / "run" / "log.jsonl"));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  search.send(signal);
  const SculptProcess::Finished f = search.wait();
  EXPECT_EQ(f.code, 128 + signal) << f.err;
  EXPECT_LT(f.seconds_after_signal, 1.0);
  EXPECT_NE(f.err.find("--resume continues the search"), std::string::npos) << f.err;
  EXPECT_NE(f.out.find("stopped by an interruption"), std::string::npos) << f.out;
}

// Item 3: a walk of a large space (a sum of 20 terms: 237 loop dimensions, rollouts of about
// half a second, 32 of them before the first candidate) stops at its next step.
TEST_F(HostileInput, ASearchBusyWalkingALargeSpaceStopsWithinASecond) {
  expect_stops_within_a_second(
      {"search", "--def", file("sum.tc", sum_of(20)), "--size", "N=1024", "--device", "stand-in",
       "--evals", "5", "--out", (dir_ / "run").string()},
      dir_, SIGINT);
}

// A compiler that takes a minute is stopped with its candidate.
TEST_F(HostileInput, ASearchWaitingForItsCompilerStopsWithinASecond) {
  const std::string slow =
      file("slow_cc",
           "#!/bin/sh\n"
           "case \"$*\" in *--version*|*-fsyntax-only*) exec cc \"$@\";; esac\n"
           "sleep 60\n"
           "exec cc \"$@\"\n");
  fs::permissions(slow, fs::perms::owner_all);
  expect_stops_within_a_second(
      {"search", "--kernel", "axpy", "--size", "1024", "--device", "cpu", "--description", "cpu",
       "--evals", "3", "--out", (dir_ / "run").string()},
      dir_, SIGTERM, {{"SCULPT_CC", slow}, {"XDG_CACHE_HOME", (dir_ / "cache").string()}});
}

}  // namespace
}  // namespace sculpt::explorer
