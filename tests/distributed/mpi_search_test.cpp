// distributed: `sculpt search` under mpirun. CPU evaluator ranks check every candidate, and both
// measure, of a zoo kernel or of a definition; CUDA evaluator ranks (on the fake driver) take
// their node's GPUs in turn; one stand-in evaluator rank logs what one process logs for the same
// seed; a killed evaluator rank ends the job with every logged evaluation kept, and --resume
// continues, with or without MPI; ranks on different devices, or a job of one rank, are refused.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "search/log/event_log.h"
#include "tests/distributed/mpi_run.h"
#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"

namespace sculpt::distributed {
namespace {

using explorer::fresh_dir;
using explorer::kExitOk;
using explorer::kExitUsage;
using explorer::run_sculpt;

/// `sculpt search` of a small matmul on the stand-in device, into `dir`, then `more`.
std::vector<std::string> stand_in_search(const std::filesystem::path& dir, const std::string& evals,
                                         const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {"search",   "--kernel", "matmul",    "--size",
                                   "64x64x64", "--device", "stand-in",  "--evals",
                                   evals,      "--out",    dir.string()};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

/// A log's header and evaluation lines, without what differs from run to run (when) or from
/// one process to MPI (which rank measured).
std::vector<nlohmann::json> comparable_lines(const std::filesystem::path& log) {
  std::vector<nlohmann::json> lines;
  std::istringstream text(read_text(log));
  for (std::string line; std::getline(text, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j["kind"] == "stats") continue;
    j.erase("t");
    j.erase("rank");
    lines.push_back(std::move(j));
  }
  return lines;
}

TEST(MpiSearch, CpuEvaluatorRanksCheckEveryCandidateAndBothMeasure) {
  const std::filesystem::path dir = fresh_dir("mpi_cpu");
  const Finished r = run(mpirun(3, explorer::small_search(dir, "10")), dir.string() + ".out");
  ASSERT_EQ(r.code, kExitOk) << r.output;
  const search::LogContents log = search::read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  EXPECT_EQ(log.header.device, device::Kind::cpu);
  ASSERT_EQ(log.evaluations.size(), 10u);
  std::set<int> ranks;
  for (const search::LogEvaluation& e : log.evaluations) {
    EXPECT_EQ(e.check, "ok") << e.id << ": " << e.message;
    ASSERT_TRUE(e.rank) << e.id;
    ranks.insert(*e.rank);
  }
  EXPECT_EQ(ranks, (std::set<int>{1, 2}));
  EXPECT_EQ(log.sessions.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(dir / "best.c"));
  std::filesystem::remove_all(dir);
  std::filesystem::remove(dir.string() + ".out");
}

TEST(MpiSearch, EvaluatorRanksMakeAKernelOfOnesOwnFromItsDefinition) {
  const std::filesystem::path dir = fresh_dir("mpi_definition");
  const Finished r =
      run(mpirun(2, {"search", "--expr",
                     "def scale(float(N) X, float s) -> (Y) { Y(i) = s * X(i) + 1 }", "--size",
                     "N=64", "--device", "cpu", "--evals", "4", "--out", dir.string()}),
          dir.string() + ".out");
  ASSERT_EQ(r.code, kExitOk) << r.output;
  const search::LogContents log = search::read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  ASSERT_EQ(log.evaluations.size(), 4u);
  for (const search::LogEvaluation& e : log.evaluations) {
    EXPECT_EQ(e.check, "ok") << e.id << ": " << e.message;
    EXPECT_EQ(e.rank, 1);
  }
  std::filesystem::remove_all(dir);
  std::filesystem::remove(dir.string() + ".out");
}

#ifdef SCULPT_FAKE_LIBCUDA_DIR
// The CUDA device on the fake driver (tests/device/cuda_fake_driver.cpp), which has one GPU.
TEST(MpiSearch, CudaEvaluatorRanksTakeTheGpusOfTheirNodeInTurn) {
  const std::filesystem::path dir = fresh_dir("mpi_cuda");
  const std::filesystem::path output = dir.string() + ".out";
  const std::vector<std::string> search = {"search", "--kernel", "axpy",      "--size",
                                           "256",    "--device", "cuda",      "--evals",
                                           "4",      "--out",    dir.string()};
  const std::string library_path = "LD_LIBRARY_PATH=" SCULPT_FAKE_LIBCUDA_DIR;
  // Rank 2 is the second evaluator rank of this node: GPU 1, which is not there.
  const Finished two_gpus = run(mpirun(3, search, {library_path}), output);
  EXPECT_EQ(two_gpus.code, kExitUsage) << two_gpus.output;
  EXPECT_NE(two_gpus.output.find("sculpt search: an evaluator rank is without a device: rank 2 "
                                 "on "),
            std::string::npos)
      << two_gpus.output;
  EXPECT_NE(two_gpus.output.find(": no GPU 1: the CUDA driver sees 1"), std::string::npos)
      << two_gpus.output;
  EXPECT_FALSE(std::filesystem::exists(dir));

  // A launcher that shows each rank one GPU: both measure on it, as PTX.
  const Finished one_each =
      run(mpirun(3, search, {library_path, "CUDA_VISIBLE_DEVICES=0"}), output);
  ASSERT_EQ(one_each.code, kExitOk) << one_each.output;
  const search::LogContents log = search::read_log(dir / "log.jsonl");
  ASSERT_TRUE(log.ok()) << log.error;
  EXPECT_EQ(log.header.device, device::Kind::cuda);
  ASSERT_EQ(log.evaluations.size(), 4u);
  std::set<int> ranks;
  for (const search::LogEvaluation& e : log.evaluations) {
    EXPECT_EQ(e.check, "ok") << e.id << ": " << e.message;
    ranks.insert(e.rank.value_or(0));
  }
  EXPECT_EQ(ranks, (std::set<int>{1, 2}));
  EXPECT_TRUE(std::filesystem::exists(dir / "best.ptx"));
  std::filesystem::remove_all(dir);
  std::filesystem::remove(output);
}
#endif

TEST(MpiSearch, OneStandInRankLogsWhatOneProcessLogsForTheSameSeed) {
  // A cutoff of 1 cuts many candidates short: the evaluator rank must cut each against every
  // time measured before it, as the stand-in of one process does.
  const std::vector<std::string> more = {"--seed",    "5", "--cutoff",           "1",
                                         "--threads", "1", "--stand-in-latency", "1ms"};
  const std::filesystem::path one = fresh_dir("one_process");
  const explorer::Outcome local = run_sculpt(stand_in_search(one, "30", more));
  ASSERT_EQ(local.code, kExitOk) << local.err;
  const std::filesystem::path dir = fresh_dir("mpi_stand_in");
  const Finished r = run(mpirun(2, stand_in_search(dir, "30", more)), dir.string() + ".out");
  ASSERT_EQ(r.code, kExitOk) << r.output;

  const std::vector<nlohmann::json> expected = comparable_lines(one / "log.jsonl");
  const std::vector<nlohmann::json> got = comparable_lines(dir / "log.jsonl");
  ASSERT_EQ(got.size(), expected.size());
  ASSERT_EQ(got.size(), 31u);
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], expected[i]) << "line " << i + 1;
  const search::LogContents log = search::read_log(dir / "log.jsonl");
  std::size_t cut_short = 0;
  for (const search::LogEvaluation& e : log.evaluations) {
    EXPECT_EQ(e.rank, 1);
    cut_short += e.cut_short;
  }
  EXPECT_GT(cut_short, 0u);
  for (const search::LogEvaluation& e : search::read_log(one / "log.jsonl").evaluations) {
    EXPECT_FALSE(e.rank);
  }
  std::filesystem::remove_all(one);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(dir.string() + ".out");
}

/// The process id of rank `rank` of the job whose command line names `dir`; -1 if none.
pid_t rank_pid(const std::filesystem::path& dir, int rank) {
  const std::string wanted = "OMPI_COMM_WORLD_RANK=" + std::to_string(rank);
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (read_text(entry.path() / "cmdline").find(dir.string()) == std::string::npos) continue;
    std::istringstream environ(read_text(entry.path() / "environ"));
    for (std::string variable; std::getline(environ, variable, '\0');) {
      if (variable == wanted) return std::stoi(name);
    }
  }
  return -1;
}

