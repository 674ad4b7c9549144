#pragma once
// The CUDA device: candidates printed as PTX are compiled by the driver's JIT on a pool of
// threads, then run one at a time on the GPU, timed with CUDA events and checked. All CUDA
// work happens in worker processes (the driver is loaded there with dlopen), so a kernel that
// faults or never ends costs a worker, never the caller, and no binary links against libcuda.
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>

#include "device/cuda_compiler.h"
#include "device/cuda_runner.h"
#include "device/evaluator.h"
#include "device/pipeline.h"
#include "device/problem_data.h"
#include "device/run_plan.h"
#include "device/workspace_cache.h"

namespace sculpt::device {

struct CudaEvaluatorOptions {
  /// The driver library to dlopen, and the GPU to use.
  CudaWorkerConfig worker{};
  /// Compilations at once; 0: one per hardware thread.
  int compile_threads = 0;
  std::chrono::milliseconds compile_timeout = std::chrono::seconds(120);
  /// GPU kernels are short and their times steady: 200 ms of timed runs is plenty. A kernel
  /// killed at the cutoff takes its worker with it (a new context, the problem uploaded again):
  /// a run is killed once it lasts `restarts_to_kill` times what that restart was measured to
  /// cost (the runner sets `restart_cost`), 10 cutoffs, and `kill_floor`.
  RunPlan plan{.budget = std::chrono::milliseconds(200),
               .kill_floor = std::chrono::milliseconds(200)};
  /// Host memory the device may use, in bytes: for the problem's data and results, and for the
  /// initial values of arrays the GPU has no room to keep twice. A problem that needs more is
  /// refused with a DeviceError. Absent: this machine's memory.
  std::optional<std::uint64_t> host_memory{};
};

struct CudaEvaluatorStats {
  CudaCompilerStats compiler{};
  std::int64_t evaluations = 0;  ///< evaluations finished, whatever their check
  /// Compilations that finished while a candidate ran: the overlap that keeps the GPU busy.
  std::int64_t compiled_while_measuring = 0;
  std::int64_t runs = 0;  ///< candidates sent to the GPU
  std::int64_t faults = 0;
  std::int64_t timeouts = 0;
  std::int64_t worker_restarts = 0;  ///< run workers started to replace a lost one
  /// What the last run worker took from its fork to its problem in place: what a kill costs.
  std::int64_t restart_cost_ns = 0;
  std::int64_t problems = 0;  ///< problems prepared (inputs filled, reference computed)
  /// Arrays of the problem on the GPU whose initial values are restored from host memory
  /// before each candidate: the GPU had no room for a second copy of them.
  std::int64_t arrays_restored_from_host = 0;
};

/// Evaluates candidates whose `code` is PTX, with its launch configuration.
class CudaEvaluator final : public Evaluator {
 public:
  /// Checks in a short-lived process that the driver loads and sees the GPU; throws
  /// DeviceError with a one-line reason otherwise ("no CUDA driver: libcuda.so.1 not found",
  /// "no GPU: cuInit returned CUDA_ERROR_NO_DEVICE").
  explicit CudaEvaluator(CudaEvaluatorOptions options = {});
  ~CudaEvaluator() override;

  Kind kind() const override { return Kind::cuda; }
  /// "sm_90": the compute capability that device_description() ends with.
  std::string architecture() const override;
  std::string model() const override { return description_; }
  void cancel_waiting() override { pipeline_->cancel_waiting(); }
  DeviceTimes times() const override { return pipeline_->times(); }

  CudaEvaluatorStats stats() const;
  /// "NVIDIA H100 80GB HBM3 (sm_90)".
  const std::string& device_description() const { return description_; }

 private:
  std::future<Evaluation> queue(KernelCode code, std::shared_ptr<const Problem> problem,
                                std::shared_ptr<Cutoff> cutoff, double bound_ns) override;

  /// A problem's data, the number by which the run worker knows whether it holds it, and the
  /// host memory left to the worker beyond the data and results.
  struct Workspace {
    std::shared_ptr<const Problem> problem;
    std::unique_ptr<ProblemData> data;
    std::uint64_t id = 0;
    std::uint64_t host_room = 0;
  };

  Pipeline<CudaImage>::CompileResult compile(const KernelCode& code, std::stop_token stop);
  Evaluation measure(const KernelCode& code, const std::shared_ptr<const Problem>& problem,
                     const CudaImage& image, const CutoffSnapshot& cutoff);

  CudaEvaluatorOptions options_;
  std::string description_;
  CudaCompiler compiler_;

  mutable std::mutex mutex_;
  std::int64_t runs_ = 0;
  std::int64_t faults_ = 0;
  std::int64_t timeouts_ = 0;
  std::int64_t problems_ = 0;

  // Only the measuring thread touches these.
  WorkspaceCache<Workspace> workspaces_;
  CudaRunner runner_;

  // Declared last: started once everything above exists, stopped before it goes.
  std::unique_ptr<Pipeline<CudaImage>> pipeline_;
};

/// Whether the driver loads and sees the GPU (checked in a short-lived process, so that the
/// caller never initialises CUDA); when not, `why` gets the reason. Takes as long as the
/// driver's initialisation (a fraction of a second to a few seconds).
bool cuda_available(std::string* why = nullptr, const CudaWorkerConfig& config = {});

}  // namespace sculpt::device
