#pragma once
// Rank 0 of a distributed search: the evaluator ranks (all the others), each with the device it
// said at start it measures on, which must be alike; the evaluator measuring the problem on them;
// and their stop at the end.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "distributed/link.h"
#include "distributed/mpi_evaluator.h"
#include "distributed/mpi_session.h"
#include "search/session/candidate_evaluator.h"

namespace sculpt::distributed {

class EvaluatorPool {
 public:
  /// Waits until every evaluator rank has said what it measures on.
  explicit EvaluatorPool(MpiSession& mpi);
  /// Tells every rank to stop and waits until each has. Not when the link to them failed: MPI
  /// is then left as it is (MpiSession::abandon), and the job ends with rank 0's exit code.
  ~EvaluatorPool();
  EvaluatorPool(const EvaluatorPool&) = delete;
  EvaluatorPool& operator=(const EvaluatorPool&) = delete;

  /// Why these ranks cannot search together: ranks without a device, or ranks on different
  /// devices, each named with its host and device; empty when they can.
  const std::string& refusal() const { return refusal_; }
  /// Their device, alike on every rank (when there is no refusal), as device::Evaluator says:
  /// its kind, its architecture ("sm_90") and its model ("NVIDIA H100 80GB HBM3 (sm_90)").
  device::Kind device_kind() const;
  const std::string& architecture() const { return device_.architecture; }
  const std::string& model() const { return device_.model; }
  int size() const { return static_cast<int>(ranks_.size()); }

  /// Sends every rank the problem and returns the evaluator measuring on them. Once. Throws
  /// LinkError.
  std::unique_ptr<search::CandidateEvaluator> open(const ProblemMessage& problem);

 private:
  /// The refusal, if any, of ranks that said `hellos` (by rank).
  static std::string refusal_of(const std::vector<std::pair<int, Hello>>& hellos);

  MpiSession& mpi_;
  Link link_;
  std::vector<EvaluatorRank> ranks_;
  Hello device_;
  std::string refusal_;
  /// Whether the link to the ranks failed.
  std::shared_ptr<std::atomic<bool>> broken_ = std::make_shared<std::atomic<bool>>(false);
};

}  // namespace sculpt::distributed
