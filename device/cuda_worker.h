#pragma once
// A CUDA worker process: the evaluator forks it before CUDA is initialised anywhere (only the
// forking thread is copied, and a process that initialised CUDA cannot fork a working CUDA
// child), the worker opens a context and serves requests over its channels. A kernel fault
// poisons the context for good, so the evaluator replaces a worker instead of repairing it.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "device/cuda_channel.h"
#include "device/cuda_protocols.h"
#include "device/evaluator.h"

namespace sculpt::device {

struct CudaContext;

/// Which driver to load and which GPU to use.
struct CudaWorkerConfig {
  std::string driver_library = "libcuda.so.1";
  int device = 0;
};

/// Longest a worker may take to open its context, or to copy a problem's data.
inline constexpr std::chrono::milliseconds kWorkerSetupTimeout = std::chrono::seconds(60);

class CudaWorker {
 public:
  /// Runs in the worker once its context is current on the calling thread, with the worker's
  /// ends of the channels; the worker exits when it returns.
  using Serve = std::function<void(CudaContext&, std::vector<Channel>&)>;

  /// The wait for a context ended by a stop request: the worker is killed.
  struct Abandoned : DeviceError {
    Abandoned() : DeviceError("cuda device: a worker's start was abandoned") {}
  };

  /// Forks a worker with `channels` channels and waits until it has opened its context (its
  /// WorkerStart frame). Throws DeviceError with the worker's one-line reason when it cannot
  /// ("no GPU: cuInit returned CUDA_ERROR_NO_DEVICE"), and Abandoned when `cancel` is requested
  /// first (a driver may take seconds, up to kWorkerSetupTimeout, to open a context).
  CudaWorker(const CudaWorkerConfig& config, int channels, const Serve& serve,
             std::stop_token cancel = {});
  /// Kills the worker when it still runs.
  ~CudaWorker();
  CudaWorker(const CudaWorker&) = delete;
  CudaWorker& operator=(const CudaWorker&) = delete;

  Channel& channel(std::size_t index) { return channels_.at(index); }
  /// "NVIDIA H100 80GB HBM3 (sm_90)".
  const std::string& description() const { return description_; }

  /// Kills and reaps the process; the channels stay open (the threads still reading them see
  /// their end) until the object goes.
  void stop();

 private:
  pid_t pid_ = -1;
  std::vector<Channel> channels_;
  std::string description_;
};

}  // namespace sculpt::device
