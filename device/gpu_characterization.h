#pragma once
// Measures what the performance model needs to know of a GPU (perf_model::GpuRates): what the
// driver says of it (SMs, occupancy limits, L2 size, clock), the clock its SMs reach, the
// latencies of dependent chains and the throughputs of one SM in clocks, the bandwidths of DRAM
// and L2, the time of an empty launch as the CUDA device times a candidate, and how many blocks
// the GPU starts per second. The
// microbenchmarks are hand-written PTX, run in a CUDA worker process (cuda_worker.h), so that
// this process never initialises CUDA. The model's bound must never exceed a candidate's time:
// each figure is the best of several launches, the fastest rate and the shortest latency.
#include <cstdint>
#include <string>

#include "device/cuda_worker.h"

namespace sculpt::device {

struct GpuCharacterizationOptions {
  /// For tests, on the fake driver's PTX emulator as on a GPU: short chains and loops, buffers
  /// of a few hundred KiB (so that "DRAM" is then L2 on a GPU), few launches: rough figures.
  bool quick = false;
  /// The driver to load and the GPU (device 0 unless said).
  CudaWorkerConfig worker{};
};

/// What the driver says of the GPU (cuDeviceGetAttribute).
struct GpuAttributes {
  int compute_capability = 0;  ///< 90 for 9.0
  int sms = 0;
  int warp_size = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int registers_per_sm = 0;
  int shared_bytes_per_sm = 0;
  std::int64_t l2_bytes = 0;
  /// CU_DEVICE_ATTRIBUTE_CLOCK_RATE, in Hz: the SMs' highest (boost) clock; 0 when not given.
  double clock_hz = 0;
};

/// What the microbenchmarks measured, each figure the best of `runs` launches.
struct GpuMeasurements {
  int runs = 0;

  /// The SM clock reached under load, in Hz: %clock64 over %globaltimer (nanoseconds) around a
  /// dependent fp32 chain that runs `clock_seconds`.
  double clock_hz = 0;
  double clock_seconds = 0;

  /// Clocks per link of a dependent chain of `chain_ops` links, timed with %clock64 in one
  /// thread: fma.rn.f32, fma.rn.f64, ex2.approx.ftz.f32, a shared-memory pointer chase, a global
  /// one (ld.global.ca) over 32 lines it walked just before, so that each link hits L1, and
  /// bar.sync in a block of one warp. The end clock may be read before the last link is done:
  /// a chain of n times at least n - 1 latencies.
  int chain_ops = 0;
  double fp32_latency = 0;
  double fp64_latency = 0;
  double special_latency = 0;
  double shared_latency = 0;
  double global_latency = 0;
  double barrier_latency = 0;
  /// Clocks per link of a pointer chase with ld.global.cg.u64 (cached in L2, not L1), in one
  /// thread, over `l2_chase_bytes` of 128-byte lines (as many as the chain has links) in a
  /// random cycle, walked once just before the clocks start: each link an L2 hit.
  double l2_latency = 0;
  std::int64_t l2_chase_bytes = 0;

  /// One block of `block_threads` threads, each running independent chains, its first thread
  /// reading %clock64 at barriers before and after: warp instructions per clock of one SM.
  int block_threads = 0;
  double fp32_per_clock = 0;     ///< fma.rn.f32, 8 chains a thread
  double fp64_per_clock = 0;     ///< fma.rn.f64, 8 chains
  double special_per_clock = 0;  ///< ex2.approx.ftz.f32, 8 chains
  double mix_per_clock = 0;      ///< two fma.rn.f32 to one fma.rn.f64: what one pipe cannot hold
  double loads_per_clock = 0;    ///< ld.shared.f32 of consecutive words: a wavefront each
  /// Bytes per clock of one SM: ld.shared.v4.f32, and ld.global.ca.v4.f32 of 32 KiB that stays
  /// in L1.
  double shared_bytes_per_clock = 0;
  double l1_bytes_per_clock = 0;

  /// Bytes per second, the whole GPU, timed with CUDA events around one launch less the launch
  /// floor: a streaming read of `dram_bytes` (at least 8 times the L2 in full mode), a copy of
  /// its first half to its second (bytes read and written), and `l2_passes` reads of
  /// `l2_bytes` (at most a third of the L2), all with ld.global.cg (L2, not L1).
  std::int64_t dram_bytes = 0;
  double dram_read = 0;
  double dram_copy = 0;
  std::int64_t l2_bytes = 0;
  int l2_passes = 0;
  double l2_read = 0;

  /// The fastest of `launch_runs` launches of an empty kernel (one thread), each timed with CUDA
  /// events around it as the CUDA device times a candidate's run.
  double launch_floor_ns = 0;
  int launch_runs = 0;

  /// Blocks started per second, the whole GPU: `rate_blocks` blocks of `rate_threads` threads
  /// of the empty kernel over the time of one launch (CUDA events around it) less the launch
  /// floor (at most half the time), the fastest of `runs`.
  double block_rate = 0;
  std::uint32_t rate_blocks = 0;
  std::uint32_t rate_threads = 0;
};

struct GpuCharacteristics {
  /// The GPU, as the CUDA device names it: "NVIDIA H100 80GB HBM3 (sm_90)".
  std::string device;
  GpuAttributes attributes;
  GpuMeasurements measured;
  /// How long the characterization took, the worker's start and the PTX's compilation included.
  double seconds = 0;
};

/// Measures the GPU: within a few seconds in quick mode, and well within 3 minutes in full
/// mode (it is killed past 3 minutes). Throws DeviceError with one line when there is no driver
/// or no GPU ("no GPU: cuInit returned CUDA_ERROR_NO_DEVICE"), or when a microbenchmark cannot
/// be compiled, allocated or run.
GpuCharacteristics characterize_gpu(const GpuCharacterizationOptions& options = {});

/// The microbenchmarks' PTX (one module, for sm_90), for tests that assemble it with ptxas.
std::string gpu_benchmarks_ptx();

}  // namespace sculpt::device
