#pragma once
// PTX to GPU machine code (cubin) with the driver's JIT linker (cuLinkCreate, cuLinkAddData,
// cuLinkComplete), in a worker process that never runs a kernel, so that a faulty candidate
// being measured cannot take the compilations down with it.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "device/cuda_worker.h"

namespace sculpt::device {

/// A compiled candidate: the image cuModuleLoadDataEx takes, and what the JIT said about it.
struct CudaImage {
  std::string cubin{};
  /// The JIT's info log: registers, spills, local and shared memory of each kernel.
  std::string info_log{};
};

struct CudaCompilerStats {
  std::int64_t compilations = 0;  ///< PTX compilations finished, failed ones included
  std::int64_t errors = 0;        ///< compilations that failed or timed out
  std::int64_t peak_concurrent = 0;
  std::int64_t worker_restarts = 0;  ///< workers started to replace one that died
};

class CudaCompiler {
 public:
  struct Result {
    /// Absent when the PTX does not compile.
    std::optional<CudaImage> image{};
    /// Why it does not compile: the failing call and the JIT's error log.
    std::string log{};
  };

  /// Up to `threads` compilations run at once, one per thread of the worker. The worker starts
  /// with the first compilation, on the calling thread, and dies with that thread.
  CudaCompiler(CudaWorkerConfig config, int threads, std::chrono::milliseconds timeout);
  ~CudaCompiler();

  /// Thread-safe. Throws DeviceError when no worker can be started, or when the worker dies
  /// twice during the same compilation. A compilation longer than the timeout gets the worker
  /// killed (the others in flight go to the next one) and fails. So does one whose `stop` is
  /// requested (its candidate abandoned), at once: the JIT cannot be interrupted otherwise, and
  /// some compilations take 20 s. It then fails with "abandoned", counted nowhere.
  Result compile(const std::string& ptx, std::stop_token stop = {});

  CudaCompilerStats stats() const;

 private:
  /// A channel of the current worker, waiting for one to be free; starts the worker if none
  /// (throws CudaWorker::Abandoned when `stop` is requested while it opens its context).
  std::pair<std::shared_ptr<CudaWorker>, std::size_t> acquire(std::stop_token stop);
  void release(const std::shared_ptr<CudaWorker>& worker, std::size_t channel);
  /// Kills `worker` unless another thread has replaced it already.
  void lose(const std::shared_ptr<CudaWorker>& worker);
  /// Kills `worker` for an abandoned compilation: the others in flight there go once more to
  /// the next worker without that counting as a try.
  void abandon(const std::shared_ptr<CudaWorker>& worker);

  CudaWorkerConfig config_;
  int threads_;
  std::chrono::milliseconds timeout_;

  mutable std::mutex mutex_;
  std::condition_variable freed_;
  /// Shared with the threads using its channels, which stay open until they are done.
  std::shared_ptr<CudaWorker> worker_;
  std::vector<std::size_t> free_channels_;
  int workers_started_ = 0;
  /// Workers killed for abandoned compilations so far.
  std::int64_t abandoned_kills_ = 0;
  std::int64_t running_ = 0;
  CudaCompilerStats stats_{};
};

/// Worker side: serves compilations on every channel, one thread each.
void serve_compilations(CudaContext& context, std::vector<Channel>& channels);

}  // namespace sculpt::device
