#pragma once
// The CPU device: candidates printed as C are compiled by the system C compiler (on a pool of
// threads, through a cache), then run one at a time in a child process, timed and checked.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "device/c_compiler.h"
#include "device/evaluator.h"
#include "device/fork_server.h"
#include "device/pipeline.h"
#include "device/problem_data.h"
#include "device/run_plan.h"
#include "device/workspace_cache.h"

namespace sculpt::device {

struct CpuEvaluatorOptions {
  /// Empty: $SCULPT_CC, else "cc".
  std::string compiler{};
  std::vector<std::string> flags = {"-O3", "-march=native", "-fopenmp", "-fPIC", "-shared"};
  /// Added to `flags` where the compiler accepts them. GCC schedules x86 code only after
  /// register allocation by default, and its allocator then folds a vector loaded once into
  /// registers back into every FMA that reads it, reloading it from memory each time: a
  /// candidate's 2 x 128 register tile issued 18 loads per 16 FMAs and ran at 23.7 us instead of
  /// 19.4 (matmul 256x256x32, Zen 4). Scheduling before allocation, mindful of register pressure,
  /// keeps such values in registers. Clang rejects -fsched-pressure.
  std::vector<std::string> flags_if_accepted = {"-fschedule-insns", "-fsched-pressure"};
  /// Empty: CCompiler::default_cache_dir().
  std::filesystem::path cache_dir{};
  /// 0: one per hardware thread.
  int compile_threads = 0;
  std::chrono::milliseconds compile_timeout = std::chrono::seconds(120);
  RunPlan plan{};
  /// Stop compiling while a candidate is measured: on a CPU the compilers would share the cores
  /// with the candidate and distort its time. Off: compilation overlaps measurement.
  bool pause_compilation_while_measuring = true;
  /// Host memory the device may use, in bytes: a problem that needs more is refused with a
  /// DeviceError. Absent: this machine's memory.
  std::optional<std::uint64_t> host_memory{};
};

struct CpuEvaluatorStats {
  CompilerStats compiler{};
  std::int64_t evaluations = 0;  ///< evaluations finished, whatever their check
  std::int64_t runs = 0;         ///< candidates run in a child process
  std::int64_t problems = 0;     ///< problems prepared (inputs filled, reference computed)
};

class CpuEvaluator final : public Evaluator {
 public:
  /// Throws DeviceError when the C compiler does not run or the cache cannot be created.
  explicit CpuEvaluator(CpuEvaluatorOptions options = {});
  ~CpuEvaluator() override;

  Kind kind() const override { return Kind::cpu; }
  void cancel_waiting() override { pipeline_->cancel_waiting(); }
  DeviceTimes times() const override { return pipeline_->times(); }
  /// While a candidate runs, with compilation paused for it (the options' default).
  void wait_while_measuring() const override {
    if (options_.pause_compilation_while_measuring) pipeline_->wait_while_measuring();
  }

  CpuEvaluatorStats stats() const;
  const CCompiler& compiler() const { return compiler_; }

 private:
  std::future<Evaluation> queue(KernelCode code, std::shared_ptr<const Problem> problem,
                                std::shared_ptr<Cutoff> cutoff, double bound_ns) override;

  /// A problem's data and the server that runs candidates on it.
  struct Workspace {
    std::shared_ptr<const Problem> problem;
    std::unique_ptr<ProblemData> data;
    std::unique_ptr<ForkServer> server;
  };

  Pipeline<std::filesystem::path>::CompileResult compile(const KernelCode& code,
                                                         std::stop_token stop);
  Evaluation measure(const KernelCode& code, const std::shared_ptr<const Problem>& problem,
                     const std::filesystem::path& object, const CutoffSnapshot& cutoff);

  CpuEvaluatorOptions options_;
  CCompiler compiler_;

  mutable std::mutex mutex_;
  std::int64_t runs_ = 0;
  std::int64_t problems_ = 0;

  /// Only the measuring thread touches the workspaces.
  WorkspaceCache<Workspace> workspaces_;

  // Declared last: started once everything above exists, stopped before it goes.
  std::unique_ptr<Pipeline<std::filesystem::path>> pipeline_;
};

}  // namespace sculpt::device
