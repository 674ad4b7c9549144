// The search session's own speed (issue H's goal: at least 40 rollouts per second per core on
// matmul 1024x1024x1024 on sm_90), on a stand-in device that answers at once, so that only the
// search is measured: rollouts (each a walk from the tree to a fully specified candidate or a
// dead end, with the bound of every child it weighs) and evaluations per second, for both
// tree searches, with one searching thread. (Random descents are left out: on this device, whose
// times are within 4x of the bound, almost every random leaf is cut, so they submit about one
// candidate in ten seconds.) Pin it to one core (taskset -c 0) for the per-core
// figure. Also the learnt model's cost as its samples grow.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "perf_model/model.h"
#include "search/gpu/code_features.h"
#include "search/model/additive_model.h"
#include "search/session/session.h"
#include "search/session/stand_in_device.h"
#include "zoo/zoo.h"

namespace {

/// What MCTS learns its model of: the code a candidate of the GPU space becomes.
const sculpt::search::CodeFeatures kCodeFeatures;

using sculpt::search::AlgorithmKind;

struct Fixture {
  std::unique_ptr<sculpt::gpu_space::Candidate> root;
  std::unique_ptr<sculpt::perf_model::Model> model;
};

const Fixture& matmul() {
  static const Fixture f = [] {
    Fixture f;
    const sculpt::backbone::KernelInfo* info = sculpt::zoo::find_kernel("matmul");
    const sculpt::backbone::Kernel kernel =
        info->build(sculpt::backbone::default_sizes(info->sizes));
    const auto description = sculpt::perf_model::Description::named("sm_90");
    f.root = sculpt::gpu_space::make_root(kernel, description.limits);
    f.model = std::make_unique<sculpt::perf_model::Model>(kernel, description);
    return f;
  }();
  return f;
}

/// One session of state.range(0) evaluations per iteration; counters per second of the session's
/// wall time. A longer session finds more candidates again and cuts more by the bound.
void BM_Session(benchmark::State& state, AlgorithmKind algorithm) {
  const Fixture& f = matmul();
  std::int64_t rollouts = 0, evaluated = 0, dead_ends = 0;
  double wall = 0, model = 0, propagation = 0;
  std::uint64_t seed = 1;
  for (auto _ : state) {
    sculpt::search::StandInDevice device(std::chrono::microseconds(0));
    sculpt::search::SessionOptions options;
    options.features = &kCodeFeatures;
    options.algorithm = algorithm;
    options.evals = state.range(0);
    options.seed = seed++;
    sculpt::search::Session session(*f.root, device, f.model.get(), options);
    const sculpt::search::SessionStats stats = session.run([](sculpt::search::Evaluated&&) {});
    rollouts += stats.rollouts;
    evaluated += stats.evaluated;
    dead_ends += stats.dead_ends;
    wall += stats.wall_s;
    model += stats.model_s;
    propagation += stats.propagation_s;
  }
  state.counters["rollouts/s"] = static_cast<double>(rollouts) / wall;
  state.counters["evaluations/s"] = static_cast<double>(evaluated) / wall;
  state.counters["dead_ends"] = static_cast<double>(dead_ends) / static_cast<double>(rollouts);
  state.counters["model_share"] = model / wall;
  state.counters["propagation_share"] = propagation / wall;
}

BENCHMARK_CAPTURE(BM_Session, mcts, AlgorithmKind::mcts)
    ->Arg(50)
    ->Arg(700)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Session, bb, AlgorithmKind::bb)->Arg(50)->Unit(benchmark::kMillisecond);

/// The learnt model that screening asks (search/model/additive_model.h) fed state.range(0) samples
/// as a long GPU search would: each a candidate of matmul 1024^3 (2,200 moves, every decision one
/// of four values) with a time.
void BM_AdditiveModel(benchmark::State& state) {
  constexpr int kDecisions = 2200;
  std::vector<std::vector<std::uint64_t>> samples(static_cast<std::size_t>(state.range(0)));
  std::mt19937_64 rng(1);
  for (auto& moves : samples) {
    for (int d = 0; d < kDecisions; ++d) moves.push_back(4 * d + rng() % 4);
  }
  for (auto _ : state) {
    sculpt::search::AdditiveModel model;
    for (const auto& moves : samples) model.add(moves, std::exp(8 + 0.01 * (rng() % 100)));
    benchmark::DoNotOptimize(model.predict(samples.front()));
  }
  state.counters["samples/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * state.range(0)), benchmark::Counter::kIsRate);
}

BENCHMARK(BM_AdditiveModel)->Arg(1000)->Arg(8000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
