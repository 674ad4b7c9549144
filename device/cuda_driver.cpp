#include "device/cuda_driver.h"

#include <dlfcn.h>

#include <fmt/format.h>

#include <array>

namespace sculpt::device {
namespace {

#define SCULPT_STRINGIFY_(x) #x
// Expands the macro cuda.h may define for `x` (cuMemAlloc_v2 for cuMemAlloc) first.
#define SCULPT_STRINGIFY(x) SCULPT_STRINGIFY_(x)

template <typename Function>
void load(void* library, const char* symbol, Function& function, std::string& missing) {
  function = reinterpret_cast<Function>(dlsym(library, symbol));
  if (function == nullptr && missing.empty()) missing = symbol;
}

// Loads every function; false, naming the first one missing, when the driver lacks one.
bool load_functions(void* library, const std::string& name, CudaDriver& driver, std::string* why) {
  std::string missing;
#define SCULPT_CUDA_LOAD(function) \
  load(library, SCULPT_STRINGIFY(function), driver.function, missing);
  SCULPT_CUDA_FUNCTIONS(SCULPT_CUDA_LOAD)
#undef SCULPT_CUDA_LOAD
  if (missing.empty()) return true;
  *why = fmt::format("the CUDA driver {} lacks {} (older than CUDA {}.{})", name, missing,
                     CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
  return false;
}

}  // namespace

JitLogs::JitLogs() : error_(1 << 16, '\0'), info_(1 << 16, '\0') {
  options_ = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
              CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
  // The sizes leave room for the terminating NUL; the driver passes integers as pointers.
  values_ = {error_.data(), reinterpret_cast<void*>(error_.size() - 1), info_.data(),
             reinterpret_cast<void*>(info_.size() - 1), reinterpret_cast<void*>(1)};
}

std::string CudaDriver::describe(CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || name == nullptr) {
    return fmt::format("CUDA error {}", static_cast<int>(result));
  }
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS || text == nullptr) return name;
  return fmt::format("{} ({})", name, text);
}

CUresult allow_dynamic_shared(const CudaDriver& driver, CUfunction function, std::uint32_t bytes) {
  constexpr std::uint32_t kDefaultLimit = 48 * 1024;
  if (bytes <= kDefaultLimit) return CUDA_SUCCESS;
  return driver.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   static_cast<int>(bytes));
}

std::optional<CudaContext> open_cuda_context(const std::string& library, int ordinal,
                                             std::string* why) {
  // Never closed: the process that loads the driver keeps it until it exits.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    *why = fmt::format("no CUDA driver: {} not found", library);
    return std::nullopt;
  }
  CudaContext context;
  CudaDriver& driver = context.driver;
  if (!load_functions(handle, library, driver, why)) return std::nullopt;
  auto failed = [&](const char* call, CUresult result) {
    const char* name = nullptr;
    driver.cuGetErrorName(result, &name);
    *why = fmt::format("no GPU: {} returned {}", call,
                       name != nullptr ? name : fmt::format("error {}", static_cast<int>(result)));
    return std::nullopt;
  };
  if (CUresult result = driver.cuInit(0); result != CUDA_SUCCESS) return failed("cuInit", result);
  int count = 0;
  if (CUresult result = driver.cuDeviceGetCount(&count); result != CUDA_SUCCESS) {
    return failed("cuDeviceGetCount", result);
  }
  if (ordinal < 0 || ordinal >= count) {
    *why = fmt::format("no GPU {}: the CUDA driver sees {}", ordinal, count);
    return std::nullopt;
  }
  if (CUresult result = driver.cuDeviceGet(&context.device, ordinal); result != CUDA_SUCCESS) {
    return failed("cuDeviceGet", result);
  }
  if (CUresult result = driver.cuDevicePrimaryCtxRetain(&context.context, context.device);
      result != CUDA_SUCCESS) {
    return failed("cuDevicePrimaryCtxRetain", result);
  }
  if (CUresult result = driver.cuCtxSetCurrent(context.context); result != CUDA_SUCCESS) {
    return failed("cuCtxSetCurrent", result);
  }
  std::array<char, 256> name{};
  driver.cuDeviceGetName(name.data(), static_cast<int>(name.size()), context.device);
  int major = 0, minor = 0;
  driver.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, context.device);
  driver.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, context.device);
  context.description = fmt::format("{} (sm_{}{})", name.data(), major, minor);
  return context;
}

TimedLaunch timed_launch(const CudaDriver& driver, CUevent start, CUevent stop, CUfunction function,
                         const std::array<std::uint32_t, 3>& grid,
                         const std::array<std::uint32_t, 3>& block, std::uint32_t shared_bytes,
                         void** args) {
  CUresult result = driver.cuEventRecord(start, nullptr);
  if (result == CUDA_SUCCESS) {
    result = driver.cuLaunchKernel(function, grid[0], grid[1], grid[2], block[0], block[1],
                                   block[2], shared_bytes, nullptr, args, nullptr);
  }
  if (result != CUDA_SUCCESS) return TimedLaunch{.result = result, .rejected = true};
  result = driver.cuEventRecord(stop, nullptr);
  if (result == CUDA_SUCCESS) result = driver.cuEventSynchronize(stop);
  TimedLaunch timed{.result = result};
  if (result == CUDA_SUCCESS) result = driver.cuEventElapsedTime(&timed.milliseconds, start, stop);
  timed.result = result;
  return timed;
}

}  // namespace sculpt::device
