#pragma once
// The CUDA C printer: the same kernel as the PTX printer, in CUDA C for people to read (and to
// compile with nvcc when comparing against hand-written code). Unrolled and vector loops are
// `#pragma unroll` loops over register arrays, sequential ones `#pragma unroll 1`; thread
// dimensions are threadIdx; blocks decode blockIdx.x.
#include <string>

#include "codegen/lowered.h"

namespace sculpt::codegen {

std::string print_cuda(const LoweredKernel& kernel, const std::string& entry);

}  // namespace sculpt::codegen
