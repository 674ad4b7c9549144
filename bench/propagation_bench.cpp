// Propagation benchmarks on a space the size of the GPU space for a 1024^3 matmul
// (spaces/matmul_like.space over a synthetic backbone: 3 logical dimensions tiled 4 times
// plus 4 copy dimensions, 12 instructions, 4 memory blocks, room for 20 lowered objects).
// Reports decisions per second and the bytes of one candidate's decision vector.
#include <benchmark/benchmark.h>

#include <random>

#include "bench/candidate_bench.h"
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

void BM_CopyCandidate(benchmark::State& state) { sculpt::bench::copy_candidate(state, root()); }
BENCHMARK(BM_CopyCandidate);

void BM_ApplyAndPropagate(benchmark::State& state) {
  sculpt::bench::apply_and_propagate(state, root());
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
  sculpt::bench::report_descents(state, decisions, complete, descents);
}
BENCHMARK(BM_RandomDescent)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
