// A stand-in for libcuda.so.1 that runs kernels on the host, so that the CUDA device's worker
// processes, protocol and recovery, and the PTX of candidates, are tested where there is no GPU.
// It knows the test kernels of cuda_evaluator_test.cpp by entry name and mimics what the device
// sees of the real driver: JIT logs, a fault that poisons the context (every later call fails),
// a kernel that never ends. Any other kernel runs on the PTX emulator (ptx_emulator.h), whose
// faults poison the context too: an illegal or misaligned address as on a GPU, and a data race
// or a barrier some threads miss as a launch failure, described by cuGetErrorString.
#include <cuda.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "tests/device/fake_cuda.h"
#include "tests/device/ptx_emulator.h"

struct CUctx_st {};
struct CUlinkState_st {
  char* error_log = nullptr;
  std::size_t error_size = 0;
  char* info_log = nullptr;
  std::size_t info_size = 0;
  std::string image;
};
struct CUmod_st;
struct CUfunc_st {
  std::string entry;
  CUmod_st* module = nullptr;
};
struct CUmod_st {
  std::string image;
  std::list<CUfunc_st> functions;
  /// The PTX parsed for the emulator; null when it does not know the PTX (`unsupported` says
  /// why), which matters only when a kernel of the module must be emulated.
  std::unique_ptr<sculpt::ptx_emulator::Module> emulated;
  std::string unsupported;
};
struct CUevent_st {
  std::chrono::steady_clock::time_point time;
};

