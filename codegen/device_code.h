#pragma once
// What a device runs of a fully specified candidate: its code in the device's language.
#include <string>

#include "codegen/kernel_code.h"
#include "codegen/lowered.h"
#include "gpu_space/space.h"

namespace sculpt::codegen {

/// How a lowered kernel is launched: a 1-D grid of blocks of its thread shape.
LaunchConfig launch_config(const LoweredKernel& lowered);

/// The code of a fully specified candidate in `language`, its entry point named `entry`: PTX
/// for the compute capability of the candidate's device, launched on a 1-D grid of blocks of
/// the candidate's thread shape.
KernelCode kernel_code(const gpu_space::Candidate& candidate, Language language,
                       const std::string& entry);

}  // namespace sculpt::codegen
