#pragma once
// A device measuring candidates of the GPU space on one problem: each candidate's code
// (codegen/device_code.h) in the device's language.
#include <future>
#include <memory>

#include "device/evaluator.h"
#include "search/session/candidate_evaluator.h"

namespace sculpt::search {

/// A device measuring candidates on one problem.
class DeviceEvaluator final : public CandidateEvaluator {
 public:
  DeviceEvaluator(device::Evaluator& device, std::shared_ptr<const device::Problem> problem);

  device::Kind device_kind() const override { return device_.kind(); }
  Submission prepare(const spacegen::CandidateBase& candidate, double bound_ns) const override;
  std::future<device::Evaluation> submit(const Submission& submission,
                                         std::shared_ptr<device::Cutoff> cutoff) override {
    return device_.submit(submission.code, problem_, std::move(cutoff), submission.bound_ns);
  }
  void cancel_waiting() override { device_.cancel_waiting(); }
  void wait_while_measuring() const override { device_.wait_while_measuring(); }
  device::DeviceTimes times() const override { return device_.times(); }
  /// The language the device compiles.
  device::Language language() const { return language_; }

 private:
  device::Evaluator& device_;
  std::shared_ptr<const device::Problem> problem_;
  device::Language language_;
};

}  // namespace sculpt::search
