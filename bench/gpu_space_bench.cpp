// Propagation benchmarks on the real GPU space: the root of the zoo kernel `matmul` at its
// default size (1024x1024x1024) on the built-in sm_90 description. Reports the bytes of one
// candidate's decision vector, the copy time, decisions per second for one decision from the
// root and over full random descents (a decision: clone + restrict + propagate to a fixpoint),
// and the descents' decisions split by what their lowerings do.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/candidate_bench.h"
#include "gpu_space/space.h"
#include "perf_model/description.h"
#include "search/session/descent.h"
#include "zoo/zoo.h"

namespace {

using sculpt::gpu_space::Candidate;

std::unique_ptr<Candidate> matmul_root() {
  const sculpt::backbone::KernelInfo* info = sculpt::zoo::find_kernel("matmul");
  if (info == nullptr) std::abort();
  auto root =
      sculpt::gpu_space::make_root(info->build(sculpt::backbone::default_sizes(info->sizes)),
                                   sculpt::perf_model::Description::named("sm_90").limits);
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
/// grows when lowerings add objects: also reports the bytes of the fully specified candidates,
/// and the instances a descent fixed (by its decisions or by their propagation: those of the
/// full candidate, lowerings' included, less those the root has fixed) per second of
/// descents. Dead ends count in the time but not in the instances: a lower bound. Also the
/// wake-ups per decision (instances whose propagators ran; see BM_GpuDescentDecision).
/// Run on one thread, then on 2, 4, 8... threads up to every hardware thread, from the same
/// root, as a parallel search would (rates are then those of all threads together, over
/// wall-clock time).
void BM_GpuRandomDescent(benchmark::State& state) {
  const Candidate& r = root();
  const std::size_t fixed_at_root = r.live_instance_count() - r.open_instance_count();
  std::mt19937_64 rng(2 + static_cast<std::uint64_t>(state.thread_index()));
  std::size_t decisions = 0;
  std::size_t complete = 0;
  std::size_t descents = 0;
  std::size_t full_bytes = 0;
  std::size_t fixed = 0;
  const std::uint64_t wakeups_before = sculpt::spacegen::CandidateBase::wakeups_on_this_thread();
  for (auto _ : state) {
    const sculpt::search::Descent descent = sculpt::search::random_descent(r, rng);
    decisions += descent.propagations;
    if (descent.candidate != nullptr) {
      state.PauseTiming();
      ++complete;
      full_bytes += descent.candidate->block_bytes();
      fixed += descent.candidate->live_instance_count() - fixed_at_root;
      state.ResumeTiming();
    }
    ++descents;
  }
  sculpt::bench::report_descents(state, decisions, complete, descents);
  state.counters["bytes_per_full_candidate"] = benchmark::Counter(
      complete == 0 ? 0.0 : static_cast<double>(full_bytes) / static_cast<double>(complete),
      benchmark::Counter::kAvgThreads);
  state.counters["instances_fixed_per_s"] =
      benchmark::Counter(static_cast<double>(fixed), benchmark::Counter::kIsRate);
  state.counters["wakeups_per_decision"] = benchmark::Counter(
      static_cast<double>(sculpt::spacegen::CandidateBase::wakeups_on_this_thread() -
                          wakeups_before) /
          static_cast<double>(decisions),
      benchmark::Counter::kAvgThreads);
}
BENCHMARK(BM_GpuRandomDescent)->Unit(benchmark::kMillisecond);
// How the rate scales, not only where it ends.
BENCHMARK(BM_GpuRandomDescent)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->ThreadRange(2, std::max(2, static_cast<int>(std::thread::hardware_concurrency())));

/// A decision some descent took, with the candidate it applied to.
struct Decision {
  std::unique_ptr<sculpt::spacegen::CandidateBase> parent;
  sculpt::spacegen::InstanceRef instance;
  std::vector<std::uint32_t> values;
};

/// What a decision's lowerings do.
enum class DecisionKind {
  /// One adds objects: the candidate gets a lowered copy of the kernel.
  lowering,
  /// A trigger fired whose lowering had nothing left to do (a dim mapping of a communication
  /// already lowered through another): the candidate only takes its own copy of the backbone.
  copy_only,
  /// No trigger fired.
  other,
};
constexpr std::size_t kDecisionKinds = 3;

/// The decisions of 60 random descents (those that did not fail), by kind.
using DescentDecisions = std::array<std::vector<Decision>, kDecisionKinds>;

const DescentDecisions& descent_decisions() {
  static const DescentDecisions decisions = [] {
    DescentDecisions d;
    std::mt19937_64 rng(2);
    for (int i = 0; i < 60; ++i) {
      const sculpt::search::Descent descent = sculpt::search::random_descent(root(), rng);
      std::unique_ptr<sculpt::spacegen::CandidateBase> node = root().clone();
      for (const sculpt::spacegen::Action& action : descent.actions) {
        std::string error;
        auto resolved = node->resolve(action, &error);
        if (!resolved) std::abort();
        auto child = node->clone();
        if (child->restrict(resolved->first, resolved->second) != sculpt::spacegen::Status::Ok) {
          std::abort();
        }
        const sculpt::gpu_space::Function& before = static_cast<const Candidate&>(*node).backbone();
        const sculpt::gpu_space::Function& after = static_cast<const Candidate&>(*child).backbone();
        const DecisionKind kind =
            &after == &before ? DecisionKind::other
            : after.kernel().statements().size() == before.kernel().statements().size()
                ? DecisionKind::copy_only
                : DecisionKind::lowering;
        d[static_cast<std::size_t>(kind)].push_back(
            {node->clone(), std::move(resolved->first), std::move(resolved->second)});
        node = std::move(child);
      }
    }
    return d;
  }();
  return decisions;
}

/// One decision of a descent (copy + restriction + propagation), cycling over the descents'
/// decisions of one kind. A lowering adds objects (a temporary, its store and load, and their
/// dimensions) whose instances are posted and propagated: few decisions, much of a descent's
/// time (decisions of each kind x time of each kind). Also reports the wake-ups per decision
/// and per second: the work a decision brings, and its rate.
void BM_GpuDescentDecision(benchmark::State& state, DecisionKind kind) {
  const DescentDecisions& all = descent_decisions();
  const std::vector<Decision>& decisions = all[static_cast<std::size_t>(kind)];
  std::size_t next = 0;
  const std::uint64_t wakeups_before = sculpt::spacegen::CandidateBase::wakeups_on_this_thread();
  for (auto _ : state) {
    const Decision& d = decisions[next++ % decisions.size()];
    auto c = d.parent->clone();
    benchmark::DoNotOptimize(c->restrict(d.instance, d.values));
  }
  const auto wakeups = static_cast<double>(
      sculpt::spacegen::CandidateBase::wakeups_on_this_thread() - wakeups_before);
  state.counters["decisions_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  // A decision's cost is its wake-ups (instances whose propagators ran) times their cost.
  state.counters["wakeups_per_decision"] = wakeups / static_cast<double>(state.iterations());
  state.counters["wakeups_per_s"] = benchmark::Counter(wakeups, benchmark::Counter::kIsRate);
  std::size_t total = 0;
  for (const std::vector<Decision>& of_kind : all) total += of_kind.size();
  state.counters["share_of_decisions"] =
      static_cast<double>(decisions.size()) / static_cast<double>(total);
}
BENCHMARK_CAPTURE(BM_GpuDescentDecision, lowering, DecisionKind::lowering);
BENCHMARK_CAPTURE(BM_GpuDescentDecision, copy_only, DecisionKind::copy_only);
BENCHMARK_CAPTURE(BM_GpuDescentDecision, other, DecisionKind::other);

}  // namespace

BENCHMARK_MAIN();
