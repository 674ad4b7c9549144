// The lower bound's speed on the zoo kernel `matmul` at 1024x1024x1024 on sm_90 (issue G's
// goals, pinned to one core: at most 150 us for the full bound of a fully specified candidate,
// 20 us for its global floors): the bound of fully specified candidates from random descents,
// layer by layer, of candidates halfway down those descents, of every node along descents (in
// their order), and of the root.
#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <vector>

#include "perf_model/model.h"
#include "perf_model/warp_accesses.h"
#include "search/session/descent.h"
#include "zoo/zoo.h"

namespace {

using sculpt::gpu_space::Candidate;
using sculpt::perf_model::Layers;

struct Fixture {
  std::unique_ptr<Candidate> root;
  std::unique_ptr<sculpt::perf_model::Model> model;
  std::vector<std::unique_ptr<sculpt::spacegen::CandidateBase>> leaves;
  std::vector<std::unique_ptr<sculpt::spacegen::CandidateBase>> halfway;
  /// Every node of 10 descents, root to leaf, in order.
  std::vector<std::unique_ptr<sculpt::spacegen::CandidateBase>> paths;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture f;
    const sculpt::backbone::KernelInfo* info = sculpt::zoo::find_kernel("matmul");
    const sculpt::backbone::Kernel kernel =
        info->build(sculpt::backbone::default_sizes(info->sizes));
    const auto description = sculpt::perf_model::Description::named("sm_90");
    f.root = sculpt::gpu_space::make_root(kernel, description.limits);
    f.model = std::make_unique<sculpt::perf_model::Model>(kernel, description);
    std::mt19937_64 rng(11);
    while (f.leaves.size() < 100) {
      sculpt::search::Descent d = sculpt::search::random_descent(*f.root, rng);
      if (!d.candidate) continue;
      std::unique_ptr<sculpt::spacegen::CandidateBase> half = f.root->clone();
      if (half->apply({d.actions.begin(), d.actions.begin() + d.actions.size() / 2}) !=
          sculpt::spacegen::Status::Ok) {
        std::abort();
      }
      f.halfway.push_back(std::move(half));
      if (f.leaves.size() < 10) {
        std::unique_ptr<sculpt::spacegen::CandidateBase> node = f.root->clone();
        for (const sculpt::spacegen::Action& action : d.actions) {
          if (node->apply({action}) != sculpt::spacegen::Status::Ok) std::abort();
          f.paths.push_back(node->clone());
        }
      }
      f.leaves.push_back(std::move(d.candidate));
    }
    return f;
  }();
  return f;
}

/// `cold`: each bound as if it were the first of a search (the answers the model keeps forgotten
/// first, outside the time); else as a search meets them, after those before.
void bound_of(benchmark::State& state,
              const std::vector<std::unique_ptr<sculpt::spacegen::CandidateBase>>& candidates,
              Layers layers, bool cold = true) {
  const Fixture& f = fixture();
  std::size_t i = 0;
  for (auto _ : state) {
    if (cold) {
      state.PauseTiming();
      sculpt::perf_model::forget_warp_totals();
      state.ResumeTiming();
    }
    const auto& c = static_cast<const Candidate&>(*candidates[i++ % candidates.size()]);
    benchmark::DoNotOptimize(f.model->bound(c, layers).ns);
  }
  state.counters["bounds_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_BoundLeaf(benchmark::State& state) { bound_of(state, fixture().leaves, Layers::all); }
BENCHMARK(BM_BoundLeaf)->Unit(benchmark::kMicrosecond);

void BM_BoundLeafPressure(benchmark::State& state) {
  bound_of(state, fixture().leaves, Layers::pressure);
}
BENCHMARK(BM_BoundLeafPressure)->Unit(benchmark::kMicrosecond);

void BM_BoundLeafFloors(benchmark::State& state) {
  bound_of(state, fixture().leaves, Layers::floors, /*cold=*/false);  // no access is counted
}
BENCHMARK(BM_BoundLeafFloors)->Unit(benchmark::kMicrosecond);

void BM_BoundHalfway(benchmark::State& state) { bound_of(state, fixture().halfway, Layers::all); }
BENCHMARK(BM_BoundHalfway)->Unit(benchmark::kMicrosecond);

/// The nodes of descents in the order a search meets them: a child after its parent.
void BM_BoundAlongDescents(benchmark::State& state) {
  bound_of(state, fixture().paths, Layers::all, /*cold=*/false);
}
BENCHMARK(BM_BoundAlongDescents)->Unit(benchmark::kMicrosecond);

void BM_BoundRoot(benchmark::State& state) {
  const Fixture& f = fixture();
  for (auto _ : state) benchmark::DoNotOptimize(f.model->bound(*f.root).ns);
}
BENCHMARK(BM_BoundRoot)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
