#include "device/cuda_loaded_kernel.h"

#include <fmt/format.h>

#include <mutex>

#include "device/cuda_driver.h"
#include "device/evaluator.h"
#include "support/check.h"

namespace sculpt::device {
namespace {

class LoadedPtx final : public LoadedKernel {
 public:
  LoadedPtx(CudaContext context, CUmodule module, CUfunction function, CUevent ended,
            const codegen::LaunchConfig& launch)
      : context_(std::move(context)),
        module_(module),
        function_(function),
        ended_(ended),
        launch_(launch) {}
  ~LoadedPtx() override {
    if (context_.driver.cuCtxPushCurrent(context_.context) != CUDA_SUCCESS) return;
    context_.driver.cuEventDestroy(ended_);
    context_.driver.cuModuleUnload(module_);
    CUcontext popped = nullptr;
    context_.driver.cuCtxPopCurrent(&popped);
  }
  LoadedPtx(const LoadedPtx&) = delete;
  LoadedPtx& operator=(const LoadedPtx&) = delete;

  void run(void** params, void* stream) const override {
    const CudaDriver& driver = context_.driver;
    const std::lock_guard lock(launching_);
    // The caller's thread may have another context current: this one is pushed for the launch.
    if (CUresult result = driver.cuCtxPushCurrent(context_.context); result != CUDA_SUCCESS) {
      throw DeviceError("cuCtxPushCurrent returned " + driver.describe(result));
    }
    // After the previous launch, on whichever stream it went: they share the module's
    // global temporaries.
    const auto on = static_cast<CUstream>(stream);
    CUresult result = launched_ ? driver.cuStreamWaitEvent(on, ended_, 0) : CUDA_SUCCESS;
    if (result == CUDA_SUCCESS) {
      result = driver.cuLaunchKernel(function_, launch_.grid[0], launch_.grid[1], launch_.grid[2],
                                     launch_.block[0], launch_.block[1], launch_.block[2],
                                     launch_.shared_bytes, on, params, nullptr);
    }
    if (result == CUDA_SUCCESS) result = driver.cuEventRecord(ended_, on);
    launched_ = launched_ || result == CUDA_SUCCESS;
    CUcontext popped = nullptr;
    driver.cuCtxPopCurrent(&popped);
    if (result != CUDA_SUCCESS) {
      throw DeviceError("cuLaunchKernel returned " + driver.describe(result));
    }
  }

 private:
  CudaContext context_;
  CUmodule module_;
  CUfunction function_;
  CUevent ended_;
  codegen::LaunchConfig launch_;
  mutable std::mutex launching_;
  /// Whether `ended_` was recorded after a launch.
  mutable bool launched_ = false;
};

}  // namespace

std::unique_ptr<LoadedKernel> load_ptx(const codegen::KernelCode& code, const std::string& library,
                                       int gpu) {
  SCULPT_CHECK(code.language == codegen::Language::ptx) << "load_ptx takes PTX";
  std::string why;
  std::optional<CudaContext> context = open_cuda_context(library, gpu, &why);
  if (!context) throw DeviceError(why);
  const CudaDriver& driver = context->driver;
  JitLogs logs;
  CUmodule module = nullptr;
  CUresult result = driver.cuModuleLoadDataEx(&module, code.source.c_str(), logs.count(),
                                              logs.options(), logs.values());
  if (result != CUDA_SUCCESS) {
    throw DeviceError(
        fmt::format("the driver refuses the kernel's PTX: cuModuleLoadDataEx returned {}\n{}",
                    driver.describe(result), logs.error()));
  }
  CUfunction function = nullptr;
  result = driver.cuModuleGetFunction(&function, module, code.entry.c_str());
  if (result == CUDA_SUCCESS)
    result = allow_dynamic_shared(driver, function, code.launch.shared_bytes);
  if (result != CUDA_SUCCESS) {
    driver.cuModuleUnload(module);
    throw DeviceError(fmt::format("cannot launch '{}' of the kernel's PTX: {}", code.entry,
                                  driver.describe(result)));
  }
  CUevent ended = nullptr;
  result = driver.cuEventCreate(&ended, CU_EVENT_DISABLE_TIMING);
  if (result != CUDA_SUCCESS) {
    driver.cuModuleUnload(module);
    throw DeviceError("cuEventCreate returned " + driver.describe(result));
  }
  return std::make_unique<LoadedPtx>(std::move(*context), module, function, ended, code.launch);
}

}  // namespace sculpt::device
