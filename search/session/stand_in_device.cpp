#include "search/session/stand_in_device.h"

#include <algorithm>

namespace sculpt::search {

StandInDevice::StandInDevice(std::chrono::microseconds latency, double spread,
                             CompileTime compile_time, int compilers)
    : latency_(latency), spread_(spread), compile_time_(std::move(compile_time)) {
  measurer_ = std::thread([this] { measure_loop(); });
  if (compile_time_) {
    for (int i = 0; i < std::max(compilers, 1); ++i) {
      compilers_.emplace_back([this] { compile_loop(); });
    }
  }
}

StandInDevice::~StandInDevice() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_all();
  to_compile_.notify_all();
  measurer_.join();
  for (std::thread& c : compilers_) c.join();
}

double StandInDevice::time_ns(double bound_ns, std::uint64_t hash) const {
  // The hash's top 53 bits as a uniform draw in [0, 1).
  const double u = static_cast<double>(hash >> 11) * 0x1.0p-53;
  return (bound_ns > 0 ? bound_ns : 1000) * (1 + spread_ * u);
}

std::future<device::Evaluation> StandInDevice::submit(const Submission& submission,
                                                      std::shared_ptr<device::Cutoff> cutoff) {
  auto job = std::make_shared<Job>();
  job->time_ns = time_ns(submission.bound_ns, submission.hash);
  job->cutoff = std::move(cutoff);
  std::future<device::Evaluation> future = job->promise.get_future();
  {
    std::lock_guard lock(mutex_);
    if (compile_time_) {
      job->compile_time = compile_time_(submission.hash, submitted_);
      compile_queue_.push_back(std::move(job));
    } else {
      queue_.push_back(std::move(job));
    }
    ++submitted_;
  }
  // All: a compiler asleep on its compilation may take the notification.
  if (compile_time_) {
    to_compile_.notify_all();
  } else {
    ready_.notify_one();
  }
  return future;
}

void StandInDevice::cancel_waiting() {
  std::lock_guard lock(mutex_);
  for (const std::shared_ptr<Job>& job : compiling_) {
    job->abandoned = true;
    job->promise.set_exception(
        std::make_exception_ptr(std::future_error(std::future_errc::broken_promise)));
  }
  compiling_.clear();
  // Their promises break: the futures throw std::future_error.
  compile_queue_.clear();
  queue_.clear();
}

device::DeviceTimes StandInDevice::times() const {
  std::lock_guard lock(mutex_);
  std::chrono::steady_clock::duration measured = measured_;
  if (measuring_since_) measured += std::chrono::steady_clock::now() - *measuring_since_;
  return {std::chrono::duration<double>(compiled_).count(),
          std::chrono::duration<double>(measured).count()};
}

void StandInDevice::compile_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    to_compile_.wait(lock, [this] { return stopping_ || !compile_queue_.empty(); });
    if (stopping_) return;
    std::shared_ptr<Job> job = std::move(compile_queue_.front());
    compile_queue_.pop_front();
    compiling_.push_back(job);
    const auto start = std::chrono::steady_clock::now();
    if (to_compile_.wait_until(lock, start + job->compile_time, [this] { return stopping_; })) {
      return;
    }
    compiled_ += std::chrono::steady_clock::now() - start;
    if (job->abandoned) continue;
    std::erase(compiling_, job);
    queue_.push_back(std::move(job));
    ready_.notify_one();
  }
}

void StandInDevice::measure_loop() {
  for (;;) {
    std::shared_ptr<Job> job;
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
    evaluation.time_ns = job->time_ns;
    evaluation.runs = 1;
    if (job->cutoff) {
      const auto cut = job->cutoff->get();
      evaluation.cut_short = cut && job->time_ns > static_cast<double>(cut->count());
    }
    std::this_thread::sleep_until(start + latency_);
    {
      std::lock_guard lock(mutex_);
      measured_ += std::chrono::steady_clock::now() - start;
      measuring_since_.reset();
    }
    if (job->cutoff) job->cutoff->observe(evaluation);
    job->promise.set_value(std::move(evaluation));
  }
}

}  // namespace sculpt::search
