#pragma once
// A stand-in for a device, whose time for a candidate is a known function of it: its lower
// bound (1 us without a model) times a penalty in [1, 1 + spread) drawn from its hash. It measures
// one candidate at a time, each taking `latency`, in the order they were submitted, on a thread of
// its own: the search's tests and benchmarks use it to check the search's own behaviour
// (determinism, the cut, the device's idle time, rollouts per second) without a compiler or a GPU.
// Optionally candidates compile first, a time of each one's own (a heavy tail: a few huge
// unrolled kernels take seconds on a GPU's JIT), on a few compilers side by side, and are then
// measured in the order their compilations end, as device::Pipeline does.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "search/session/candidate_evaluator.h"

namespace sculpt::search {

class StandInDevice final : public CandidateEvaluator {
 public:
  /// How long a candidate takes to compile, from its hash and its index among the candidates
  /// submitted (0 for the first). Called on the submitting thread.
  using CompileTime =
      std::function<std::chrono::microseconds(std::uint64_t hash, std::int64_t index)>;

  /// Without `compile_time`, nothing compiles: each candidate is measured as soon as the one
  /// before it was. With it, `compilers` compile side by side.
  explicit StandInDevice(std::chrono::microseconds latency, double spread = 3,
                         CompileTime compile_time = {}, int compilers = 2);
  ~StandInDevice() override;
  StandInDevice(const StandInDevice&) = delete;
  StandInDevice& operator=(const StandInDevice&) = delete;

  /// The time it gives a candidate of this bound and hash.
  double time_ns(double bound_ns, std::uint64_t hash) const;

  device::Kind device_kind() const override { return device::Kind::stand_in; }
  Submission prepare(const spacegen::CandidateBase& candidate, double bound_ns) const override {
    return {{}, bound_ns, candidate.hash()};
  }
  std::future<device::Evaluation> submit(const Submission& submission,
                                         std::shared_ptr<device::Cutoff> cutoff) override;
  /// Abandons the candidates compiling or waiting to be measured, at once (their futures throw
  /// std::future_error).
  void cancel_waiting() override;
  void wait_while_measuring() const override {}
  device::DeviceTimes times() const override;

 private:
  struct Job {
    double time_ns = 0;
    std::chrono::microseconds compile_time{0};
    std::shared_ptr<device::Cutoff> cutoff;
    std::promise<device::Evaluation> promise;
    /// Its promise was broken while it compiled (under mutex_).
    bool abandoned = false;
  };
  void measure_loop();
  void compile_loop();

  std::chrono::microseconds latency_;
  double spread_;
  CompileTime compile_time_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  /// Candidates to compile, and the compilers' sleep (woken by a stop).
  std::condition_variable to_compile_;
  std::deque<std::shared_ptr<Job>> compile_queue_;
  std::vector<std::shared_ptr<Job>> compiling_;
  /// Compiled (or not compiling at all), waiting to be measured.
  std::deque<std::shared_ptr<Job>> queue_;
  std::int64_t submitted_ = 0;
  bool stopping_ = false;
  std::chrono::steady_clock::duration compiled_{};
  std::chrono::steady_clock::duration measured_{};
  /// When the measurement under way started; nothing between measurements.
  std::optional<std::chrono::steady_clock::time_point> measuring_since_;
  std::thread measurer_;
  std::vector<std::thread> compilers_;
};

}  // namespace sculpt::search
