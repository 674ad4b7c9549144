#pragma once
// What a search hands its fully specified candidates to: a device, through each candidate's code
// (gpu/device_evaluator.h), or a stand-in whose times are a known function of the candidate
// (stand_in_device.h). Code is made on the searching thread that found the candidate (prepare),
// so that several threads generate code while the device measures; queuing is quick (submit).
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <string_view>

#include "device/cutoff.h"
#include "device/evaluator.h"
#include "spacegen/runtime/candidate.h"

namespace sculpt::search {

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
  virtual device::Kind device_kind() const = 0;
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

}  // namespace sculpt::search
