// Propagation benchmarks on a space the size of the GPU space for a 1024^3 matmul
// (spaces/matmul_like.space over a synthetic backbone: 3 logical dimensions tiled 4 times
// plus 4 copy dimensions, 12 instructions, 4 memory blocks, room for 20 lowered objects).
// Reports decisions per second and the bytes of one candidate's decision vector.
#include <benchmark/benchmark.h>

#include <random>

#include "generated/bench_matmul_space/space.h"
#include "tests/spacegen/test_backbone.h"

namespace {

using sculpt::spacegen::CandidateBase;
using sculpt::spacegen::InstanceRef;
using sculpt::spacegen::Status;
using sculpt::spacegen::test::Backbone;
using Space = bench_matmul_space::Candidate;

std::unique_ptr<Space> matmul_root() {
  Backbone fun(48);
  const std::vector<std::int64_t> factors = {1, 2, 4, 8, 16, 32, 64, 128};
  for (std::uint32_t l = 0; l < 3; ++l) {
    fun.add_logical();
    for (int t = 0; t < 4; ++t) fun.add_dim(factors, l, /*flag=*/t == 0);
  }
  for (int c = 0; c < 4; ++c) fun.add_dim({1, 2, 4, 8, 16, 32});
  for (int i = 0; i < 12; ++i) fun.add_inst();
  fun.add_mem(16384);
  fun.add_mem(16384);
  fun.add_mem(32768);
  fun.add_mem(8192);
  auto shared = std::make_shared<Backbone>(fun);
  auto root = std::make_unique<Space>(shared, Space::make_layout(*shared));
  if (root->initialize() != Status::Ok) std::abort();
  return root;
}

const Space& root() {
  static const std::unique_ptr<Space> r = matmul_root();
  return *r;
}

/// Fixes the next open instance (in the fixed decision order of the search) to a random
/// value; false on a dead end or a full assignment.
bool random_decision(CandidateBase& c, std::mt19937& rng, std::size_t* decisions) {
  std::optional<InstanceRef> ref = c.first_open_instance();
  if (!ref) return false;
  std::vector<std::uint32_t> domain = c.domain(*ref);
  ++*decisions;
  return c.restrict(*ref, {domain[rng() % domain.size()]}) == Status::Ok;
}

/// Layout and initial propagation of the root candidate (once per search).
void BM_CreateRoot(benchmark::State& state) {
  for (auto _ : state) {
    auto r = matmul_root();
    benchmark::DoNotOptimize(r.get());
  }
}
BENCHMARK(BM_CreateRoot)->Unit(benchmark::kMicrosecond);

void BM_CopyCandidate(benchmark::State& state) {
  const Space& r = root();
  for (auto _ : state) {
    auto copy = r.clone();
    benchmark::DoNotOptimize(copy.get());
  }
  state.counters["bytes_per_candidate"] = static_cast<double>(r.block_bytes());
}
BENCHMARK(BM_CopyCandidate);

/// Copy of the root plus one decision and its propagation to a fixpoint (the step of a
/// search), the decision drawn among the root's open instances.
void BM_ApplyAndPropagate(benchmark::State& state) {
  const Space& r = root();
  std::vector<InstanceRef> open = r.open_instances();
  std::mt19937 rng(1);
  std::size_t decisions = 0;
  for (auto _ : state) {
    auto c = r.clone();
    const InstanceRef& ref = open[rng() % open.size()];
    std::vector<std::uint32_t> domain = c->domain(ref);
    ++decisions;
    benchmark::DoNotOptimize(c->restrict(ref, {domain[rng() % domain.size()]}));
  }
  state.counters["decisions_per_s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  state.counters["open_instances"] = static_cast<double>(open.size());
}
BENCHMARK(BM_ApplyAndPropagate);

/// A full random descent: decisions until the candidate is fully specified or dead.
void BM_RandomDescent(benchmark::State& state) {
  const Space& r = root();
  std::mt19937 rng(2);
  std::size_t decisions = 0;
  std::size_t complete = 0;
  std::size_t descents = 0;
  for (auto _ : state) {
    auto c = r.clone();
    while (random_decision(*c, rng, &decisions)) {
    }
    complete += !c->conflict();
    ++descents;
  }
  state.counters["decisions_per_s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  state.counters["decisions_per_descent"] =
      static_cast<double>(decisions) / static_cast<double>(descents);
  state.counters["complete_fraction"] =
      static_cast<double>(complete) / static_cast<double>(descents);
}
BENCHMARK(BM_RandomDescent)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
