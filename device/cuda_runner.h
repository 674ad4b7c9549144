#pragma once
// Runs compiled candidates on the GPU in a worker process: restores the inputs, runs the
// warm-up launch whose results are checked, then times launches with CUDA events. A kernel
// fault poisons the worker's context, and an endless kernel can only be stopped by killing
// its process: either way the runner starts a new worker for the next candidate.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "device/cuda_compiler.h"
#include "device/cuda_worker.h"
#include "device/evaluator.h"
#include "device/problem_data.h"
#include "device/run_plan.h"

namespace sculpt::device {

class CudaRunner {
 public:
  /// The worker starts with the first run, on the calling thread, and dies with that thread.
  explicit CudaRunner(CudaWorkerConfig config);
  ~CudaRunner();
  CudaRunner(const CudaRunner&) = delete;
  CudaRunner& operator=(const CudaRunner&) = delete;

  /// Runs `code.entry` of `image` with `code.launch` as `plan` says (its restart_cost replaced
  /// by the one measured here: a run killed at the cutoff's limit costs a worker), on the
  /// problem numbered
  /// `problem_id` whose data is `data`; uploads that problem first when the worker does not
  /// hold it, allowing it `host_room` bytes of host memory for the initial values of arrays
  /// the GPU has no room to keep twice. Throws DeviceError when no worker starts or the
  /// problem does not fit. Not thread-safe: one run at a time.
  RunOutcome run(std::uint64_t problem_id, const ProblemData& data, std::uint64_t host_room,
                 const CudaImage& image, const KernelCode& code, const RunPlan& plan);

  /// Makes the start of a worker under way, and of any later one, give up at once (run throws
  /// CudaWorker::Abandoned): whoever goes away need not wait for a driver opening a context.
  /// Thread-safe.
  void cancel() { cancel_.request_stop(); }

  /// Workers started, the first one included. Thread-safe.
  int workers_started() const { return workers_started_.load(); }
  /// Arrays of the problem last uploaded whose initial values the worker keeps in host memory,
  /// the GPU having no room for a second copy of them. Thread-safe.
  int arrays_restored_from_host() const { return arrays_restored_from_host_.load(); }
  /// What a kill costs: the last run worker's start (from its fork to its context) and the
  /// upload of the problem it holds, as measured; zero before the first run. Thread-safe.
  std::chrono::nanoseconds restart_cost() const {
    return std::chrono::nanoseconds(start_ns_.load() + upload_ns_.load());
  }

 private:
  /// A worker holding problem `problem_id`, started or re-uploaded as needed.
  Channel& ready_worker(std::uint64_t problem_id, const ProblemData& data, std::uint64_t host_room);
  void upload(const ProblemData& data, std::uint64_t host_room);
  void stop();

  CudaWorkerConfig config_;
  std::stop_source cancel_;
  std::unique_ptr<CudaWorker> worker_;
  std::optional<std::uint64_t> uploaded_;
  std::atomic<int> workers_started_ = 0;
  std::atomic<int> arrays_restored_from_host_ = 0;
  std::atomic<std::int64_t> start_ns_ = 0;
  std::atomic<std::int64_t> upload_ns_ = 0;
};

/// Worker side: serves uploads and runs on its one channel.
void serve_runs(CudaContext& context, std::vector<Channel>& channels);

}  // namespace sculpt::device