TEST(MpiSearch, AKilledEvaluatorRankEndsTheJobAndResumeContinuesWithOrWithoutMpi) {
  const std::filesystem::path dir = fresh_dir("mpi_killed");
  const std::filesystem::path output = dir.string() + ".out";
  const pid_t job =
      start(mpirun(3, stand_in_search(dir, "1000", {"--stand-in-latency", "50ms"})), output);
  ASSERT_GT(job, 0);
  // Killed once a few evaluations are logged.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (std::chrono::steady_clock::now() < deadline &&
         search::read_log(dir / "log.jsonl").evaluation_count < 8) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const pid_t victim = rank_pid(dir, 1);
  ASSERT_GT(victim, 0) << read_text(output);
  kill(victim, SIGKILL);
  const int code = finish(job);
  const std::string said = read_text(output);
  // mpirun ends every rank, and says which one died and how.
  EXPECT_NE(code, kExitOk) << said;
  EXPECT_NE(said.find("process rank 1 with PID"), std::string::npos) << said;
  EXPECT_NE(said.find("signal 9 (Killed)"), std::string::npos) << said;

  const search::LogContents before = search::read_log(dir / "log.jsonl");
  ASSERT_TRUE(before.ok()) << before.error;
  ASSERT_GE(before.evaluations.size(), 8u);
  ASSERT_LT(before.evaluations.size(), 1000u);
  const std::size_t kept = before.evaluations.size();

  // Without MPI, then with it.
  const explorer::Outcome resumed =
      run_sculpt(stand_in_search(dir, std::to_string(kept + 10), {"--resume"}));
  ASSERT_EQ(resumed.code, kExitOk) << resumed.err;
  const Finished again =
      run(mpirun(2, stand_in_search(dir, std::to_string(kept + 15), {"--resume"})), output);
  ASSERT_EQ(again.code, kExitOk) << again.output;

  const search::LogContents after = search::read_log(dir / "log.jsonl");
  ASSERT_TRUE(after.ok()) << after.error;
  ASSERT_EQ(after.evaluations.size(), kept + 15);
  for (std::size_t i = 0; i < kept; ++i) {
    EXPECT_EQ(after.evaluations[i].id, before.evaluations[i].id);
    EXPECT_EQ(after.evaluations[i].actions, before.evaluations[i].actions);
  }
  for (std::size_t i = kept; i < kept + 10; ++i) EXPECT_FALSE(after.evaluations[i].rank) << i;
  for (std::size_t i = kept + 10; i < kept + 15; ++i) EXPECT_EQ(after.evaluations[i].rank, 1);
  std::filesystem::remove_all(dir);
  std::filesystem::remove(output);
}

