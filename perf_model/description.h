#pragma once
// What the model knows of a device, as data: one JSON file per device (perf_model/devices/)
// holding both the limits the implementation space reads (gpu_space::DeviceDescription) and the
// rates and latencies the lower bound divides by, so that the two never drift apart. Every
// figure says where it comes from: a datasheet, a measurement (`sculpt characterize`), or an
// estimate chosen on the safe side of published measurements.
//
// A rate is an upper bound (a kernel never goes faster) and a latency a lower bound: the bound
// stays valid when a figure errs in that direction, and only loses sharpness.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpu_space/device_description.h"

namespace sculpt::perf_model {

/// A figure and where it comes from.
struct Figure {
  double value = 0;
  std::string source;
};

/// A GPU, per streaming multiprocessor (SM) unless said otherwise. Throughputs are in warp
/// instructions per clock per SM, latencies in clocks.
struct GpuRates {
  Figure sms;
  Figure clock_hz;  ///< the highest clock the SMs run at (boost)
  Figure warp_size;
  Figure issue_per_clock;  ///< warp instructions issued per clock per SM (one per scheduler)
  Figure fp32_per_clock;
  Figure fp64_per_clock;
  Figure special_per_clock;  ///< special functions (ex2)
  Figure memory_per_clock;   ///< load and store instructions (the LSU pipe)
  Figure fp32_latency;
  Figure fp64_latency;
  Figure special_latency;
  Figure shared_latency;
  /// The fastest a global load returns (an L1 hit: a line another warp of the SM brought in).
  Figure global_latency;
  /// The fastest a global load that misses L1 returns (an L2 hit): what a load bypassing L1
  /// (.cg) waits at least.
  Figure l2_latency;
  Figure barrier_latency;
  Figure l1_bytes_per_clock;  ///< the L1 / shared-memory data path, per SM
  Figure sector_bytes;        ///< the unit of global memory transactions
  Figure shared_banks;        ///< 4-byte banks of shared memory
  Figure l2_bytes;
  Figure l2_bandwidth;    ///< bytes per second, the whole GPU
  Figure dram_bandwidth;  ///< bytes per second
  Figure max_threads_per_sm;
  Figure max_blocks_per_sm;
  Figure registers_per_sm;
  Figure max_registers_per_thread;
  Figure shared_bytes_per_sm;
  Figure launch_floor_ns;  ///< the time of an empty kernel, as the device times a launch
  /// Blocks the GPU starts per second, at most, whatever they do: a grid of many small blocks
  /// waits for their dispatch.
  Figure block_rate;
};

/// A CPU running the generated C: blocks spread over cores (OpenMP), threads of a block one
/// after another on one core.
struct CpuRates {
  Figure cores;
  Figure fp32_per_second;  ///< fp32 operations per second and core, an FMA counting once
  Figure l1_bytes;         ///< per core
  Figure l2_bytes;         ///< per core
  Figure l3_bytes;         ///< the whole processor
  Figure l1_bandwidth;     ///< bytes per second, every core together
  Figure l2_bandwidth;
  Figure l3_bandwidth;
  Figure dram_bandwidth;
  Figure launch_floor_ns;  ///< the time of an empty kernel, as the device times a run
};

struct Description {
  std::string name;
  /// What the device is, in words.
  std::string about;
  /// The limits the space is bounded by. The CPU runs the space of a GPU, whose limits it
  /// names in its file ("limits": "sm_90"): `limits_of` is then that name, written back as is.
  gpu_space::DeviceDescription limits;
  std::string limits_of;
  /// Exactly one of the two.
  std::optional<GpuRates> gpu;
  std::optional<CpuRates> cpu;

  /// A description shipped with sculpt ("sm_90", "cpu"), or a file. Nullopt with one message
  /// naming the file and the field for a description that cannot be used.
  static std::optional<Description> load(std::string_view name_or_path, std::string* error);
  /// Parses JSON text; `origin` names it in messages.
  static std::optional<Description> parse(std::string_view text, std::string_view origin,
                                          std::string* error);
  /// Names of the shipped descriptions.
  static std::vector<std::string> shipped();
  /// The shipped description called `name`, which must exist (checked).
  static Description named(std::string_view name);
  /// The shipped description of the GPU `model` (its `about`: "NVIDIA H200 (sm_90)"), if any.
  static std::optional<Description> of_gpu(std::string_view model);

  std::string to_json() const;
};

/// Each figure of a description by its name in the file, for listings and comparisons.
struct NamedFigure {
  std::string_view name;
  const Figure* figure;
};
std::vector<NamedFigure> figures(const GpuRates& rates);
std::vector<NamedFigure> figures(const CpuRates& rates);

}  // namespace sculpt::perf_model