namespace {

CUctx_st context;
// A fault poisons the context for good, as on a GPU.
CUresult sticky = CUDA_SUCCESS;
// What the emulator said of its errors, for cuGetErrorString.
std::map<CUresult, std::string> messages;
bool spinning = false;
// Live device allocations and their sizes.
std::map<CUdeviceptr, std::size_t> allocations;

std::size_t allocated_bytes() {
  std::size_t total = 0;
  for (const auto& [pointer, bytes] : allocations) total += bytes;
  return total;
}

constexpr const char* kImageTag = "FAKE CUBIN\n";

void write_log(char* buffer, std::size_t size, const std::string& text) {
  if (buffer == nullptr || size == 0) return;
  std::size_t length = std::min(size - 1, text.size());
  std::memcpy(buffer, text.data(), length);
  buffer[length] = '\0';
}

// The kernels in flight finish when the host waits for them; one that never ends never does.
CUresult wait_for_kernels() {
  while (spinning) pause();
  return sticky;
}

/// Runs a kernel on the PTX emulator. A fault poisons the context, and the calls that wait for
/// the kernel report it, as on a GPU.
CUresult emulate(const CUfunc_st& function, sculpt::ptx_emulator::Dim3 grid,
                 sculpt::ptx_emulator::Dim3 block, void** params) {
  using sculpt::ptx_emulator::Fault;
  if (!function.module->emulated) {
    messages[CUDA_ERROR_NOT_SUPPORTED] =
        "the PTX emulator does not know this PTX: " + function.module->unsupported;
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  sculpt::ptx_emulator::Launch launch;
  launch.grid = grid;
  launch.block = block;
  launch.params = params;
  for (const auto& [start, bytes] : allocations) launch.allocations.emplace_back(start, bytes);
  const sculpt::ptx_emulator::Outcome outcome =
      function.module->emulated->run(function.entry, launch);
  switch (outcome.fault) {
    case Fault::none:
      return CUDA_SUCCESS;
    case Fault::refused:
      messages[CUDA_ERROR_INVALID_VALUE] = "PTX emulator: " + outcome.message;
      return CUDA_ERROR_INVALID_VALUE;
    case Fault::illegal_address:
      sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
      break;
    case Fault::misaligned_address:
      sticky = CUDA_ERROR_MISALIGNED_ADDRESS;
      break;
    case Fault::too_long:
      sticky = CUDA_ERROR_LAUNCH_TIMEOUT;
      break;
    case Fault::race:
    case Fault::barrier:
      sticky = CUDA_ERROR_LAUNCH_FAILED;
      break;
  }
  messages[sticky] = "PTX emulator: " + outcome.message;
  return CUDA_SUCCESS;
}

template <typename T>
T* pointer(void** params, int index) {
  return reinterpret_cast<T*>(*static_cast<CUdeviceptr*>(params[index]));
}

template <typename T>
T value(void** params, int index) {
  return *static_cast<T*>(params[index]);
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuInit(unsigned int) {
  // SCULPT_FAKE_CUDA_INIT_MS: a driver whose initialisation takes that long, as a real one's
  // takes a fraction of a second or more.
  if (const char* ms = std::getenv("SCULPT_FAKE_CUDA_INIT_MS"); ms != nullptr) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(ms)));
  }
  return std::getenv("SCULPT_FAKE_CUDA_NO_DEVICE") != nullptr ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char** name) {
  switch (error) {
    case CUDA_SUCCESS:
      *name = "CUDA_SUCCESS";
      return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE:
      *name = "CUDA_ERROR_INVALID_VALUE";
      return CUDA_SUCCESS;
    case CUDA_ERROR_NO_DEVICE:
      *name = "CUDA_ERROR_NO_DEVICE";
      return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_PTX:
      *name = "CUDA_ERROR_INVALID_PTX";
      return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_IMAGE:
      *name = "CUDA_ERROR_INVALID_IMAGE";
      return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_FOUND:
      *name = "CUDA_ERROR_NOT_FOUND";
      return CUDA_SUCCESS;
    case CUDA_ERROR_ILLEGAL_ADDRESS:
      *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
      return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY:
      *name = "CUDA_ERROR_OUT_OF_MEMORY";
      return CUDA_SUCCESS;
    case CUDA_ERROR_MISALIGNED_ADDRESS:
      *name = "CUDA_ERROR_MISALIGNED_ADDRESS";
      return CUDA_SUCCESS;
    case CUDA_ERROR_LAUNCH_FAILED:
      *name = "CUDA_ERROR_LAUNCH_FAILED";
      return CUDA_SUCCESS;
    case CUDA_ERROR_LAUNCH_TIMEOUT:
      *name = "CUDA_ERROR_LAUNCH_TIMEOUT";
      return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_SUPPORTED:
      *name = "CUDA_ERROR_NOT_SUPPORTED";
      return CUDA_SUCCESS;
    default:
      *name = nullptr;
      return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char** text) {
  if (auto message = messages.find(error); message != messages.end()) {
    *text = message->second.c_str();
    return CUDA_SUCCESS;
  }
  switch (error) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
      *text = "an illegal memory access was encountered";
      return CUDA_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE:
      *text = "invalid argument";
      return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY:
      *text = "out of memory";
      return CUDA_SUCCESS;
    default:
      *text = "fake driver error";
      return CUDA_SUCCESS;
  }
}

