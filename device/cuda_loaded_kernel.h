#pragma once
// The GPU side of device/loaded_kernel.h: PTX loaded into a GPU's primary context in this
// process (the context the CUDA runtime, and so PyTorch, uses), launched on a caller's stream.
#include <memory>
#include <string>

#include "device/loaded_kernel.h"

namespace sculpt::device {

/// `code` (PTX, with its launch) loaded into GPU `gpu`'s primary context through `library`, the
/// driver. Throws DeviceError when there is no driver or GPU, or the driver refuses the PTX.
std::unique_ptr<LoadedKernel> load_ptx(const codegen::KernelCode& code, const std::string& library,
                                       int gpu);

}  // namespace sculpt::device
