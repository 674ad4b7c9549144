// The CPU device cuts a candidate whose sample of its grid (device::RunPlan::sample) puts it past
// the cutoff: the samples of random candidates of a matmul must rank them as their full runs do.
// Timed, so run alone (SERIAL): under a second test on the same two cores, samples of a few
// milliseconds were off by five times.
#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <numeric>
#include <random>
#include <vector>

#include "codegen/c_printer.h"
#include "codegen/lower.h"
#include "device/cpu_evaluator.h"
#include "device/cutoff.h"
#include "perf_model/description.h"
#include "search/session/descent.h"
#include "search/session/problem.h"
#include "zoo/zoo.h"

namespace sculpt::codegen {
namespace {

/// Spearman's rank correlation of two series of distinct values.
double rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  const auto ranks = [](const std::vector<double>& v) {
    std::vector<std::size_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](std::size_t x, std::size_t y) { return v[x] < v[y]; });
    std::vector<double> rank(v.size());
    for (std::size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<double>(r);
    return rank;
  };
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  double d2 = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) d2 += (ra[i] - rb[i]) * (ra[i] - rb[i]);
  return 1 - 6 * d2 / (n * (n * n - 1));
}

// Each estimate within a small factor of its run, and the ranks alike.
TEST(SampledRuns, RankRandomCandidatesAsTheirFullRunsDo) {
  const zoo::ZooLookup lookup = zoo::lookup_kernel("matmul", "256x256x256");
  ASSERT_TRUE(lookup.ok()) << lookup.error;
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, perf_model::Description::named("sm_90").limits);
  const auto problem = search::make_problem(*lookup.info, lookup.sizes, kernel, /*seed=*/5);
  device::CpuEvaluatorOptions options;
  options.plan.run_timeout = std::chrono::seconds(5);
  options.plan.min_runs = options.plan.max_runs = 3;
  device::CpuEvaluator cpu(options);
  std::mt19937_64 rng(11);
  std::vector<std::future<device::Evaluation>> evaluations;
  for (int i = 0; evaluations.size() < 10 && i < 1000; ++i) {
    search::Descent descent = search::random_descent(*root, rng);
    if (!descent.candidate) continue;
    const LoweredKernel lowered =
        lower(static_cast<const gpu_space::Candidate&>(*descent.candidate));
    if (lowered.num_blocks() < 64) continue;  // too few rounds of blocks to sample
    // A cutoff no candidate reaches, its own (a cutoff learns from the times it sees): every
    // candidate is sampled, then run in full.
    evaluations.push_back(
        cpu.submit({device::Language::c, print_c(lowered, "candidate"), "candidate", {}}, problem,
                   std::make_shared<device::Cutoff>(1.0, 1e12)));
  }
  std::vector<double> estimates, times;
  for (auto& f : evaluations) {
    const device::Evaluation e = f.get();
    if (e.check != device::Check::ok) continue;  // a timeout at 5 s
    ASSERT_TRUE(e.estimate_ns) << "a grid of 64 blocks or more is sampled";
    estimates.push_back(*e.estimate_ns);
    times.push_back(*e.time_ns);
    EXPECT_GT(*e.estimate_ns / *e.time_ns, 1 / 3.0) << *e.estimate_ns << " ns for " << *e.time_ns;
    EXPECT_LT(*e.estimate_ns / *e.time_ns, 3.0) << *e.estimate_ns << " ns for " << *e.time_ns;
  }
  ASSERT_GE(times.size(), 6u);
  EXPECT_GE(rank_correlation(estimates, times), 0.8);
}

}  // namespace
}  // namespace sculpt::codegen
