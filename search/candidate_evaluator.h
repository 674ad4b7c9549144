#pragma once
// What a search hands its fully specified candidates to: a device, through each candidate's code
// (DeviceEvaluator), or a stand-in whose times are a known function of the candidate
// (stand_in_device.h). Code is made on the searching thread that found the candidate (prepare),
// so that several threads generate code while the device measures; queuing is quick (submit).
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <string_view>

#include "codegen/lowered.h"
#include "device/cutoff.h"
#include "device/evaluator.h"
#include "gpu_space/space.h"

namespace sculpt::search {

/// The language a device named `device` (device::Evaluator::name) compiles: PTX for CUDA,
/// else C.
device::Language device_language(std::string_view device);

/// How a lowered kernel is launched: a 1-D grid of blocks of its thread shape.
device::LaunchConfig launch_config(const codegen::LoweredKernel& lowered);

/// The code of a fully specified candidate for a device: C for the CPU, PTX for CUDA (launched
/// on a 1-D grid of blocks of the candidate's thread shape).
device::KernelCode kernel_code(const gpu_space::Candidate& candidate, device::Language language,
                               const std::string& entry);

/// A candidate ready to be queued.
struct Submission {
  /// Empty for a stand-in device.
  device::KernelCode code;
  /// The candidate's lower bound, its hash (gpu_space::Candidate::hash).
  double bound_ns = 0;
  std::uint64_t hash = 0;
};

class CandidateEvaluator {
 public:
  virtual ~CandidateEvaluator() = default;
  /// The device's name in logs ("cpu", "cuda", "stand-in").
  virtual std::string device_name() const = 0;
  /// Makes what submit() queues; thread-safe. Devices take candidates of the GPU space
  /// (gpu_space::Candidate); a stand-in takes those of any space.
  virtual Submission prepare(const spacegen::CandidateBase& candidate, double bound_ns) const = 0;
  /// Queues an evaluation (device::Evaluator::submit). Called by one thread at a time, in the
  /// order the search numbers its evaluations.
  virtual std::future<device::Evaluation> submit(const Submission& submission,
                                                 std::shared_ptr<device::Cutoff> cutoff) = 0;
  virtual void cancel_waiting() = 0;
  virtual void wait_while_measuring() const = 0;
  /// Summed over its queues.
  virtual device::DeviceTimes times() const = 0;
  /// Candidates it measures at once: one per device queue (several devices in a distributed
  /// search), so that the session keeps enough in flight to keep each busy.
  virtual int queues() const { return 1; }
};

/// A device measuring candidates on one problem.
class DeviceEvaluator final : public CandidateEvaluator {
 public:
  DeviceEvaluator(device::Evaluator& device, std::shared_ptr<const device::Problem> problem);

  std::string device_name() const override { return device_.name(); }
  Submission prepare(const spacegen::CandidateBase& candidate, double bound_ns) const override;
  std::future<device::Evaluation> submit(const Submission& submission,
                                         std::shared_ptr<device::Cutoff> cutoff) override {
    return device_.submit(submission.code, problem_, std::move(cutoff), submission.bound_ns);
  }
  void cancel_waiting() override { device_.cancel_waiting(); }
  void wait_while_measuring() const override { device_.wait_while_measuring(); }
  device::DeviceTimes times() const override { return device_.times(); }
  /// The language the device compiles (device_language).
  device::Language language() const { return language_; }

 private:
  device::Evaluator& device_;
  std::shared_ptr<const device::Problem> problem_;
  device::Language language_;
};

}  // namespace sculpt::search
