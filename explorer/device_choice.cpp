#include "explorer/device_choice.h"

#include "device/cpu_evaluator.h"
#ifdef SCULPT_HAVE_CUDA
#include "device/cuda_evaluator.h"
#endif

namespace sculpt::explorer {

std::unique_ptr<device::Evaluator> make_device(const std::string& name, std::string* error,
                                               [[maybe_unused]] int gpu) {
#ifdef SCULPT_HAVE_CUDA
  device::CudaEvaluatorOptions options;
  options.worker.device = gpu;
  std::string why;
  if (device::kind_named(name) == device::Kind::cuda ||
      (name == "auto" && device::cuda_available(&why, options.worker))) {
    try {
      return std::make_unique<device::CudaEvaluator>(options);
    } catch (const device::DeviceError& e) {
      *error = e.what();
      return nullptr;
    }
  }
#else
  if (device::kind_named(name) == device::Kind::cuda) {
    *error = "this sculpt was built without CUDA support (cuda.h was not found at build time)";
    return nullptr;
  }
#endif
  try {
    return std::make_unique<device::CpuEvaluator>();
  } catch (const device::DeviceError& e) {
    *error = e.what();
    return nullptr;
  }
}

}  // namespace sculpt::explorer
