#include "search/stand_in_device.h"

namespace sculpt::search {

StandInDevice::StandInDevice(std::chrono::microseconds latency, double spread)
    : latency_(latency), spread_(spread), measurer_([this] { measure_loop(); }) {}

StandInDevice::~StandInDevice() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  measurer_.join();
}

double StandInDevice::time_ns(double bound_ns, std::uint64_t hash) const {
  // The hash's top 53 bits as a uniform draw in [0, 1).
  const double u = static_cast<double>(hash >> 11) * 0x1.0p-53;
  return (bound_ns > 0 ? bound_ns : 1000) * (1 + spread_ * u);
}

std::future<device::Evaluation> StandInDevice::submit(const Submission& submission,
                                                      std::shared_ptr<device::Cutoff> cutoff) {
  Job job{time_ns(submission.bound_ns, submission.hash), std::move(cutoff), {}};
  std::future<device::Evaluation> future = job.promise.get_future();
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(job));
  }
  ready_.notify_one();
  return future;
}

void StandInDevice::cancel_waiting() {
  std::lock_guard lock(mutex_);
  queue_.clear();  // their promises break: the futures throw std::future_error
}

device::DeviceTimes StandInDevice::times() const {
  std::lock_guard lock(mutex_);
  std::chrono::steady_clock::duration measured = measured_;
  if (measuring_since_) measured += std::chrono::steady_clock::now() - *measuring_since_;
  return {0, std::chrono::duration<double>(measured).count()};
}

void StandInDevice::measure_loop() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      measuring_since_ = std::chrono::steady_clock::now();
    }
    const auto start = *measuring_since_;
    device::Evaluation evaluation;
    evaluation.time_ns = job.time_ns;
    evaluation.runs = 1;
    if (job.cutoff) {
      const auto cut = job.cutoff->get();
      evaluation.cut_short = cut && job.time_ns > static_cast<double>(cut->count());
    }
    std::this_thread::sleep_until(start + latency_);
    {
      std::lock_guard lock(mutex_);
      measured_ += std::chrono::steady_clock::now() - start;
      measuring_since_.reset();
    }
    if (job.cutoff) job.cutoff->observe(evaluation);
    job.promise.set_value(std::move(evaluation));
  }
}

}  // namespace sculpt::search
