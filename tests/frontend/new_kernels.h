#pragma once
// The kernels of frontend/examples/kernels.tc, none of them in the zoo, at small sizes: what the
// search tests search from their definitions alone, and what the toolkit and model tests check
// beside the zoo (comparisons and selects, and sqrt, which no zoo kernel has).
#include <ostream>
#include <string>
#include <vector>

#include "frontend/definition.h"

namespace sculpt::frontend::testing {

inline const std::string kKernelsFile =
    std::string(SCULPT_SOURCE_DIR) + "/frontend/examples/kernels.tc";

struct NewKernel {
  std::string name;
  std::string sizes;
};

inline void PrintTo(const NewKernel& k, std::ostream* out) { *out << k.name; }

inline std::vector<NewKernel> new_kernels() {
  return {{"outer_product", "M=24,N=16"}, {"transpose", "M=16,N=24"},
          {"conv1d", "M=64,N=5"},         {"conv2d", "N=1,C=3,H=10,W=10,F=4,KH=3,KW=3"},
          {"row_sum", "M=16,N=32"},       {"relu", "N=128"},
          {"threshold", "M=12,N=20"},     {"clamp", "N=96"},
          {"layernorm", "R=8,C=48"}};
}

/// Kernel `name` of kernels.tc at its sizes of new_kernels().
inline DefinitionLookup lookup_new_kernel(const std::string& name) {
  for (const NewKernel& k : new_kernels()) {
    if (k.name == name) return lookup_definition_file(kKernelsFile, k.name, k.sizes);
  }
  DefinitionLookup none;
  none.error = "kernels.tc has no kernel " + name;
  return none;
}

}  // namespace sculpt::frontend::testing
