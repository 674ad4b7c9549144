#pragma once
// What the implementation space needs to know about the target GPU: the limits its counters are
// bounded by. A description is data (JSON); the built-in one is an H100 (sm_90). The CPU backend
// runs the same space under the same limits, so a candidate found there is also a GPU kernel.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sculpt::gpu_space {

struct DeviceDescription {
  std::string name = "sm_90";
  /// Compute capability times 10 (90 for sm_90): the PTX target.
  int compute_capability = 90;
  std::int64_t max_threads_per_block = 1024;
  /// Largest thread-block extent on x, y and z.
  std::array<std::int64_t, 3> max_thread_level_size = {1024, 1024, 64};
  std::int64_t max_block_dims = 3;
  /// Copies of one instruction in the unrolled code.
  std::int64_t max_unroll = 512;
  /// Static shared memory per block, in bytes (more needs an opt-in the space does not take).
  std::int64_t shared_mem_per_block = 48 * 1024;
  /// Bound on the registers-per-thread estimate (every value as if live at once; ptxas reuses
  /// registers of values whose lives do not overlap, so this is twice the 255 a thread has).
  std::int64_t max_register_estimate = 512;
  /// Elements of every global temporary together.
  std::int64_t max_global_temp_elements = std::int64_t{1} << 26;

  static DeviceDescription sm90();
  /// Reads a description from JSON text; absent fields keep the sm_90 values. Nullopt with a
  /// message in `error` for malformed text or a field of the wrong type.
  static std::optional<DeviceDescription> from_json(std::string_view text, std::string* error);
  std::string to_json() const;
};

}  // namespace sculpt::gpu_space
