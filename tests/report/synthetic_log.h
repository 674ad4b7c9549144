#pragma once
// A search's log written by hand for the report tests: the header of matmul 32x32x32 on a
// device, candidates from random descents of today's space with the model's bounds and made-up
// times (several times their bounds, the best found along the way), the checks asked for, and a
// statistics line, so that a report can be checked against what the log holds without running
// a search.
#include <cmath>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gpu_space/space.h"
#include "perf_model/model.h"
#include "search/log/event_log.h"
#include "search/session/descent.h"
#include "search/session/session.h"
#include "zoo/zoo.h"

namespace sculpt::report {

struct LogSpec {
  /// The CPU (read with the shipped cpu description) or CUDA (sm_90).
  device::Kind device = device::Kind::cpu;
  /// One evaluation per entry, in order: ok, wrong, fault, timeout or compile_error.
  std::vector<std::string> checks;
  /// Ends with a session's statistics line.
  bool stats = true;
};

/// The message of a failed evaluation: markup that the page must escape.
inline const char* kFailureMessage = "C[3] is 2 <b>&</b> not 1";

/// Writes `dir`/log.jsonl as `spec` says; the evaluations it wrote.
inline std::vector<search::LogEvaluation> write_log(const std::filesystem::path& dir,
                                                    const LogSpec& spec) {
  const zoo::ZooLookup lookup = zoo::lookup_kernel("matmul", "32x32x32");
  const perf_model::Description description =
      perf_model::Description::named(spec.device == device::Kind::cuda ? "sm_90" : "cpu");
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, description.limits);
  const perf_model::Model model(kernel, description);

  search::LogHeader header;
  header.kernel = "matmul";
  header.sizes = lookup.sizes.entries();
  header.device = spec.device;
  header.space_hash = root->table().model_hash;
  header.seed = 7;
  header.algorithm = "mcts";
  std::filesystem::create_directories(dir);
  search::EventLog log = search::EventLog::create(dir / "log.jsonl", header);

  std::mt19937_64 rng(11);
  std::vector<search::LogEvaluation> written;
  for (const std::string& check : spec.checks) {
    search::Descent descent = search::random_descent(*root, rng);
    while (!descent.candidate) descent = search::random_descent(*root, rng);
    const auto& candidate = static_cast<const gpu_space::Candidate&>(*descent.candidate);
    search::LogEvaluation e;
    e.id = static_cast<std::int64_t>(written.size());
    e.actions = descent.actions;
    e.bound_ns = model.bound(candidate).ns;
    e.check = check;
    e.t = 0.25 * static_cast<double>(written.size() + 1);
    if (check == "ok" || check == "wrong") {
      // 2 to 50 times the bound, and a little less each evaluation: the best time falls.
      const double factor = 2 + std::uniform_real_distribution<double>(0, 48)(rng);
      e.time_ns = *e.bound_ns * factor * std::pow(0.97, static_cast<double>(e.id));
      e.spread_ns = *e.time_ns * 0.02;
      e.runs = 10;
      e.cut_short = factor > 40;
    }
    if (check != "ok") e.message = kFailureMessage;
    log.write(e);
    written.push_back(std::move(e));
  }
  if (spec.stats) {
    search::SessionStats stats;
    stats.algorithm = "mcts";
    stats.evaluated = static_cast<std::int64_t>(written.size());
    stats.rollouts = stats.evaluated + 2;
    stats.dead_ends = 2;
    stats.wall_s = 0.25 * static_cast<double>(written.size() + 1);
    stats.propagation_s = stats.wall_s * 0.1;
    stats.compile_s = stats.wall_s * 0.6;
    stats.measure_s = stats.wall_s * 0.3;
    stats.device_idle_share = 0.1;
    log.write_stats(stats.to_json());
  }
  return written;
}

/// `n` evaluations that check ok but for a wrong one, a timeout and a compile error among them.
inline std::vector<std::string> mostly_ok(int n) {
  std::vector<std::string> checks(n, "ok");
  if (n > 9) {
    checks[3] = "wrong";
    checks[6] = "timeout";
    checks[9] = "compile_error";
  }
  return checks;
}

}  // namespace sculpt::report