CUresult CUDAAPI cuDeviceGetCount(int* count) {
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice* device, int ordinal) {
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

// SCULPT_FAKE_CUDA_NAME names it as another GPU ("NVIDIA H200").
CUresult CUDAAPI cuDeviceGetName(char* name, int length, CUdevice) {
  const char* named = std::getenv("SCULPT_FAKE_CUDA_NAME");
  write_log(name, static_cast<std::size_t>(length), named != nullptr ? named : "Fake GPU");
  return CUDA_SUCCESS;
}

// An H100 SXM5's, for what the GPU characterization asks; 0 for the rest.
CUresult CUDAAPI cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice) {
  static const std::map<CUdevice_attribute, int> kH100 = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 132},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 2048},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 32},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 65536},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, 233472},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 52428800},
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 1980000},  // kHz
  };
  const auto known = kH100.find(attribute);
  *value = known != kH100.end() ? known->second : 0;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* result, CUdevice) {
  *result = &context;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxPushCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult CUDAAPI cuCtxPopCurrent(CUcontext* popped) {
  *popped = &context;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize() { return wait_for_kernels(); }

CUresult CUDAAPI cuLinkCreate(unsigned int count, CUjit_option* options, void** values,
                              CUlinkState* state) {
  auto* link = new CUlinkState_st;
  for (unsigned i = 0; i < count; ++i) {
    auto integer = reinterpret_cast<std::uintptr_t>(values[i]);
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER) link->error_log = static_cast<char*>(values[i]);
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) link->error_size = integer;
    if (options[i] == CU_JIT_INFO_LOG_BUFFER) link->info_log = static_cast<char*>(values[i]);
    if (options[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES) link->info_size = integer;
  }
  *state = link;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLinkAddData(CUlinkState state, CUjitInputType type, void* data, size_t size,
                               const char*, unsigned int, CUjit_option*, void**) {
  if (type != CU_JIT_INPUT_PTX || size == 0 || static_cast<char*>(data)[size - 1] != '\0') {
    return CUDA_ERROR_INVALID_VALUE;
  }
  std::string ptx(static_cast<const char*>(data));
  // The one mistake the tests make: an instruction that does not exist.
  if (auto at = ptx.find("frobnicate"); at != std::string::npos) {
    auto line = std::count(ptx.begin(), ptx.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
    write_log(state->error_log, state->error_size,
              "ptxas application ptx input, line " + std::to_string(line) +
                  "; error   : Not a name of any known instruction: 'frobnicate'\n"
                  "ptxas fatal   : Ptx assembly aborted due to errors");
    return CUDA_ERROR_INVALID_PTX;
  }
  state->image = kImageTag + ptx;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLinkComplete(CUlinkState state, void** cubin, size_t* size) {
  // Slow enough for compilations to overlap measurements, as the real JIT's do; PTX that says
  // kFakeSlowJitMark takes as long as the longest real compilations and more.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  if (state->image.find(sculpt::device::kFakeSlowJitMark) != std::string::npos) {
    std::this_thread::sleep_for(std::chrono::seconds(60));
  }
  write_log(state->info_log, state->info_size, "ptxas info    : Used 10 registers");
  *cubin = state->image.data();
  *size = state->image.size();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLinkDestroy(CUlinkState state) {
  delete state;
  return CUDA_SUCCESS;
}

// A fake cubin, or PTX text, which the real driver compiles first.
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int,
                                    CUjit_option*, void**) {
  if (sticky != CUDA_SUCCESS) return sticky;
  std::string text(static_cast<const char*>(image));
  const bool cubin = text.rfind(kImageTag, 0) == 0;
  if (!cubin && text.find(".version") == std::string::npos) return CUDA_ERROR_INVALID_IMAGE;
  *module = new CUmod_st{text, {}, nullptr, ""};
  try {
    (*module)->emulated = std::make_unique<sculpt::ptx_emulator::Module>(
        cubin ? text.substr(std::strlen(kImageTag)) : text);
  } catch (const sculpt::ptx_emulator::Unsupported& e) {
    (*module)->unsupported = e.what();
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule module) {
  delete module;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  if (module->image.find(".entry " + std::string(name) + "(") == std::string::npos) {
    return CUDA_ERROR_NOT_FOUND;
  }
  *function = &module->functions.emplace_back(CUfunc_st{name, module});
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction, CUfunction_attribute, int value) {
  return value <= 227 * 1024 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                                unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                                unsigned int block_z, unsigned int, CUstream, void** params,
                                void**) {
  if (sticky != CUDA_SUCCESS) return sticky;
  if (grid_x * grid_y * grid_z == 0 || block_x * block_y * block_z == 0 ||
      block_x * block_y * block_z > 1024) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  // The test kernels are one-dimensional: one element per thread.
  long threads = static_cast<long>(grid_x) * block_x;
  const std::string& entry = function->entry;
  if (entry == "axpy" || entry == "axpy_wrong") {
    long n = std::min<long>(value<std::int32_t>(params, 0), threads);
    auto a = value<float>(params, 1);
    auto* x = pointer<float>(params, 2);
    auto* y = pointer<float>(params, 3);
    for (long i = 0; i < n; ++i) y[i] = std::fma(a, x[i], y[i]);
    if (entry == "axpy_wrong" && n > 4321) y[4321] += 0.5f;
  } else if (entry == "axpy_far") {
    sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
  } else if (entry == "spin") {
    spinning = true;
  } else if (entry == "scalars") {
    long n = std::min<long>(value<std::int32_t>(params, 0), threads);
    auto a = value<float>(params, 1);
    auto b = value<double>(params, 2);
    auto k = value<std::int32_t>(params, 3);
    auto* x = pointer<float>(params, 4);
    auto* y = pointer<double>(params, 5);
    auto* z = pointer<std::int32_t>(params, 6);
    auto* out = pointer<double>(params, 7);
    auto* iout = pointer<std::int32_t>(params, 8);
    for (long i = 0; i < n; ++i) {
      iout[i] = k * z[i];
      out[i] = static_cast<double>(a * x[i]) + b * y[i] + static_cast<double>(iout[i]);
    }
  } else {
    return emulate(*function, {grid_x, grid_y, grid_z}, {block_x, block_y, block_z}, params);
  }
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr* pointer, size_t bytes) {
  if (sticky != CUDA_SUCCESS) return sticky;
  // SCULPT_FAKE_CUDA_MEMORY: the bytes of device memory, all free at the start.
  if (const char* memory = std::getenv("SCULPT_FAKE_CUDA_MEMORY");
      memory != nullptr && allocated_bytes() + bytes > std::strtoull(memory, nullptr, 10)) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  void* memory = std::malloc(bytes);
  if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  *pointer = reinterpret_cast<CUdeviceptr>(memory);
  allocations[*pointer] = bytes;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr pointer) {
  allocations.erase(pointer);
  std::free(reinterpret_cast<void*>(pointer));
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAllocHost(void** pointer, size_t bytes) {
  if (sticky != CUDA_SUCCESS) return sticky;
  *pointer = std::malloc(bytes);
  return *pointer == nullptr ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFreeHost(void* pointer) {
  std::free(pointer);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr destination, const void* source, size_t bytes) {
  if (CUresult result = wait_for_kernels(); result != CUDA_SUCCESS) return result;
  std::memcpy(reinterpret_cast<void*>(destination), source, bytes);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoH(void* destination, CUdeviceptr source, size_t bytes) {
  if (CUresult result = wait_for_kernels(); result != CUDA_SUCCESS) return result;
  std::memcpy(destination, reinterpret_cast<const void*>(source), bytes);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr destination, CUdeviceptr source, size_t bytes) {
  if (CUresult result = wait_for_kernels(); result != CUDA_SUCCESS) return result;
  std::memcpy(reinterpret_cast<void*>(destination), reinterpret_cast<const void*>(source), bytes);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD8(CUdeviceptr destination, unsigned char value, size_t bytes) {
  if (CUresult result = wait_for_kernels(); result != CUDA_SUCCESS) return result;
  std::memset(reinterpret_cast<void*>(destination), value, bytes);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventCreate(CUevent* event, unsigned int) {
  *event = new CUevent_st;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventRecord(CUevent event, CUstream) {
  if (sticky != CUDA_SUCCESS) return sticky;
  event->time = std::chrono::steady_clock::now();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventSynchronize(CUevent) { return wait_for_kernels(); }

CUresult CUDAAPI cuEventElapsedTime(float* milliseconds, CUevent start, CUevent end) {
  *milliseconds = std::chrono::duration<float, std::milli>(end->time - start->time).count();
  return CUDA_SUCCESS;
}

// Kernels run as they are launched: a stream has nothing to wait for.
CUresult CUDAAPI cuStreamWaitEvent(CUstream, CUevent, unsigned int) { return sticky; }

CUresult CUDAAPI cuEventDestroy(CUevent event) {
  delete event;
  return CUDA_SUCCESS;
}

}  // extern "C"
