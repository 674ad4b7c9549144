#pragma once
// The plumbing every search algorithm shares, with the simplest algorithm on top: uniform random
// descents from the root, each fully specified candidate lowered, printed for the device,
// compiled, run, timed and checked. Several candidates are in flight so that the device compiles
// the next ones while it measures.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/evaluator.h"
#include "gpu_space/space.h"
#include "perf_model/model.h"

namespace sculpt::search {

/// The code of a fully specified candidate for a device: C for the CPU, PTX for CUDA (launched
/// on a 1-D grid of blocks of the candidate's thread shape).
device::KernelCode kernel_code(const gpu_space::Candidate& candidate, device::Language language,
                               const std::string& entry);

struct SearchOptions {
  std::int64_t evals = 100;
  /// Wall-clock budget; absent: until `evals` candidates are evaluated.
  std::optional<std::chrono::duration<double>> budget;
  std::uint64_t seed = 1;
  /// Ids of the evaluations start here (a resumed search continues its log).
  std::int64_t first_id = 0;
  /// Candidates submitted and not yet evaluated.
  int in_flight = 4;
  /// A candidate stops being timed once its runs average over this many times the best time
  /// measured before it (it cannot become the best; its time is kept): 0 or at least 1; 0: each
  /// is timed as the device plans.
  double cutoff = 4;
  /// The best time before this search started (a resumed search's log).
  std::optional<double> best_ns;
  /// Asked between evaluations and while waiting for one: once it answers true (a Ctrl-C), the
  /// search ends as if its budget had run out.
  std::function<bool()> stop_requested;
  /// Gives each candidate's lower bound (Evaluated::bound_ns); none without it.
  const perf_model::Model* model = nullptr;
};

/// One candidate as the search evaluated it.
struct Evaluated {
  std::int64_t id = 0;
  std::vector<spacegen::Action> actions;
  device::KernelCode code;
  /// The lower bound on its time (SearchOptions::model).
  std::optional<double> bound_ns;
  device::Evaluation evaluation;
  double t = 0;  // seconds since the search started
};

struct SearchStats {
  std::int64_t evaluated = 0;
  std::int64_t dead_ends = 0;
  /// Submitted but not run: still waiting for the device when the budget ran out (or a stop was
  /// requested).
  std::int64_t abandoned = 0;
  /// Evaluated, but timed less than the device planned: slower than the cutoff.
  std::int64_t cut_short = 0;
  /// Of those, the timeouts: runs killed far past the cutoff (RunPlan::run_limit).
  std::int64_t killed = 0;
};

/// Random search on `device`: calls `on_evaluated` for each evaluation, in submission order.
/// When the budget runs out or a stop is requested, the evaluation being measured finishes and
/// those still waiting are abandoned. A DeviceError from the device propagates.
SearchStats random_search(const gpu_space::Candidate& root, device::Evaluator& device,
                          device::Language language,
                          const std::shared_ptr<const device::Problem>& problem,
                          const SearchOptions& options,
                          const std::function<void(Evaluated&&)>& on_evaluated);

}  // namespace sculpt::search
