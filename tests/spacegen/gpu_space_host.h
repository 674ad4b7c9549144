#pragma once
// The host code of the GPU space, evaluated for its oracle test (gpu_space_oracle_test.cpp):
// every piece of host code the reference evaluator asks about, by host_key
// (gpu_space_host_key.h), as a function of the backbone and the bound objects. The table is
// generated at build time from the model by gpu_space_host_gen.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpu_space/function.h"
#include "spacedsl/oracle.h"
#include "support/check.h"

namespace sculpt::spacegen::test {

using GpuBindings = std::span<const spacedsl::oracle::Binding>;

struct GpuHostTable {
  using Scalar = std::int64_t (*)(const gpu_space::Function&, GpuBindings);
  using Range = std::vector<std::int64_t> (*)(const gpu_space::Function&, GpuBindings);
  std::unordered_map<std::string, Scalar> scalars;  // static filters and host integers
  std::unordered_map<std::string, Range> ranges;    // set iterators (ids) and universes
};

/// Generated (gpu_space_host_gen.cpp).
const GpuHostTable& gpu_host_table();

/// The id of the object bound to `$name`.
inline spacedsl::oracle::ObjectId bound(GpuBindings b, std::string_view name) {
  for (const spacedsl::oracle::Binding& binding : b) {
    if (binding.name == name) return binding.id;
  }
  SCULPT_CHECK(false) << "host code reads $" << name << ", which is not bound";
  return 0;
}

}  // namespace sculpt::spacegen::test
