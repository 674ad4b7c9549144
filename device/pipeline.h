#pragma once
// The flow every device shares: candidates compile on a pool of threads while one thread
// measures the compiled ones, one at a time, in the order they finished compiling, so that the
// device never waits for a compiler.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <unordered_set>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "device/cutoff.h"
#include "device/evaluator.h"
#include "device/thread_pool.h"

namespace sculpt::device {

/// `requested`, or one per hardware thread when it is 0.
inline int compile_threads_or_default(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

template <typename Compiled>
class Pipeline {
 public:
  /// The compiled candidate, or its evaluation when compiling decides it (compile_error).
  using CompileResult = std::variant<Compiled, Evaluation>;
  /// Runs on the pool, several at a time. May throw (the future then throws). The stop token is
  /// requested when the candidate is abandoned (cancel_waiting, destruction): a compiler that
  /// can stop then (kill its process) lets the caller go at once; what it returns is dropped.
  using Compile = std::function<CompileResult(const KernelCode&, std::stop_token)>;
  /// Runs on the measuring thread, one at a time, with the candidate's cutoff (and the best
  /// time it is a multiple of) as they stand when its measurement starts. May throw (the future
  /// then throws).
  using Measure = std::function<Evaluation(const KernelCode&, const std::shared_ptr<const Problem>&,
                                           Compiled&, const CutoffSnapshot&)>;

  Pipeline(int compile_threads, Compile compile, Measure measure)
      : compile_(std::move(compile)), measure_(std::move(measure)) {
    measurer_ = std::thread([this] { measure_loop(); });
    pool_ = std::make_unique<ThreadPool>(compile_threads);
  }

  /// Stops the compilations under way (their compilers may stop at once, see Compile) and
  /// abandons the queued ones (their futures throw std::future_error); waits for the
  /// measurement under way.
  ~Pipeline() {
    std::vector<std::shared_ptr<Job>> abandoned;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      abandoned = abandon_waiting();
    }
    stop_compiling(abandoned);
    pool_.reset();
    ready_.notify_all();
    idle_.notify_all();
    measurer_.join();
  }

  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  /// Evaluator::submit: a job whose bound is at least its cutoff when its turn to be measured
  /// comes is not measured.
  std::future<Evaluation> submit(KernelCode code, std::shared_ptr<const Problem> problem,
                                 std::shared_ptr<Cutoff> cutoff = nullptr, double bound_ns = 0) {
    auto job = std::make_shared<Job>();
    job->code = std::move(code);
    job->problem = std::move(problem);
    job->cutoff = std::move(cutoff);
    job->bound_ns = bound_ns;
    auto future = job->promise.get_future();
    {
      std::lock_guard lock(mutex_);
      waiting_.insert(job);
    }
    pool_->post([this, job] { compile(job); });
    return future;
  }

  /// Abandons every evaluation submitted so far whose measurement has not started: its future
  /// throws std::future_error at once, and its compilation, if under way, is stopped (see
  /// Compile) or thrown away. The measurement under way finishes.
  void cancel_waiting() {
    std::vector<std::shared_ptr<Job>> abandoned;
    {
      std::lock_guard lock(mutex_);
      abandoned = abandon_waiting();
    }
    stop_compiling(abandoned);
  }

  /// Evaluations finished, whatever their check (not those that threw).
  std::int64_t evaluations() const {
    std::lock_guard lock(mutex_);
    return evaluations_;
  }

  /// Time spent compiling (summed over the pool's threads) and measuring so far.
  DeviceTimes times() const {
    std::lock_guard lock(mutex_);
    DeviceTimes t = times_;
    if (measuring_) t.measuring_s += seconds_since(measure_start_);
    return t;
  }

  /// Returns once no candidate is being measured.
  void wait_while_measuring() const {
    std::unique_lock lock(mutex_);
    idle_.wait(lock, [this] { return !measuring_ || stopping_; });
  }

  /// Candidates left uncompiled because their bound had reached the cutoff when a compiler was
  /// free for them.
  std::int64_t not_compiled() const {
    std::lock_guard lock(mutex_);
    return not_compiled_;
  }

  /// Compilations that finished while a candidate was being measured: the overlap that keeps
  /// the device busy.
  std::int64_t compiled_while_measuring() const {
    std::lock_guard lock(mutex_);
    return compiled_while_measuring_;
  }

 private:
  struct Job {
    KernelCode code;
    std::shared_ptr<const Problem> problem;
    std::shared_ptr<Cutoff> cutoff;
    double bound_ns = 0;
    std::promise<Evaluation> promise;
    std::optional<Compiled> compiled;
    /// Requested when the job is abandoned.
    std::stop_source abandoned;
  };

  /// Settles every waiting job with std::future_error; returns them. Under mutex_.
  std::vector<std::shared_ptr<Job>> abandon_waiting() {
    std::vector<std::shared_ptr<Job>> abandoned(waiting_.begin(), waiting_.end());
    for (const std::shared_ptr<Job>& job : abandoned) {
      job->promise.set_exception(
          std::make_exception_ptr(std::future_error(std::future_errc::broken_promise)));
    }
    waiting_.clear();
    compiled_.clear();
    return abandoned;
  }

  /// Stops the compilations of abandoned jobs (their compilers' stop callbacks run here, not
  /// under mutex_: killing a process takes a moment).
  static void stop_compiling(const std::vector<std::shared_ptr<Job>>& abandoned) {
    for (const std::shared_ptr<Job>& job : abandoned) job->abandoned.request_stop();
  }

  /// Whether `job` still waits (not abandoned); if so and `settle`, it waits no longer: the
  /// caller now owns its promise.
  bool still_waiting(const std::shared_ptr<Job>& job, bool settle) {
    std::lock_guard lock(mutex_);
    if (!waiting_.contains(job)) return false;
    if (settle) waiting_.erase(job);
    return true;
  }

  /// Whether `job`'s bound reached its cutoff (widened by the slack), as `at` has it: measuring
  /// it could only cut it short, and compiling it could only feed that.
  static bool past_cutoff(const Job& job, const CutoffSnapshot& at) {
    return at.cutoff &&
           job.bound_ns >= static_cast<double>(at.cutoff->count()) * job.cutoff->slack();
  }

  /// Settles `job` with PastTheCutoff, `when` saying at which stage.
  static void drop_past_cutoff(Job& job, const char* when) {
    job.promise.set_exception(std::make_exception_ptr(PastTheCutoff(
        fmt::format("its bound reached the cutoff {}: {} not measured", when, job.code.entry))));
  }

  void compile(const std::shared_ptr<Job>& job) {
    if (!still_waiting(job, false)) return;
    // Times measured since it was submitted may have put it past the cutoff: the compiler's time
    // goes to another candidate.
    if (job->cutoff && past_cutoff(*job, job->cutoff->snapshot())) {
      if (still_waiting(job, true)) {
        {
          std::lock_guard lock(mutex_);
          ++not_compiled_;
        }
        drop_past_cutoff(*job, "before it compiled");
      }
      return;
    }
    std::optional<CompileResult> result;
    const auto start = std::chrono::steady_clock::now();
    try {
      result.emplace(compile_(job->code, job->abandoned.get_token()));
    } catch (...) {
      if (still_waiting(job, true)) job->promise.set_exception(std::current_exception());
      return;
    }
    {
      std::lock_guard lock(mutex_);
      times_.compiling_s += seconds_since(start);
      if (measuring_) ++compiled_while_measuring_;
    }
    if (auto* evaluation = std::get_if<Evaluation>(&*result)) {
      if (still_waiting(job, true)) finish(*job, std::move(*evaluation));
      return;
    }
    job->compiled.emplace(std::move(std::get<Compiled>(*result)));
    {
      std::lock_guard lock(mutex_);
      if (!waiting_.contains(job)) return;
      compiled_.push_back(job);
    }
    ready_.notify_one();
  }

  void measure_loop() {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !compiled_.empty(); });
        if (stopping_) return;
        job = std::move(compiled_.front());
        compiled_.pop_front();
        waiting_.erase(job);
      }
      const CutoffSnapshot at = job->cutoff ? job->cutoff->snapshot() : CutoffSnapshot{};
      if (past_cutoff(*job, at)) {
        drop_past_cutoff(*job, "while it waited");
        continue;
      }
      {
        std::lock_guard lock(mutex_);
        measuring_ = true;
        measure_start_ = std::chrono::steady_clock::now();
      }
      std::optional<Evaluation> evaluation;
      try {
        evaluation = measure_(job->code, job->problem, *job->compiled, at);
      } catch (...) {
        job->promise.set_exception(std::current_exception());
      }
      {
        std::lock_guard lock(mutex_);
        measuring_ = false;
        times_.measuring_s += seconds_since(measure_start_);
      }
      idle_.notify_all();
      if (!evaluation) continue;
      if (job->cutoff) job->cutoff->observe(*evaluation);
      finish(*job, std::move(*evaluation));
    }
  }

  void finish(Job& job, Evaluation evaluation) {
    {
      std::lock_guard lock(mutex_);
      ++evaluations_;
    }
    job.promise.set_value(std::move(evaluation));
  }

  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  Compile compile_;
  Measure measure_;

  mutable std::mutex mutex_;
  std::condition_variable ready_;
  mutable std::condition_variable idle_;
  /// Submitted and neither measured nor settled by compiling: what cancel_waiting abandons.
  std::unordered_set<std::shared_ptr<Job>> waiting_;
  std::deque<std::shared_ptr<Job>> compiled_;
  bool stopping_ = false;
  bool measuring_ = false;
  std::chrono::steady_clock::time_point measure_start_{};
  DeviceTimes times_{};
  std::int64_t evaluations_ = 0;
  std::int64_t compiled_while_measuring_ = 0;
  std::int64_t not_compiled_ = 0;

  // Started once everything above exists, stopped before it goes.
  std::thread measurer_;
  std::unique_ptr<ThreadPool> pool_;
};

}  // namespace sculpt::device
