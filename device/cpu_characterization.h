#pragma once
// Measures what the performance model needs to know of this CPU (perf_model::CpuRates): the
// peak fp32 rate, the cache sizes and the bandwidth of each memory level, and the time of an
// empty kernel. The microbenchmarks are C compiled at run time by the CPU device's compiler
// with its flags, so that the rates are those the candidates' code can reach; the model's bound
// must never exceed a candidate's time, so each rate is the best seen, never an average.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "device/cpu_evaluator.h"

namespace sculpt::device {

struct CpuCharacterizationOptions {
  /// Under 3 seconds, for tests: shorter and fewer timings, so rougher (lower) rates.
  bool quick = false;
  /// As the CPU device's (CpuEvaluatorOptions): empty compiler: $SCULPT_CC, else "cc"; empty
  /// cache folder: CCompiler::default_cache_dir().
  std::string compiler{};
  std::vector<std::string> flags = CpuEvaluatorOptions{}.flags;
  std::vector<std::string> flags_if_accepted = CpuEvaluatorOptions{}.flags_if_accepted;
  std::filesystem::path cache_dir{};
};

/// One memory level, every core together, in bytes per second.
struct MemoryLevel {
  std::int64_t bytes_per_core = 0;  ///< the working set of each core
  double read = 0;
  double write = 0;
  double copy = 0;  ///< bytes read and bytes written together
  /// The fastest of the three, and not below a larger level's: data that fits a smaller level
  /// can be served at least as fast.
  double bandwidth = 0;
};

struct CpuCharacteristics {
  /// /proc/cpuinfo's model name; empty where it gives none.
  std::string model_name;
  /// cpu_identity() when measured.
  std::string identity;
  /// CPUs this process may run on (its affinity mask).
  int cores = 0;
  /// The widest vector registers the compiler's flags enable (-march=native), in bytes.
  int simd_bytes = 0;

  /// fp32 operations per second, an FMA counting once: on one core, on every core together,
  /// and per core, the larger of the first and the second divided by `cores`.
  double fp32_one_core = 0;
  double fp32_all_cores = 0;
  double fp32_per_second = 0;

  /// From sysfs: the level 1 data and level 2 caches of the first CPU of the affinity mask;
  /// level 3, every distinct one of the mask's CPUs together (the level below when none).
  std::int64_t l1_bytes = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t l3_bytes = 0;

  /// Working sets of half of each cache (the L3's share of each core), and four times the L3
  /// (at least 64 MiB) for DRAM.
  MemoryLevel l1, l2, l3, dram;

  /// The fastest of `launch_runs` runs of an empty OpenMP parallel region, timed the way the
  /// CPU device times a candidate's run (ForkServer).
  double launch_floor_ns = 0;
  int launch_runs = 0;

  /// How the rates were timed: the fastest of up to `sections` timed sections of at least
  /// `section_seconds` / 2 of CPU time each (that of the team's slowest thread: waiting for a
  /// core held by another process does not count) per benchmark, in `rounds` rounds run one
  /// after another, each on memory of its own.
  int sections = 0;
  int rounds = 0;
  double section_seconds = 0;
  /// The share of the CPUs' time that other processes (or, in a virtual machine, other
  /// machines) took while the benchmarks ran, from 0 to 1: they lower the rates measured.
  double others_busy = 0;
  /// How long the characterization took, compilation included.
  double seconds = 0;
};

/// Past this share of the CPUs' time taken by other work while measuring (others_busy), the rates
/// are too low to trust.
inline constexpr double kBusyShare = 0.05;

/// "AMD EPYC, 2 cores": the processor's model name and the CPUs this process may run on, what
/// tells a description of this machine from another's, without measuring anything.
std::string cpu_identity();

/// Measures this machine. Throws DeviceError when the C compiler does not run, the
/// microbenchmarks do not compile, or their process fails.
CpuCharacteristics characterize_cpu(const CpuCharacterizationOptions& options = {});

}  // namespace sculpt::device
