// distributed: evaluations per second against evaluator ranks, on a stand-in device that takes
// 200 ms per evaluation (its ranks sleep, so more ranks than cores measure side by side): 2
// evaluator ranks give at least 1.8 times the rate of one, 4 at least 3.4 times. Prints the
// figures. About 10 s.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "search/log/event_log.h"
#include "tests/distributed/mpi_run.h"
#include "tests/explorer/command_test_util.h"

namespace sculpt::distributed {
namespace {

/// Evaluations per second of a 24-evaluation search on `ranks` evaluator ranks.
double evaluations_per_s(int ranks) {
  const std::filesystem::path dir = explorer::fresh_dir("mpi_scaling_" + std::to_string(ranks));
  const Finished r = run(mpirun(ranks + 1, {"search", "--kernel", "matmul", "--size", "256x256x256",
                                            "--device", "stand-in", "--stand-in-latency", "200ms",
                                            "--evals", "24", "--out", dir.string()}),
                         dir.string() + ".out");
  EXPECT_EQ(r.code, 0) << r.output;
  const search::LogContents log = search::read_log(dir / "log.jsonl");
  EXPECT_TRUE(log.ok()) << log.error;
  EXPECT_EQ(log.evaluation_count, 24u);
  double rate = 0;
  if (log.sessions.size() == 1) {
    rate = nlohmann::json::parse(log.sessions[0].json).at("evaluations_per_s").get<double>();
  } else {
    ADD_FAILURE() << "no statistics line: " << r.output;
  }
  std::filesystem::remove_all(dir);
  std::filesystem::remove(dir.string() + ".out");
  return rate;
}

TEST(MpiScaling, EvaluationsPerSecondGrowWithEvaluatorRanks) {
  std::map<int, double> rate;
  for (int ranks : {1, 2, 4}) rate[ranks] = evaluations_per_s(ranks);
  for (const auto& [ranks, r] : rate) {
    std::printf("%d evaluator rank%s: %.2f evaluations/s, %.2fx one rank's\n", ranks,
                ranks == 1 ? "" : "s", r, r / rate[1]);
  }
  ASSERT_GT(rate[1], 0);
  EXPECT_GE(rate[2] / rate[1], 1.8);
  EXPECT_GE(rate[4] / rate[1], 3.4);
}

}  // namespace
}  // namespace sculpt::distributed
