#include "gpu_space/device_description.h"

#include <nlohmann/json.hpp>

namespace sculpt::gpu_space {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DeviceDescription, name, compute_capability,
                                   max_threads_per_block, max_thread_level_size, max_block_dims,
                                   max_unroll, shared_mem_per_block, max_register_estimate,
                                   max_global_temp_elements)

std::optional<DeviceDescription> DeviceDescription::from_json(std::string_view text,
                                                              std::string* error) {
  try {
    return nlohmann::json::parse(text).get<DeviceDescription>();
  } catch (const nlohmann::json::exception& e) {
    if (error != nullptr) *error = e.what();
    return std::nullopt;
  }
}

std::string DeviceDescription::to_json() const { return nlohmann::json(*this).dump(2); }

}  // namespace sculpt::gpu_space
