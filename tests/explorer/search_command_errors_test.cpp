// `sculpt search`: the user errors (unknown kernel, malformed size, budget, seed or stand-in
// latency, a cutoff under 1, a run folder that cannot be made, foreign or corrupt log, a damaged
// evaluation line, a log another search is writing, a problem larger than memory, a log to start
// from that cannot be read or is another kernel's) that must exit with the usage code and one
// message.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "search/log/event_log.h"
#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"

namespace sculpt::explorer {
namespace {

using namespace search;

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
        BadSearch{"EmptyBudget", {"--kernel", "axpy", "--budget", ""}, "malformed --budget ''"},
        BadSearch{"BudgetPartWithoutUnit",
                  {"--kernel", "axpy", "--budget", "1h30"},
                  "malformed --budget '1h30' (expected numbers with s, m or h: 90s, 10m, 1h30m)"},
        BadSearch{"ZeroEvals", {"--kernel", "axpy", "--evals", "0"}, "--evals must be positive"},
        BadSearch{"CutoffUnderOne",
                  {"--kernel", "axpy", "--cutoff", "0.5"},
                  "--cutoff 0.5 is neither 0 (off) nor a factor of at least 1"},
        BadSearch{"LocalShareOverOne",
                  {"--kernel", "axpy", "--local", "1.5"},
                  "--local 1.5 is not a share between 0 and 1"},
        BadSearch{"WideShareOverOne",
                  {"--kernel", "axpy", "--wide", "2"},
                  "--wide 2 is not a share between 0 and 1"},
        BadSearch{
            "ScreenOfNone", {"--kernel", "axpy", "--screen", "0"}, "--screen must be at least 1"},
        BadSearch{"UnknownAlgorithm",
                  {"--kernel", "axpy", "--algorithm", "annealing"},
                  "unknown algorithm 'annealing' (known: mcts, bb, random)"},
        BadSearch{"StandInLatencyOfAnotherDevice",
                  {"--kernel", "axpy", "--device", "cpu", "--stand-in-latency", "1ms"},
                  "--stand-in-latency is for --device stand-in only"},
        BadSearch{"MalformedStandInLatency",
                  {"--kernel", "axpy", "--device", "stand-in", "--stand-in-latency", "2"},
                  "malformed --stand-in-latency '2' (expected a duration of an hour at most: "
                  "200ms, 1s)"},
        BadSearch{
            "RunFolderCannotBeMade",
            {"--kernel", "axpy", "--size", "64", "--device", "cpu", "--out", "/proc/sculpt_run"},
            "cannot create the run folder /proc/sculpt_run: "},
        BadSearch{"MissingLogToStartFrom",
                  {"--kernel", "axpy", "--size", "64", "--device", "cpu", "--start-from",
                   "/nonexistent_sculpt_dir/x"},
                  "--start-from: /nonexistent_sculpt_dir/x: cannot read the log"},
        BadSearch{"MissingLogOnResume",
                  {"--kernel", "axpy", "--out", "/nonexistent_sculpt_dir/x", "--resume", "--device",
                   "cpu"},
                  "cannot read the log"}),
    [](const auto& param) { return param.param.name; });

TEST(SearchCommandErrors, AStartFromAnotherKernelOrACorruptLogIsRefused) {
  const std::filesystem::path dir = fresh_dir("start_errors");
  ASSERT_EQ(run_sculpt(small_search(dir, "1")).code, kExitOk);
  const std::filesystem::path out = fresh_dir("start_errors_out");
  const Outcome other =
      run_sculpt({"search", "--kernel", "mv", "--size", "8x8", "--device", "cpu", "--evals", "1",
                  "--out", out.string(), "--start-from", dir.string()});
  EXPECT_EQ(other.code, kExitUsage);
  EXPECT_EQ(other.err, "sculpt search: --start-from " + (dir / "log.jsonl").string() +
                           ": a search of axpy, not of mv\n");
  std::ofstream(dir / "log.jsonl") << "{\"kind\":\"header\",\"format\":7}\n";
  const Outcome corrupt = run_sculpt(small_search(out, "1", {"--start-from", dir.string()}));
  EXPECT_EQ(corrupt.code, kExitUsage);
  EXPECT_NE(corrupt.err.find("--start-from: " + (dir / "log.jsonl").string() + ":1:"),
            std::string::npos)
      << corrupt.err;
  EXPECT_FALSE(std::filesystem::exists(out)) << "no run folder for a search that did not start";
  std::filesystem::remove_all(dir);
}

