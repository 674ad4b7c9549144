#pragma once
// Rank 0's evaluator in a distributed search: the evaluator ranks of the MPI job measure its
// candidates, and the search sees one evaluator with a device queue per rank (queues()), so that
// every search algorithm uses them unchanged. Each rank holds up to two candidates (one measured
// while the next compiles); the others wait here, in the order they came, for the first rank with
// room. A thread of its own sends and receives.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "distributed/link.h"
#include "search/session/candidate_evaluator.h"

namespace sculpt::distributed {

/// An evaluator rank as rank 0 knows it.
struct EvaluatorRank {
  int rank = 0;
  std::string host;
};

class MpiEvaluator final : public search::CandidateEvaluator {
 public:
  /// Measures on `ranks`, which hold the problem, each with a device of `kind`; candidates
  /// travel as code in that device's language (a stand-in takes none). Sets `broken` when the link
  /// to the ranks fails: they can no longer be told to stop, and every evaluation fails with a
  /// device::DeviceError.
  MpiEvaluator(Link& link, std::vector<EvaluatorRank> ranks, device::Kind kind,
               std::shared_ptr<std::atomic<bool>> broken);
  /// Abandons what is still under way.
  ~MpiEvaluator() override;
  MpiEvaluator(const MpiEvaluator&) = delete;
  MpiEvaluator& operator=(const MpiEvaluator&) = delete;

  device::Kind device_kind() const override { return kind_; }
  search::Submission prepare(const spacegen::CandidateBase& candidate,
                             double bound_ns) const override;
  std::future<device::Evaluation> submit(const search::Submission& submission,
                                         std::shared_ptr<device::Cutoff> cutoff) override;
  void cancel_waiting() override;
  /// The devices are other processes', on other cores or machines.
  void wait_while_measuring() const override {}
  device::DeviceTimes times() const override;
  int queues() const override { return static_cast<int>(ranks_.size()); }

 private:
  struct Job {
    std::uint64_t id = 0;
    search::Submission submission;
    std::shared_ptr<device::Cutoff> cutoff;
    std::promise<device::Evaluation> promise;
    /// Index in ranks_ once sent.
    std::size_t rank = 0;
  };

  void communicate();
  /// Under the lock: hands waiting jobs to ranks with room; what to send.
  std::vector<std::pair<int, std::string>> dispatch();
  /// Under the lock: an evaluation a rank sent.
  void receive(const Message& message);
  /// Under the lock: the link to the ranks failed, and with it every job.
  void fail_all(const std::string& why);

  Link& link_;
  const std::vector<EvaluatorRank> ranks_;
  const device::Kind kind_;
  const std::shared_ptr<std::atomic<bool>> broken_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> waiting_;
  std::unordered_map<std::uint64_t, Job> sent_;
  /// Per rank: jobs sent and not answered, and its device's times as it last said.
  std::vector<int> load_;
  std::vector<device::DeviceTimes> times_;
  std::uint64_t next_id_ = 0;
  bool cancel_ = false;
  bool stopping_ = false;
  /// Why the ranks cannot be reached any more.
  std::string failure_;
  // Declared last: started once everything above exists.
  std::thread thread_;
};

}  // namespace sculpt::distributed
