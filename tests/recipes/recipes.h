#pragma once
// Known-good implementations fixed by hand (HandCandidate), by the names of the zoo kernels'
// dimensions: the candidates the GPU benchmarks compare with cuBLAS, and that the tests check on
// the GPU and on the PTX emulator.
#include <functional>
#include <string>
#include <vector>

#include "tests/recipes/hand_candidate.h"

namespace sculpt::recipes {

/// A problem of the GPU benchmarks and the recipe that implements it.
struct Recipe {
  std::string name;         ///< as `cublas_reference.py` names the same problem
  std::string kernel;       ///< zoo kernel
  std::string sizes;        ///< the benchmark's
  std::string small_sizes;  ///< for checks without a GPU (on the CPU, on the PTX emulator)
  std::function<void(HandCandidate&)> decide;
  double flops = 0;  ///< at `sizes`
};

/// The problems the GPU benchmarks compare with cuBLAS.
std::vector<Recipe> benchmark_recipes();

}  // namespace sculpt::recipes
