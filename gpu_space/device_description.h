#pragma once
// What the implementation space needs to know about the target GPU: the limits its counters are
// bounded by. The figures live in the device's description file, with the rates the performance
// model reads (perf_model/devices/*.json, loaded by perf_model::Description); the CPU backend runs
// the space under a GPU's limits, so a candidate found there is also a GPU kernel.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sculpt::gpu_space {

struct DeviceDescription {
  std::string name;
  /// Compute capability times 10 (90 for sm_90): the PTX target.
  int compute_capability = 0;
  std::int64_t max_threads_per_block = 0;
  /// Largest thread-block extent on x, y and z.
  std::array<std::int64_t, 3> max_thread_level_size = {0, 0, 0};
  std::int64_t max_block_dims = 0;
  /// Copies of one instruction in the unrolled code.
  std::int64_t max_unroll = 0;
  /// Static shared memory per block, in bytes (more needs an opt-in the space does not take).
  std::int64_t shared_mem_per_block = 0;
  /// Bound on the registers-per-thread estimate (every value as if live at once; ptxas reuses
  /// registers of values whose lives do not overlap, so this may be above what a thread has).
  std::int64_t max_register_estimate = 0;
  /// Elements of every global temporary together.
  std::int64_t max_global_temp_elements = 0;

  /// Reads limits from JSON text, every field present. Nullopt with a message in `error` for
  /// malformed text, a missing field or a field of the wrong type.
  static std::optional<DeviceDescription> from_json(std::string_view text, std::string* error);
  std::string to_json() const;
};

}  // namespace sculpt::gpu_space
