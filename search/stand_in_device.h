#pragma once
// A stand-in for a device, whose time for a candidate is a known function of it: its lower
// bound (1 us without a model) times a penalty in [1, 1 + spread) drawn from its hash. It measures
// one candidate at a time, each taking `latency`, in the order they were submitted, on a thread of
// its own: the search's tests and benchmarks use it to check the search's own behaviour
// (determinism, the cut, the device's idle time, rollouts per second) without a compiler or a GPU.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "search/candidate_evaluator.h"

namespace sculpt::search {

class StandInDevice final : public CandidateEvaluator {
 public:
  /// Its device_name(), in logs, and the name `sculpt search --device` knows it by.
  static constexpr const char* kName = "stand-in";

  explicit StandInDevice(std::chrono::microseconds latency, double spread = 3);
  ~StandInDevice() override;
  StandInDevice(const StandInDevice&) = delete;
  StandInDevice& operator=(const StandInDevice&) = delete;

  /// The time it gives a candidate of this bound and hash.
  double time_ns(double bound_ns, std::uint64_t hash) const;

  std::string device_name() const override { return kName; }
  Submission prepare(const spacegen::CandidateBase& candidate, double bound_ns) const override {
    return {{}, bound_ns, candidate.hash()};
  }
  std::future<device::Evaluation> submit(const Submission& submission,
                                         std::shared_ptr<device::Cutoff> cutoff) override;
  void cancel_waiting() override;
  void wait_while_measuring() const override {}
  device::DeviceTimes times() const override;

 private:
  struct Job {
    double time_ns = 0;
    std::shared_ptr<device::Cutoff> cutoff;
    std::promise<device::Evaluation> promise;
  };
  void measure_loop();

  std::chrono::microseconds latency_;
  double spread_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  std::chrono::steady_clock::duration measured_{};
  /// When the measurement under way started; nothing between measurements.
  std::optional<std::chrono::steady_clock::time_point> measuring_since_;
  std::thread measurer_;
};

}  // namespace sculpt::search
