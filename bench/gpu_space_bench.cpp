// Propagation benchmarks on the real GPU space: the root of the zoo kernel `matmul` at its
// default size (1024x1024x1024) on the built-in sm_90 description. Reports the bytes of one
// candidate's decision vector, the copy time, decisions per second for one decision from the
// root and over full random descents (a decision: clone + restrict + propagate to a fixpoint).
#include <benchmark/benchmark.h>

#include <random>

#include "backbone/zoo/zoo.h"
#include "bench/candidate_bench.h"
#include "gpu_space/space.h"
#include "search/descent.h"

namespace {

using sculpt::gpu_space::Candidate;

std::unique_ptr<Candidate> matmul_root() {
  const sculpt::backbone::KernelInfo* info = sculpt::backbone::find_kernel("matmul");
  if (info == nullptr) std::abort();
  auto root =
      sculpt::gpu_space::make_root(info->build(sculpt::backbone::default_sizes(info->sizes)),
                                   sculpt::gpu_space::DeviceDescription::sm90());
  if (root->conflict()) std::abort();
  return root;
}

const Candidate& root() {
  static const std::unique_ptr<Candidate> r = matmul_root();
  return *r;
}

/// Layout and initial propagation of the root candidate (once per search).
void BM_GpuCreateRoot(benchmark::State& state) {
  for (auto _ : state) {
    auto r = matmul_root();
    benchmark::DoNotOptimize(r.get());
  }
}
BENCHMARK(BM_GpuCreateRoot)->Unit(benchmark::kMillisecond);

void BM_GpuCopyCandidate(benchmark::State& state) { sculpt::bench::copy_candidate(state, root()); }
BENCHMARK(BM_GpuCopyCandidate);

void BM_GpuApplyAndPropagate(benchmark::State& state) {
  sculpt::bench::apply_and_propagate(state, root());
}
BENCHMARK(BM_GpuApplyAndPropagate);

/// Full random descents: at each step the first open instance takes a value drawn among
/// those whose restriction does not fail (each value tried is one decision, failed or not),
/// until the candidate is fully specified or every value of an instance fails. The block
/// grows when lowerings add objects: also reports the bytes of the fully specified candidates.
/// Run on one thread, then on every hardware thread from the same root, as a parallel search
/// would (decisions/s are then those of all threads together, over wall-clock time).
void BM_GpuRandomDescent(benchmark::State& state) {
  const Candidate& r = root();
  std::mt19937_64 rng(2 + static_cast<std::uint64_t>(state.thread_index()));
  std::size_t decisions = 0;
  std::size_t complete = 0;
  std::size_t descents = 0;
  std::size_t full_bytes = 0;
  for (auto _ : state) {
    const sculpt::search::Descent descent = sculpt::search::random_descent(r, rng);
    decisions += descent.propagations;
    if (descent.candidate != nullptr) {
      ++complete;
      full_bytes += descent.candidate->block_bytes();
    }
    ++descents;
  }
  sculpt::bench::report_descents(state, decisions, complete, descents);
  state.counters["bytes_per_full_candidate"] = benchmark::Counter(
      complete == 0 ? 0.0 : static_cast<double>(full_bytes) / static_cast<double>(complete),
      benchmark::Counter::kAvgThreads);
}
BENCHMARK(BM_GpuRandomDescent)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GpuRandomDescent)->Unit(benchmark::kMillisecond)->UseRealTime()->ThreadPerCpu();

}  // namespace

BENCHMARK_MAIN();
