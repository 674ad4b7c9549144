#pragma once
// The CUDA driver API, loaded with dlopen so that nothing links against libcuda. Only worker
// processes load it: the evaluator's own process never initialises CUDA, since a process
// cannot fork a working CUDA child once it has, and a context poisoned by a faulty kernel is
// lost for good.
#include <cuda.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sculpt::device {

// The functions sculpt calls. cuda.h maps some names to their versioned symbols (cuMemAlloc
// to cuMemAlloc_v2): the members and the symbols looked up follow those macros.
// clang-format off
#define SCULPT_CUDA_FUNCTIONS(X) \
  X(cuInit) \
  X(cuGetErrorName) \
  X(cuGetErrorString) \
  X(cuDeviceGetCount) \
  X(cuDeviceGet) \
  X(cuDeviceGetName) \
  X(cuDeviceGetAttribute) \
  X(cuDevicePrimaryCtxRetain) \
  X(cuCtxSetCurrent) \
  X(cuCtxPushCurrent) \
  X(cuCtxPopCurrent) \
  X(cuCtxSynchronize) \
  X(cuLinkCreate) \
  X(cuLinkAddData) \
  X(cuLinkComplete) \
  X(cuLinkDestroy) \
  X(cuModuleLoadDataEx) \
  X(cuModuleUnload) \
  X(cuModuleGetFunction) \
  X(cuFuncSetAttribute) \
  X(cuLaunchKernel) \
  X(cuMemAlloc) \
  X(cuMemFree) \
  X(cuMemcpyHtoD) \
  X(cuMemcpyDtoH) \
  X(cuMemcpyDtoD) \
  X(cuMemsetD8) \
  X(cuMemAllocHost) \
  X(cuMemFreeHost) \
  X(cuEventCreate) \
  X(cuEventRecord) \
  X(cuEventSynchronize) \
  X(cuEventElapsedTime) \
  X(cuEventDestroy) \
  X(cuStreamWaitEvent)
// clang-format on

struct CudaDriver {
#define SCULPT_CUDA_MEMBER(name) decltype(&::name) name = nullptr;
  SCULPT_CUDA_FUNCTIONS(SCULPT_CUDA_MEMBER)
#undef SCULPT_CUDA_MEMBER

  /// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
  std::string describe(CUresult result) const;
};

/// JIT options that collect the error log and the verbose info log (registers, spills, local
/// and shared memory of each kernel), for cuLinkCreate and cuModuleLoadDataEx.
class JitLogs {
 public:
  JitLogs();
  JitLogs(const JitLogs&) = delete;
  JitLogs& operator=(const JitLogs&) = delete;

  unsigned count() const { return static_cast<unsigned>(options_.size()); }
  CUjit_option* options() { return options_.data(); }
  void** values() { return values_.data(); }
  std::string error() const { return error_.data(); }
  std::string info() const { return info_.data(); }

 private:
  std::vector<char> error_;
  std::vector<char> info_;
  std::array<CUjit_option, 5> options_;
  std::array<void*, 5> values_;
};

/// Lets `function` take `bytes` of dynamic shared memory: past 48 KiB a kernel must ask.
CUresult allow_dynamic_shared(const CudaDriver& driver, CUfunction function, std::uint32_t bytes);

/// One launch timed with CUDA events recorded around it on the default stream, as the CUDA device
/// times a candidate's run: `rejected` when cuLaunchKernel refused it (no kernel ran), else the
/// first failure of the events (the kernel's own, at their synchronisation) or the time.
struct TimedLaunch {
  CUresult result = CUDA_SUCCESS;
  bool rejected = false;
  float milliseconds = 0;
};
TimedLaunch timed_launch(const CudaDriver& driver, CUevent start, CUevent stop, CUfunction function,
                         const std::array<std::uint32_t, 3>& grid,
                         const std::array<std::uint32_t, 3>& block, std::uint32_t shared_bytes,
                         void** args);

/// A device's primary context, current on the thread that opened it.
struct CudaContext {
  CudaDriver driver{};
  CUdevice device = 0;
  CUcontext context = nullptr;
  /// "NVIDIA H100 80GB HBM3 (sm_90)".
  std::string description{};
};

/// Loads `library`, initialises the driver and makes device `ordinal`'s primary context
/// current. Nothing, with a one-line reason in `why`, when there is no driver or no GPU:
/// "no CUDA driver: libcuda.so.1 not found", "no GPU: cuInit returned CUDA_ERROR_NO_DEVICE".
std::optional<CudaContext> open_cuda_context(const std::string& library, int ordinal,
                                             std::string* why);

}  // namespace sculpt::device