TEST(MpiSearch, RanksOnDifferentDevicesOrAJobOfOneRankAreRefused) {
  const std::filesystem::path dir = fresh_dir("mpi_mixed");
  const std::filesystem::path output = dir.string() + ".out";
  // Ranks 0 and 1 with the CPU, rank 2 with the stand-in (mpirun's A : B form).
  std::vector<std::string> line = mpirun(2, explorer::small_search(dir, "5"));
  line.push_back(":");
  line.push_back("-np");
  line.push_back("1");
  line.push_back(std::string(SCULPT_BINARY_DIR) + "/bin/sculpt");
  const std::vector<std::string> stand_in = stand_in_search(dir, "5");
  line.insert(line.end(), stand_in.begin(), stand_in.end());
  const Finished mixed = run(line, output);
  EXPECT_EQ(mixed.code, kExitUsage) << mixed.output;
  const std::size_t at = mixed.output.find(
      "sculpt search: the evaluator ranks measure on "
      "different devices (rank 1 on ");
  ASSERT_NE(at, std::string::npos) << mixed.output;
  const std::string message = mixed.output.substr(at, mixed.output.find('\n', at) - at);
  EXPECT_NE(message.find(": cpu; rank 2 on "), std::string::npos) << message;
  EXPECT_NE(message.find(": stand-in): one search measures on one kind of device"),
            std::string::npos)
      << message;
  EXPECT_FALSE(std::filesystem::exists(dir));

  const Finished alone = run(mpirun(1, explorer::small_search(dir, "5")), output);
  EXPECT_EQ(alone.code, kExitUsage) << alone.output;
  EXPECT_NE(alone.output.find("sculpt search: started by mpirun with one rank"), std::string::npos)
      << alone.output;
  EXPECT_FALSE(std::filesystem::exists(dir));
  std::filesystem::remove(output);
}

}  // namespace
}  // namespace sculpt::distributed