TEST(SearchCommandErrors, ForeignAndCorruptLogsAreRefused) {
  const std::filesystem::path dir = fresh_dir("search_errors");
  ASSERT_EQ(run_sculpt(small_search(dir, "1")).code, kExitOk);
  const Outcome again = run_sculpt(small_search(dir, "1"));
  EXPECT_EQ(again.code, kExitUsage);
  EXPECT_NE(again.err.find("exists already"), std::string::npos) << again.err;
  const Outcome foreign = run_sculpt({"search", "--kernel", "axpy", "--size", "128", "--device",
                                      "cpu", "--evals", "2", "--out", dir.string(), "--resume"});
  EXPECT_EQ(foreign.code, kExitUsage);
  EXPECT_NE(foreign.err.find("written by another search"), std::string::npos) << foreign.err;
  {
    // A search still writing the log holds its lock: a second one stops rather than interleave.
    const LogLock held = LogLock::acquire(dir / "log.jsonl");
    const Outcome twice = run_sculpt(small_search(dir, "2", {"--resume"}));
    EXPECT_EQ(twice.code, kExitUsage);
    EXPECT_NE(twice.err.find("log.jsonl is being written by another search of this run folder"),
              std::string::npos)
        << twice.err;
  }
  std::ofstream(dir / "log.jsonl") << "{\"kind\":\"header\",\"format\":7}\n";
  const Outcome corrupt = run_sculpt(small_search(dir, "2", {"--resume"}));
  EXPECT_EQ(corrupt.code, kExitUsage);
  EXPECT_NE(corrupt.err.find("log.jsonl:1:"), std::string::npos) << corrupt.err;
  std::filesystem::remove(dir / "log.jsonl");
  std::filesystem::create_directory(dir / "log.jsonl");
  const Outcome folder = run_sculpt(small_search(dir, "2", {"--resume"}));
  EXPECT_EQ(folder.code, kExitUsage);
  EXPECT_EQ(folder.err, "sculpt search: " + (dir / "log.jsonl").string() +
                            ": cannot read the log: a folder, not a file\n");
  std::filesystem::remove_all(dir);
}

// An empty --size (an unset shell variable) would silently mean the default sizes.
TEST(SizeOption, AnEmptySizeIsRefused) {
  for (const std::string command : {"search", "estimate", "kernels"}) {
    CLI::App app;
    const std::vector<Command> commands = add_commands(app);
    std::vector<const char*> argv = {"sculpt", command.c_str()};
    if (command == "kernels") {
      argv.push_back("axpy");
    } else {
      argv.insert(argv.end(), {"--kernel", "axpy"});
    }
    argv.insert(argv.end(), {"--size", ""});
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
      ADD_FAILURE() << command << " took an empty --size";
    } catch (const CLI::ValidationError& e) {
      EXPECT_EQ(std::string(e.what()),
                "--size: empty (leave it out for the kernel's default sizes)");
    }
  }
}

// An empty --out would silently mean runs/KERNEL-SIZE.
TEST(OutOption, AnEmptyRunFolderIsRefused) {
  CLI::App app;
  const std::vector<Command> commands = add_commands(app);
  const char* argv[] = {"sculpt", "search", "--kernel", "axpy", "--out", ""};
  try {
    app.parse(6, argv);
    ADD_FAILURE() << "search took an empty --out";
  } catch (const CLI::ValidationError& e) {
    EXPECT_EQ(std::string(e.what()), "--out: empty (leave it out for runs/KERNEL-SIZE)");
  }
}

// CLI11 alone reads a seed of -1 or past 2^64 - 1 as another seed; both commands refuse them.
TEST(SeedOption, OnlyWholeUnsigned64BitIntegers) {
  for (const std::string command : {"search", "estimate"}) {
    for (const std::string seed : {"-1", "18446744073709551616", "0x10", "5 "}) {
      CLI::App app;
      const std::vector<Command> commands = add_commands(app);
      const char* argv[] = {"sculpt", command.c_str(), "--kernel", "axpy", "--seed", seed.c_str()};
      try {
        app.parse(6, argv);
        ADD_FAILURE() << command << " took --seed " << seed;
      } catch (const CLI::ValidationError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "--seed: a decimal integer from 0 to 18446744073709551615, not '" + seed + "'");
      }
    }
    CLI::App app;
    const std::vector<Command> commands = add_commands(app);
    const char* argv[] = {"sculpt", command.c_str(), "--kernel",
                          "axpy",   "--seed",        "18446744073709551615"};
    EXPECT_NO_THROW(app.parse(6, argv)) << command;
  }
}

// The counts are decimal: CLI11 alone reads "0x10" as 16 and "010" as 8, and makes a number past
// 2^63 - 1 the largest one (which `estimate --samples` then tried to allocate room for).
TEST(CountOptions, OnlyDecimal64BitIntegers) {
  const std::vector<std::pair<std::string, std::string>> options = {{"search", "--evals"},
                                                                    {"estimate", "--samples"},
                                                                    {"estimate", "--probes"},
                                                                    {"estimate", "--jobs"}};
  for (const auto& [command, option] : options) {
    for (const std::string value : {"99999999999999999999", "0x10", "1e2", "+5", "7 "}) {
      CLI::App app;
      const std::vector<Command> commands = add_commands(app);
      const char* argv[] = {"sculpt", command.c_str(), "--kernel",
                            "axpy",   option.c_str(),  value.c_str()};
      try {
        app.parse(6, argv);
        ADD_FAILURE() << command << " took " << option << " " << value;
      } catch (const CLI::ValidationError& e) {
        EXPECT_EQ(std::string(e.what()),
                  option + ": a decimal integer up to 9223372036854775807, not '" + value + "'");
      }
    }
    CLI::App app;
    const std::vector<Command> commands = add_commands(app);
    const char* argv[] = {"sculpt", command.c_str(), "--kernel", "axpy", option.c_str(), "010"};
    ASSERT_NO_THROW(app.parse(6, argv)) << command << " " << option;
    EXPECT_EQ(app.get_subcommand(command)->get_option(option)->as<std::int64_t>(), 10)
        << command << " " << option;
  }
}

