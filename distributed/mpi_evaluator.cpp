#include "distributed/mpi_evaluator.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "codegen/device_code.h"
#include "gpu_space/space.h"

namespace sculpt::distributed {
namespace {

/// Candidates a rank holds at once: one measured while the next compiles.
constexpr int kPerRank = 2;

}  // namespace

MpiEvaluator::MpiEvaluator(Link& link, std::vector<EvaluatorRank> ranks, device::Kind kind,
                           std::shared_ptr<std::atomic<bool>> broken)
    : link_(link),
      ranks_(std::move(ranks)),
      kind_(kind),
      broken_(std::move(broken)),
      load_(ranks_.size()),
      times_(ranks_.size()),
      thread_([this] { communicate(); }) {}

MpiEvaluator::~MpiEvaluator() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    waiting_.clear();
    sent_.clear();
  }
  wake_.notify_all();
  thread_.join();
}

search::Submission MpiEvaluator::prepare(const spacegen::CandidateBase& candidate,
                                         double bound_ns) const {
  if (kind_ == device::Kind::stand_in) return {{}, bound_ns, candidate.hash()};
  return {codegen::kernel_code(static_cast<const gpu_space::Candidate&>(candidate),
                               device::language_of(kind_), "candidate"),
          bound_ns, candidate.hash()};
}

std::future<device::Evaluation> MpiEvaluator::submit(const search::Submission& submission,
                                                     std::shared_ptr<device::Cutoff> cutoff) {
  Job job;
  job.submission = submission;
  job.cutoff = std::move(cutoff);
  std::future<device::Evaluation> future = job.promise.get_future();
  {
    std::lock_guard lock(mutex_);
    job.id = next_id_++;
    if (!failure_.empty()) {
      job.promise.set_exception(std::make_exception_ptr(device::DeviceError(failure_)));
      return future;
    }
    waiting_.push_back(std::move(job));
  }
  wake_.notify_all();
  return future;
}

void MpiEvaluator::cancel_waiting() {
  {
    std::lock_guard lock(mutex_);
    waiting_.clear();  // their promises break: the futures throw std::future_error
    cancel_ = true;
  }
  wake_.notify_all();
}

device::DeviceTimes MpiEvaluator::times() const {
  std::lock_guard lock(mutex_);
  device::DeviceTimes sum;
  for (const device::DeviceTimes& t : times_) {
    sum.compiling_s += t.compiling_s;
    sum.measuring_s += t.measuring_s;
  }
  return sum;
}

void MpiEvaluator::communicate() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    std::vector<std::pair<int, std::string>> submissions = dispatch();
    const bool cancel = std::exchange(cancel_, false);
    // MPI calls happen outside the lock, so that submit() never waits on them.
    lock.unlock();
    std::vector<Message> arrived;
    std::string broken;
    try {
      for (auto& [rank, bytes] : submissions) link_.send(rank, Tag::submission, std::move(bytes));
      if (cancel) {
        for (const EvaluatorRank& r : ranks_) link_.send(r.rank, Tag::cancel);
      }
      while (std::optional<Message> m = link_.poll()) arrived.push_back(std::move(*m));
    } catch (const LinkError& e) {
      broken = e.what();
    }
    lock.lock();
    try {
      for (const Message& m : arrived) receive(m);
    } catch (const WireError& e) {
      broken = fmt::format(
          "a message from an evaluator rank does not decode ({}): do all ranks run the same "
          "sculpt?",
          e.what());
    }
    if (!broken.empty()) {
      fail_all(broken);
      return;
    }
    if (submissions.empty() && arrived.empty()) {
      wake_.wait_for(lock, kPoll, [this] {
        return stopping_ || cancel_ ||
               (!waiting_.empty() && *std::min_element(load_.begin(), load_.end()) < kPerRank);
      });
    }
  }
}

std::vector<std::pair<int, std::string>> MpiEvaluator::dispatch() {
  std::vector<std::pair<int, std::string>> out;
  while (!waiting_.empty()) {
    const auto least = std::min_element(load_.begin(), load_.end());
    if (*least >= kPerRank) break;
    Job job = std::move(waiting_.front());
    waiting_.pop_front();
    job.rank = static_cast<std::size_t>(least - load_.begin());
    ++*least;
    SubmissionMessage m{job.id, std::move(job.submission), std::nullopt};
    if (job.cutoff) m.cutoff = CutoffState{job.cutoff->factor(), job.cutoff->best_ns()};
    out.emplace_back(ranks_[job.rank].rank, encode(m));
    const std::uint64_t id = job.id;
    sent_.emplace(id, std::move(job));
  }
  return out;
}

void MpiEvaluator::receive(const Message& message) {
  // Nothing but evaluations comes before rank 0 says stop.
  if (message.tag != Tag::evaluation) return;
  EvaluationMessage m = decode_evaluation(message.bytes);
  const auto from = std::find_if(ranks_.begin(), ranks_.end(),
                                 [&](const EvaluatorRank& r) { return r.rank == message.source; });
  if (from == ranks_.end()) return;
  const auto r = static_cast<std::size_t>(from - ranks_.begin());
  --load_[r];
  times_[r] = m.times;
  const auto it = sent_.find(m.job);
  if (it == sent_.end()) return;  // dropped: the evaluator is going
  Job job = std::move(it->second);
  sent_.erase(it);
  switch (m.outcome) {
    case EvaluationMessage::Outcome::evaluated:
      m.evaluation.rank = message.source;
      if (job.cutoff) job.cutoff->observe(m.evaluation);
      job.promise.set_value(std::move(m.evaluation));
      break;
    case EvaluationMessage::Outcome::abandoned:
      break;  // its promise breaks as the job goes
    case EvaluationMessage::Outcome::failed:
      job.promise.set_exception(std::make_exception_ptr(device::DeviceError(
          fmt::format("evaluator rank {} on {}: {}", from->rank, from->host, m.error))));
      break;
  }
}

void MpiEvaluator::fail_all(const std::string& why) {
  failure_ = why;
  broken_->store(true);
  const auto fail = [&](Job& job) {
    job.promise.set_exception(std::make_exception_ptr(device::DeviceError(why)));
  };
  for (Job& job : waiting_) fail(job);
  for (auto& [id, job] : sent_) fail(job);
  waiting_.clear();
  sent_.clear();
}

}  // namespace sculpt::distributed
