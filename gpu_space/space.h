#pragma once
// The GPU implementation space of a kernel: its generated candidate type and the root of a
// search (every implementation the space allows for one kernel and problem size, propagated).
#include <memory>

#include "backbone/kernel.h"
#include "generated/sculpt_gpu_space_generated/space.h"
#include "gpu_space/device_description.h"
#include "gpu_space/function.h"

namespace sculpt::gpu_space {

using Candidate = generated::Candidate;
namespace values = generated::values;
namespace choice_id = generated::choice_id;

/// The root candidate of `kernel` on `device`, initialised. A kernel whose space is empty
/// gives a dead root: `conflict()` says which constraint emptied which domain.
std::unique_ptr<Candidate> make_root(backbone::Kernel kernel, const DeviceDescription& device);

}  // namespace sculpt::gpu_space
