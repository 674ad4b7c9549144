#pragma once
// Lowering of a fully specified candidate into the kernel every printer shares.
#include "codegen/lowered.h"
#include "gpu_space/space.h"

namespace sculpt::codegen {

/// Lowers `candidate`, which must be alive and fully specified (checked), in named steps:
/// read the decisions, build the loop tree, assign registers, lay out memory, lower the
/// instructions, place the barriers. With SCULPT_LOG_LOWERING=1 in the environment each step
/// logs its time and the kernel after the last one.
LoweredKernel lower(const gpu_space::Candidate& candidate);

}  // namespace sculpt::codegen
