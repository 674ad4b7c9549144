#pragma once
// A kernel's code loaded into this process to run on a caller's buffers (the library's
// sculpt::load): no problem of its own, no check, no timing, no worker process. The C of a CPU
// kernel is compiled as the CPU device compiles candidates, so the code that runs is the code
// that was timed, and the object the device cached is reused.
#include <memory>

#include "codegen/kernel_code.h"
#include "device/cpu_evaluator.h"

namespace sculpt::device {

class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
  /// Runs the kernel: `params[i]` points to the i-th parameter's value, as the code's ABI says
  /// (device/README.md). A GPU kernel is launched on `stream` (null: the default stream).
  /// Thread-safe: runs of one loaded kernel happen one after another (on a GPU, whatever their
  /// streams), since its code may keep temporaries in global memory of its own. Throws
  /// DeviceError when a launch is refused.
  virtual void run(void** params, void* stream) const = 0;
};

/// `code` (C) compiled by `options`' compiler with its flags, through its cache, and loaded.
/// Throws DeviceError when it does not compile or load.
std::unique_ptr<LoadedKernel> load_c(const codegen::KernelCode& code,
                                     const CpuEvaluatorOptions& options = {});

}  // namespace sculpt::device
