#pragma once
// An evaluator rank of a distributed search (every rank but 0): it says what device it measures
// on, makes the problem rank 0 names (the inputs drawn from the seed, the reference computed
// here, once), then measures the candidates rank 0 sends and sends back their evaluations, until
// rank 0 says stop. A candidate's faults stay in the device's worker processes, as in a search of
// one process.
#include <functional>
#include <memory>
#include <string>

#include "device/problem.h"
#include "distributed/mpi_session.h"
#include "search/session/candidate_evaluator.h"

namespace sculpt::distributed {

/// The device an evaluator rank measures on, made at start.
struct RankDevice {
  /// As device::Evaluator names them; `name` empty, with `error` saying why, when the rank has
  /// no device.
  std::string name;
  std::string architecture;
  std::string model;
  std::string error;
  /// The evaluator of a problem on the device.
  std::function<std::unique_ptr<search::CandidateEvaluator>(std::shared_ptr<const device::Problem>)>
      open;
};

/// Serves rank 0 until it says stop.
void serve(MpiSession& mpi, const RankDevice& device);

}  // namespace sculpt::distributed
