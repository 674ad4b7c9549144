#pragma once
// Measures shared by the propagation suites, for any space's root candidate: the copy of a
// candidate (with the bytes of its decision vector), one decision from the root, and the
// counters of a series of descents.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "spacegen/runtime/candidate.h"

namespace sculpt::bench {

inline void copy_candidate(benchmark::State& state, const spacegen::CandidateBase& root) {
  for (auto _ : state) {
    auto copy = root.clone();
    benchmark::DoNotOptimize(copy.get());
  }
  state.counters["bytes_per_candidate"] = static_cast<double>(root.block_bytes());
}

/// Copy of the root plus one decision (a random value of a random open instance) propagated to
/// a fixpoint: the step of a search.
inline void apply_and_propagate(benchmark::State& state, const spacegen::CandidateBase& root) {
  const std::vector<spacegen::InstanceRef> open = root.open_instances();
  std::mt19937 rng(1);
  std::size_t decisions = 0;
  for (auto _ : state) {
    auto c = root.clone();
    const spacegen::InstanceRef& ref = open[rng() % open.size()];
    const std::vector<std::uint32_t> domain = c->domain(ref);
    ++decisions;
    benchmark::DoNotOptimize(c->restrict(ref, {domain[rng() % domain.size()]}));
  }
  state.counters["decisions_per_s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  state.counters["open_instances"] = static_cast<double>(open.size());
}

/// Counters of `descents` descents that took `decisions` restrictions (failed ones included)
/// and of which `complete` reached a fully specified candidate. On several threads the rate is
/// that of all threads together and the others are averages.
inline void report_descents(benchmark::State& state, std::size_t decisions, std::size_t complete,
                            std::size_t descents) {
  state.counters["decisions_per_s"] =
      benchmark::Counter(static_cast<double>(decisions), benchmark::Counter::kIsRate);
  state.counters["decisions_per_descent"] =
      benchmark::Counter(static_cast<double>(decisions) / static_cast<double>(descents),
                         benchmark::Counter::kAvgThreads);
  state.counters["complete_fraction"] =
      benchmark::Counter(static_cast<double>(complete) / static_cast<double>(descents),
                         benchmark::Counter::kAvgThreads);
}

}  // namespace sculpt::bench
