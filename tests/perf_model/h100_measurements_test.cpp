// The bound against times an H100 SXM5 measured: candidates of three 2-minute MCTS searches
// (axpy 2^26, matmul 256x256x32 and 1024^3, `.gpu/run.sh search` of 2026-11-27), kept in h100/
// as search logs (the 40 fastest of each and every fourth of the rest). Each candidate is
// rebuilt from its logged actions on the shipped sm_90 description: its bound must not be above
// its measured time (by more than the 2% of noise a search allows), and the bound must rank the
// candidates as their times do at least as well as on 2026-11-27, after the bound learnt from
// these logs (the sequential loops' chains, L2's latency, the blocks' dispatch). The logs keep
// the bound the search saw, which ranked them far worse (a rank correlation of 0.09 to 0.57).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "perf_model/model.h"
#include "search/event_log.h"
#include "zoo/zoo.h"

namespace sculpt::perf_model {
namespace {

struct Measured {
  std::int64_t id = 0;
  double time_ns = 0;
  double bound_ns = 0;
};

/// Positions of `v`'s values in increasing order.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t k = 0; k < order.size(); ++k) r[order[k]] = static_cast<double>(k);
  return r;
}

/// Spearman's rank correlation of bounds and times.
double rank_correlation(const std::vector<Measured>& m) {
  std::vector<double> bounds, times;
  for (const Measured& x : m) {
    bounds.push_back(x.bound_ns);
    times.push_back(x.time_ns);
  }
  const std::vector<double> a = ranks(bounds), b = ranks(times);
  double d2 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d2 += (a[i] - b[i]) * (a[i] - b[i]);
  const double n = static_cast<double>(m.size());
  return 1 - 6 * d2 / (n * (n * n - 1));
}

struct Case {
  std::string log;
  /// What the bound's rank correlation with the times was on 2026-11-27, rounded down.
  double correlation;
};

/// The bounds the search logged, beside the times.
std::vector<Measured> as_logged(const search::LogContents& log) {
  std::vector<Measured> out;
  for (const search::LogEvaluation& e : log.evaluations) {
    if (e.bound_ns && e.time_ns) out.push_back({e.id, *e.time_ns, *e.bound_ns});
  }
  return out;
}

class H100Measurements : public testing::TestWithParam<Case> {};

TEST_P(H100Measurements, BoundIsNeverAboveTheTimeAndRanksTheCandidates) {
  const std::string path =
      std::string(SCULPT_SOURCE_DIR) + "/tests/perf_model/h100/" + GetParam().log + ".jsonl";
  const search::LogContents log = search::read_log(path);
  ASSERT_TRUE(log.ok()) << log.error;
  std::string size;
  for (const auto& [name, value] : log.header.sizes) {
    size += (size.empty() ? "" : "x") + std::to_string(value);
  }
  const zoo::ZooLookup lookup = zoo::lookup_kernel(log.header.kernel, size);
  ASSERT_TRUE(lookup.ok()) << lookup.error;
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const Description sm90 = Description::named("sm_90");
  const auto root = gpu_space::make_root(kernel, sm90.limits);
  const Model model(kernel, sm90);

  // A candidate the space no longer holds (the space changed since) is left out; most must
  // still be there for the check to mean something.
  std::vector<Measured> measured;
  std::vector<std::int64_t> gone;
  for (const search::LogEvaluation& e : log.evaluations) {
    ASSERT_TRUE(e.time_ns) << "candidate " << e.id;
    std::unique_ptr<spacegen::CandidateBase> c = root->clone();
    if (c->apply(e.actions) == spacegen::Status::Conflict || c->first_open_instance()) {
      gone.push_back(e.id);
      continue;
    }
    const Bound b = model.bound(static_cast<const gpu_space::Candidate&>(*c));
    measured.push_back({e.id, *e.time_ns, b.ns});
    EXPECT_LE(b.ns, *e.time_ns * 1.02)
        << "candidate " << e.id << " ran in " << *e.time_ns << " ns on the H100\n"
        << b.explain();
  }
  EXPECT_GE(measured.size(), log.evaluations.size() / 2)
      << gone.size() << " candidates no longer replay on the space";

  const double correlation = rank_correlation(measured);
  std::vector<double> ratios;
  for (const Measured& m : measured) ratios.push_back(m.time_ns / m.bound_ns);
  std::sort(ratios.begin(), ratios.end());
  std::printf(
      "%s: %zu candidates (%zu no longer in the space), time / bound median %.3g, "
      "least %.3g; rank correlation %.3f (the logged bound's %.3f)\n",
      GetParam().log.c_str(), measured.size(), gone.size(), ratios[ratios.size() / 2],
      ratios.front(), correlation, rank_correlation(as_logged(log)));
  EXPECT_GE(correlation, GetParam().correlation);
}

INSTANTIATE_TEST_SUITE_P(Searches, H100Measurements,
                         testing::Values(Case{"axpy_67108864", 0.75},
                                         Case{"matmul_256x256x32", 0.89},
                                         Case{"matmul_1024x1024x1024", 0.77}),
                         [](const testing::TestParamInfo<Case>& info) { return info.param.log; });

}  // namespace
}  // namespace sculpt::perf_model
