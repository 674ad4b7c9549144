// MCTS against random search on the CPU device, at equal evaluations (issue H's acceptance):
// for each kernel, SCULPT_SEEDS (5) seeds of SCULPT_EVALS (300) evaluations each. MCTS's median
// best time must be lower than random's, MCTS must win at least 4 of the 5 seed pairs, and its
// median number of evaluations to come within 10% of the best time seen across all runs must be
// at most half of random's (a run that never comes within 10% counts as one more than its
// evaluations). The curves (best time against evaluations) go to
// BUILD/search_curves_KERNEL.csv and to the test's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "device/cpu_evaluator.h"
#include "perf_model/model.h"
#include "search/gpu/code_features.h"
#include "search/gpu/device_evaluator.h"
#include "search/session/device_description.h"
#include "search/session/problem.h"
#include "search/session/session.h"
#include "zoo/zoo.h"

namespace sculpt::search {
namespace {

/// What MCTS learns its model of: the code a candidate of the GPU space becomes.
const CodeFeatures kCodeFeatures;

int from_environment(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoi(value) : fallback;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// The best time after each evaluation of one search (infinity before the first ok one).
std::vector<double> best_curve(const spacegen::CandidateBase& root, device::CpuEvaluator& cpu,
                               const std::shared_ptr<const device::Problem>& problem,
                               const perf_model::Model& model, AlgorithmKind algorithm, int evals,
                               std::uint64_t seed) {
  DeviceEvaluator evaluator(cpu, problem);
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.algorithm = algorithm;
  options.evals = evals;
  options.seed = seed;
  std::vector<double> curve;
  double best = std::numeric_limits<double>::infinity();
  Session session(root, evaluator, &model, options);
  const SessionStats stats = session.run([&](Evaluated&& e) {
    if (e.evaluation.check == device::Check::ok) best = std::min(best, *e.evaluation.time_ns);
    curve.push_back(best);
  });
  std::printf("  %s seed %llu: %zu evaluations, best %.4g ms\n%s\n",
              std::string(to_string(algorithm)).c_str(), static_cast<unsigned long long>(seed),
              curve.size(), best / 1e6, stats.summary().c_str());
  return curve;
}

class CpuSearch : public testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(CpuSearch, MctsFindsBetterCandidatesSoonerThanRandomDescents) {
  const auto& [name, size] = GetParam();
  const int evals = from_environment("SCULPT_EVALS", 300);
  const int seeds = from_environment("SCULPT_SEEDS", 5);
  const zoo::ZooLookup lookup = zoo::lookup_kernel(name, size);
  ASSERT_TRUE(lookup.ok()) << lookup.error;
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  std::string error;
  const auto description = device_description(device::Kind::cpu, {}, "", &error);
  ASSERT_TRUE(description) << error;
  const auto root = gpu_space::make_root(kernel, description->limits);
  const perf_model::Model model(kernel, *description);
  const auto problem = make_problem(*lookup.info, lookup.sizes, kernel, 1);
  device::CpuEvaluator cpu;

  std::vector<std::vector<double>> mcts, random;
  for (int s = 1; s <= seeds; ++s) {
    mcts.push_back(best_curve(*root, cpu, problem, model, AlgorithmKind::mcts, evals, s));
    random.push_back(best_curve(*root, cpu, problem, model, AlgorithmKind::random, evals, s));
  }
  double overall = std::numeric_limits<double>::infinity();
  for (const auto* runs : {&mcts, &random}) {
    for (const auto& c : *runs) overall = std::min(overall, c.back());
  }
  // Evaluations until within 10% of the overall best.
  const auto reach = [&](const std::vector<double>& c) {
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (c[i] <= 1.1 * overall) return static_cast<double>(i + 1);
    }
    return static_cast<double>(c.size() + 1);
  };
  std::vector<double> mcts_best, random_best, mcts_reach, random_reach;
  int wins = 0;
  for (int s = 0; s < seeds; ++s) {
    mcts_best.push_back(mcts[s].back());
    random_best.push_back(random[s].back());
    mcts_reach.push_back(reach(mcts[s]));
    random_reach.push_back(reach(random[s]));
    wins += mcts[s].back() < random[s].back();
  }

  const std::string csv = std::string(SCULPT_BINARY_DIR) + "/search_curves_" + name + ".csv";
  std::ofstream out(csv);
  out << "evaluations";
  for (int s = 1; s <= seeds; ++s) out << ",mcts_" << s << "_ms,random_" << s << "_ms";
  out << "\n";
  std::printf("%s %s, best time (ms) after N evaluations, seeds 1..%d, MCTS | random:\n",
              name.c_str(), size.c_str(), seeds);
  for (int i = 0; i < evals; ++i) {
    out << i + 1;
    for (int s = 0; s < seeds; ++s) {
      const auto at = [&](const std::vector<double>& c) {
        return c.empty() ? 0.0 : c[std::min<std::size_t>(i, c.size() - 1)] / 1e6;
      };
      out << "," << at(mcts[s]) << "," << at(random[s]);
    }
    out << "\n";
    if ((i + 1) % 25 == 0 || i == 9) {
      std::printf("  %4d:", i + 1);
      for (int s = 0; s < seeds; ++s)
        std::printf(" %7.3f", mcts[s][std::min<std::size_t>(i, mcts[s].size() - 1)] / 1e6);
      std::printf("  |");
      for (int s = 0; s < seeds; ++s)
        std::printf(" %7.3f", random[s][std::min<std::size_t>(i, random[s].size() - 1)] / 1e6);
      std::printf("\n");
    }
  }
  std::printf(
      "median best: MCTS %.4g ms, random %.4g ms; MCTS wins %d of %d; median evaluations "
      "to within 10%% of %.4g ms: MCTS %.0f, random %.0f; curves in %s\n",
      median(mcts_best) / 1e6, median(random_best) / 1e6, wins, seeds, overall / 1e6,
      median(mcts_reach), median(random_reach), csv.c_str());
  EXPECT_LT(median(mcts_best), median(random_best));
  EXPECT_GE(wins, seeds - 1);
  EXPECT_LE(median(mcts_reach), median(random_reach) / 2);
}

INSTANTIATE_TEST_SUITE_P(Kernels, CpuSearch,
                         testing::Values(std::pair<std::string, std::string>{"matmul",
                                                                             "256x256x32"},
                                         std::pair<std::string, std::string>{"mv", "2048x2048"}),
                         [](const auto& param) { return param.param.first; });

}  // namespace
}  // namespace sculpt::search
