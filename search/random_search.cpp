#include "search/random_search.h"

#include <algorithm>
#include <deque>
#include <random>

#include "codegen/c_printer.h"
#include "codegen/lower.h"
#include "codegen/ptx_printer.h"
#include "device/cutoff.h"
#include "search/descent.h"
#include "support/check.h"

namespace sculpt::search {

device::KernelCode kernel_code(const gpu_space::Candidate& candidate, device::Language language,
                               const std::string& entry) {
  const codegen::LoweredKernel lowered = codegen::lower(candidate);
  device::KernelCode code;
  code.language = language;
  code.entry = entry;
  if (language == device::Language::c) {
    code.source = codegen::print_c(lowered, entry);
    return code;
  }
  codegen::PtxOptions ptx;
  ptx.compute_capability = candidate.backbone().device().compute_capability;
  code.source = codegen::print_ptx(lowered, entry, ptx);
  SCULPT_CHECK(lowered.num_blocks() < (std::int64_t{1} << 31)) << "too many blocks for a 1-D grid";
  code.launch.grid = {static_cast<std::uint32_t>(lowered.num_blocks()), 1, 1};
  for (int l = 0; l < 3; ++l) code.launch.block[l] = static_cast<std::uint32_t>(lowered.block_size[l]);
  return code;
}

SearchStats random_search(const gpu_space::Candidate& root, device::Evaluator& device,
                          device::Language language,
                          const std::shared_ptr<const device::Problem>& problem,
                          const SearchOptions& options,
                          const std::function<void(Evaluated&&)>& on_evaluated) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start); };
  std::mt19937_64 rng(options.seed);
  SearchStats stats;
  struct Pending {
    Evaluated evaluated;
    std::future<device::Evaluation> future;
  };
  std::deque<Pending> pending;
  std::int64_t submitted = 0;
  // A budget past what the clock holds (centuries) is no limit: adding it would overflow.
  const Clock::time_point deadline =
      options.budget && *options.budget < Clock::time_point::max() - start
          ? start + std::chrono::duration_cast<Clock::duration>(*options.budget)
          : Clock::time_point::max();
  auto must_stop = [&] {
    return Clock::now() >= deadline || (options.stop_requested && options.stop_requested());
  };
  const auto cutoff = options.cutoff > 0
                          ? std::make_shared<device::Cutoff>(options.cutoff, options.best_ns)
                          : nullptr;
  bool cancelled = false;
  while (submitted < options.evals || !pending.empty()) {
    while (submitted < options.evals && static_cast<int>(pending.size()) < options.in_flight &&
           !must_stop()) {
      Descent descent = random_descent(root, rng);
      if (!descent.candidate) {
        ++stats.dead_ends;
        continue;
      }
      Pending p;
      p.evaluated.id = options.first_id + submitted++;
      p.evaluated.actions = std::move(descent.actions);
      const auto& candidate = static_cast<const gpu_space::Candidate&>(*descent.candidate);
      p.evaluated.code = kernel_code(candidate, language, "candidate");
      if (options.model) p.evaluated.bound_ns = options.model->bound(candidate).ns;
      p.future = device.submit(p.evaluated.code, problem, cutoff);
      pending.push_back(std::move(p));
    }
    if (pending.empty()) break;
    Pending done = std::move(pending.front());
    pending.pop_front();
    if ((options.budget || options.stop_requested) && !cancelled) {
      // At the budget or a stop request, drop what has not started running rather than wait for
      // it. A stop request is seen within kStopPoll.
      constexpr auto kStopPoll = std::chrono::milliseconds(20);
      while (done.future.wait_until(std::min(deadline, Clock::now() + kStopPoll)) !=
                 std::future_status::ready &&
             !must_stop()) {
      }
      if (must_stop()) {
        device.cancel_waiting();
        cancelled = true;
      }
    }
    try {
      done.evaluated.evaluation = done.future.get();
    } catch (const std::future_error&) {
      ++stats.abandoned;
      continue;
    }
    done.evaluated.t = elapsed().count();
    ++stats.evaluated;
    if (done.evaluated.evaluation.cut_short) {
      ++stats.cut_short;
      if (done.evaluated.evaluation.check == device::Check::timeout) ++stats.killed;
    }
    on_evaluated(std::move(done.evaluated));
  }
  return stats;
}

}  // namespace sculpt::search
