// The CPU reference of the zoo's kernels, which every search computes once before its first
// candidate is checked: its time on the sizes a search starts with (the zoo derives each
// reference from the kernel's definition, frontend/tc_reference.h).
#include <benchmark/benchmark.h>

#include "backbone/host_args.h"
#include "zoo/zoo.h"

namespace {

void BM_Reference(benchmark::State& state, const char* kernel, const char* size) {
  const sculpt::zoo::ZooLookup lookup = sculpt::zoo::lookup_kernel(kernel, size);
  if (!lookup.ok()) {
    state.SkipWithError(lookup.error.c_str());
    return;
  }
  sculpt::backbone::HostArgs args =
      sculpt::backbone::make_host_args(lookup.info->build(lookup.sizes), 1);
  for (auto _ : state) lookup.info->reference(lookup.sizes, args);
}

BENCHMARK_CAPTURE(BM_Reference, axpy, "axpy", "67108864")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Reference, matmul_256x256x32, "matmul", "256x256x32")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Reference, matmul_1024, "matmul", "1024x1024x1024")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Reference, mv_2048, "mv", "2048x2048")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Reference, gesummv_4096, "gesummv", "4096")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