// A log line edited by hand or damaged: which line, what to do to its JSON, and the message a
// resume must stop with (a regex of the rest of the line after "log.jsonl:").
struct DamagedLog {
  std::string name;
  std::function<void(std::vector<nlohmann::json>&)> damage;
  std::string message;
};

void PrintTo(const DamagedLog& log, std::ostream* out) { *out << log.name; }

class DamagedLogs : public testing::TestWithParam<DamagedLog> {};

// A resume reads every line before it searches: a damaged one is refused with its line, rather
// than searched on (a negative time would become the best, a missing one was read as garbage).
TEST_P(DamagedLogs, AreRefusedWithTheLine) {
  const std::filesystem::path dir = fresh_dir("damaged_log");
  const std::vector<std::string> args = small_search(dir, "3");
  ASSERT_EQ(run_sculpt(args).code, kExitOk);
  std::vector<nlohmann::json> lines;
  {
    std::ifstream in(dir / "log.jsonl");
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  }
  ASSERT_EQ(lines.size(), 5u) << "a header, three evaluations, the session's statistics";
  lines.pop_back();
  GetParam().damage(lines);
  {
    std::ofstream out(dir / "log.jsonl");
    for (const nlohmann::json& line : lines) out << line.dump() << "\n";
  }
  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  const Outcome outcome = run_sculpt(resume);
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_TRUE(
      std::regex_search(outcome.err, std::regex("log\\.jsonl:" + GetParam().message + "\n$")))
      << outcome.err;
  EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Lines, DamagedLogs,
    testing::Values(
        DamagedLog{"UnknownDevice", [](auto& l) { l[0]["device"] = "tpu"; },
                   "1: 'device' is 'tpu', not a device \\(cpu, cuda, stand-in\\)"},
        DamagedLog{"RepeatedId", [](auto& l) { l[3]["id"] = 1; },
                   "4: id 1 does not follow the previous line's 1"},
        DamagedLog{"NegativeTime", [](auto& l) { l[2]["time_ns"] = -100.0; },
                   "3: time_ns is -100, not a number above 0"},
        DamagedLog{"OkWithoutTime",
                   [](auto& l) {
                     l[1]["check"] = "ok";
                     l[1]["time_ns"] = nullptr;
                   },
                   "2: an ok evaluation without its time_ns"},
        DamagedLog{"RankZero", [](auto& l) { l[2]["rank"] = 0; },
                   "3: rank is 0, not a rank that measures"},
        DamagedLog{"UnknownCheck", [](auto& l) { l[1]["check"] = "fine"; },
                   "2: unknown check 'fine' \\(known: ok, wrong, fault, timeout, compile_error\\)"},
        DamagedLog{"BestDoesNotReplay",
                   [](auto& l) {
                     for (std::size_t i = 1; i < l.size(); ++i) l[i]["actions"][0]["value"] = "7";
                   },
                   "[234]: candidate [012] does not replay on this space: [a-z_]+\\([0-9, ]+\\) "
                   "cannot be replayed: unknown value 7 of [a-z_]+"},
        DamagedLog{"BestIsNotFullySpecified",
                   [](auto& l) {
                     // The last decision's instance had two values or more when it was taken.
                     for (std::size_t i = 1; i < l.size(); ++i) {
                       l[i]["actions"].erase(l[i]["actions"].size() - 1);
                     }
                   },
                   "[234]: candidate [012] does not replay on this space: it is not fully "
                   "specified"}),
    [](const auto& param) { return param.param.name; });

// Sizes whose arrays cannot fit in memory stop with the size the problem needs, not with an
// allocation failure (this one would need 7.6 TB: A's elements are 32 apart), and leave no run
// folder in the way of the next search.
TEST(SearchCommandErrors, ProblemLargerThanMemory) {
  const std::filesystem::path dir = fresh_dir("search_huge");
  const Outcome outcome =
      run_sculpt({"search", "--kernel", "strided_matmul", "--size", "165000x165000x165000",
                  "--device", "cpu", "--evals", "1", "--out", dir.string()});
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_NE(outcome.err.find("cpu device: problem 'strided_matmul' needs 7405 GB of host memory"),
            std::string::npos)
      << outcome.err;
  EXPECT_EQ(std::count(outcome.err.begin(), outcome.err.end(), '\n'), 1) << outcome.err;
  EXPECT_FALSE(std::filesystem::exists(dir));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sculpt::explorer
