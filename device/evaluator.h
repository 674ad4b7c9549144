#pragma once
// The interface every device implements (the CPU one here, CUDA later): compile a candidate's
// code, run it on a problem's data, time it, and check its results against the reference.
#include <array>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "device/kind.h"
#include "device/problem.h"
#include "support/error.h"

namespace sculpt::device {

// A device evaluates the code codegen makes (codegen/kernel_code.h).
using codegen::KernelCode;
using codegen::LaunchConfig;

/// How an evaluation ended; the names are those of the event log.
enum class Check { ok, wrong, fault, timeout, compile_error };
inline constexpr std::array<Check, 5> kChecks = {Check::ok, Check::wrong, Check::fault,
                                                 Check::timeout, Check::compile_error};

std::string_view to_string(Check check);
/// The check a log names; nothing for a name no evaluation ends with.
std::optional<Check> check_from_string(std::string_view name);

struct Evaluation {
  Check check = Check::ok;
  /// Median of the timed runs; absent when the candidate was not run to completion.
  std::optional<double> time_ns{};
  /// Median absolute deviation of the timed runs from their median.
  double spread_ns = 0;
  /// Number of timed runs (the warm-up run, whose results are checked, is not counted).
  int runs = 0;
  /// Its runs averaged over its cutoff, so timing stopped before the device's plan would have
  /// (a candidate that cannot be a search's best: its time is still measured), or, with a
  /// timeout, a run went on so far past the cutoff that it was killed (RunPlan::run_limit).
  /// Runs stopped early only for being far from the best time (RunPlan::precise_within) are not
  /// cut short.
  bool cut_short = false;
  /// Compiler log, signal name, or first mismatch; empty when ok.
  std::string message{};
  /// What a sampled run of part of the grid estimated a run at (RunPlan::sample), of a
  /// candidate then run in full, or of one it put past the cutoff: a timeout, not run in full.
  std::optional<double> estimate_ns{};
  /// The MPI rank that measured it, in a search spread over an MPI job (distributed/); absent
  /// where this process measured it.
  std::optional<int> rank{};
};

/// Median and median absolute deviation of run times, in nanoseconds.
struct RunStatistics {
  double median_ns = 0;
  double spread_ns = 0;
};
RunStatistics summarize_runs(std::vector<std::int64_t> run_ns);

/// Something the device itself cannot do (no compiler, no GPU, cannot create its cache): the
/// search cannot go on, unlike a faulty candidate, which is an Evaluation.
class Cutoff;

class DeviceError : public Error {
 public:
  explicit DeviceError(const std::string& message) : Error(Error::Kind::environment, message) {}
};

/// A queued candidate left unmeasured: times measured while it waited put the cutoff at or
/// below its lower bound (Evaluator::submit).
class PastTheCutoff : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where a device's time went so far: compiling (summed over its compilers, which run side by
/// side) and measuring (one candidate at a time).
struct DeviceTimes {
  double compiling_s = 0;
  double measuring_s = 0;
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;

  virtual Kind kind() const = 0;
  /// The device's name in logs: "cpu", "cuda".
  std::string name() const { return std::string(device::name(kind())); }
  /// What the device is, for its performance model: "cpu", or a GPU's compute capability
  /// ("sm_90").
  virtual std::string architecture() const { return name(); }
  /// Which device exactly, for caches of what was measured on it: a GPU's name and compute
  /// capability ("NVIDIA H100 80GB HBM3 (sm_90)"), "cpu".
  virtual std::string model() const { return name(); }

  /// Queues an evaluation and returns at once; compilation runs in the background while
  /// earlier candidates are measured, one at a time. The future throws a DeviceError when the
  /// device itself fails. Destroying the evaluator abandons evaluations still queued (their
  /// futures throw std::future_error) and stops their compilations. With a `cutoff`, its value
  /// and best time when the candidate's timing starts replace the device's (RunPlan::cutoff,
  /// RunPlan::best), and the candidate's time, if ok, lowers it. With a cutoff and a lower
  /// bound on the candidate's time too, a candidate whose bound is at least the cutoff when its
  /// measurement would start is not measured (its timing would stop before it began): its future
  /// throws PastTheCutoff.
  std::future<Evaluation> submit(KernelCode code, std::shared_ptr<const Problem> problem,
                                 std::shared_ptr<Cutoff> cutoff = nullptr, double bound_ns = 0) {
    return queue(std::move(code), std::move(problem), std::move(cutoff), bound_ns);
  }

  /// Abandons the evaluations submitted so far that have not started running (a search out of
  /// budget): their futures throw std::future_error at once, and their compilations under way
  /// are stopped (the compiler's process killed), not waited for. The one being measured
  /// finishes.
  virtual void cancel_waiting() = 0;

  /// Returns once the device is not measuring: a device that times candidates on the host's
  /// cores (the CPU) waits here so that searching threads do not disturb its times; others
  /// return at once.
  virtual void wait_while_measuring() const {}

  virtual DeviceTimes times() const = 0;

  /// Compiles, runs, times and checks one candidate, waiting for the result.
  Evaluation evaluate(KernelCode code, std::shared_ptr<const Problem> problem) {
    return submit(std::move(code), std::move(problem)).get();
  }

 private:
  /// The device's submit.
  virtual std::future<Evaluation> queue(KernelCode code, std::shared_ptr<const Problem> problem,
                                        std::shared_ptr<Cutoff> cutoff, double bound_ns) = 0;
};

}  // namespace sculpt::device
