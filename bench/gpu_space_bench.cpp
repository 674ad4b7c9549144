// Propagation benchmarks on the real GPU space: the root of the zoo kernel `matmul` at its
// default size (1024x1024x1024) on the built-in sm_90 description. Reports the bytes of one
// candidate's decision vector, the copy time, decisions per second for one decision from the
// root and over full random descents (a decision: clone + restrict + propagate to a fixpoint).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>

#include "backbone/zoo/zoo.h"
#include "gpu_space/space.h"

namespace {

using sculpt::gpu_space::Candidate;
using sculpt::spacegen::CandidateBase;
using sculpt::spacegen::InstanceRef;
using sculpt::spacegen::Status;

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

void BM_GpuCopyCandidate(benchmark::State& state) {
  const Candidate& r = root();
  for (auto _ : state) {
    auto copy = r.clone();
    benchmark::DoNotOptimize(copy.get());
  }
  state.counters["bytes_per_candidate"] = static_cast<double>(r.block_bytes());
}
BENCHMARK(BM_GpuCopyCandidate);

/// Copy of the root plus one decision on a random open instance and its propagation to a
/// fixpoint (the step of a search).
void BM_GpuApplyAndPropagate(benchmark::State& state) {
  const Candidate& r = root();
  const std::vector<InstanceRef> open = r.open_instances();
  std::mt19937 rng(1);
  std::size_t decisions = 0;
  for (auto _ : state) {
    auto c = r.clone();
    const InstanceRef& ref = open[rng() % open.size()];
    const std::vector<std::uint32_t> domain = c->domain(ref);
    ++decisions;
    benchmark::DoNotOptimize(c->restrict(ref, {domain[rng() % domain.size()]}));
  }
  state.counters["decisions_per_s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  state.counters["open_instances"] = static_cast<double>(open.size());
}
BENCHMARK(BM_GpuApplyAndPropagate);

/// Full random descents: at each step the first open instance takes a value drawn among
/// those whose restriction does not fail (each value tried is one decision, failed or not),
/// until the candidate is fully specified or every value of an instance fails.
void BM_GpuRandomDescent(benchmark::State& state) {
  const Candidate& r = root();
  std::mt19937 rng(2);
  std::size_t decisions = 0;
  std::size_t complete = 0;
  std::size_t descents = 0;
  for (auto _ : state) {
    std::unique_ptr<CandidateBase> c = r.clone();
    bool dead = false;
    while (!dead) {
      const std::optional<InstanceRef> ref = c->first_open_instance();
      if (!ref) break;
      std::vector<std::uint32_t> values = c->domain(*ref);
      std::shuffle(values.begin(), values.end(), rng);
      dead = true;
      for (std::uint32_t v : values) {
        std::unique_ptr<CandidateBase> child = c->clone();
        ++decisions;
        if (child->restrict(*ref, {v}) == Status::Ok) {
          c = std::move(child);
          dead = false;
          break;
        }
      }
    }
    complete += !dead;
    ++descents;
  }
  state.counters["decisions_per_s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  state.counters["decisions_per_descent"] =
      static_cast<double>(decisions) / static_cast<double>(descents);
  state.counters["complete_fraction"] =
      static_cast<double>(complete) / static_cast<double>(descents);
}
BENCHMARK(BM_GpuRandomDescent)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
