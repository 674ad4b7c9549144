#include "search/session/session.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <condition_variable>
#include <deque>
#include <list>
#include <mutex>
#include <random>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "search/algorithms/branch_and_bound.h"
#include "search/algorithms/random_search.h"
#include "search/session/descent.h"
#include "search/session/device_defaults.h"
#include "support/atomic_extremum.h"
#include "support/check.h"
#include "support/duration.h"
#include "support/error.h"

namespace sculpt::search {
namespace {

using Clock = std::chrono::steady_clock;

/// Walks in a row that found nothing to submit after which an algorithm that never runs out
/// (random descents) is taken to have: below the cut, nothing is left to find.
constexpr std::int64_t kMaxFruitlessWalks = 100000;

double seconds(std::int64_t ns) { return static_cast<double>(ns) * 1e-9; }

/// Whether a time proves its bound wrong: below it by more than the noise of a measurement
/// (2%, as the model's checks on the GPU allow: bench/gpu/search_summary.py), so that a time a
/// hair under a tight bound does not stop the bound from cutting for the rest of the search.
bool violates(double time_ns, double bound_ns) {
  constexpr double kNoise = 1.02;
  return time_ns * kNoise < bound_ns;
}

/// The seed of searching thread `thread`, after `recalled` evaluations of earlier sessions.
std::uint64_t thread_seed(std::uint64_t seed, int thread, std::int64_t recalled) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(thread), static_cast<std::uint32_t>(recalled),
                    static_cast<std::uint32_t>(static_cast<std::uint64_t>(recalled) >> 32)};
  std::array<std::uint32_t, 2> words{};
  seq.generate(words.begin(), words.end());
  return (std::uint64_t{words[0]} << 32) | words[1];
}

}  // namespace

std::string_view to_string(AlgorithmKind kind) {
  switch (kind) {
    case AlgorithmKind::mcts:
      return "mcts";
    case AlgorithmKind::bb:
      return "bb";
    case AlgorithmKind::random:
      return "random";
  }
  return "?";
}

std::optional<AlgorithmKind> algorithm_from_string(std::string_view name) {
  for (AlgorithmKind k : {AlgorithmKind::mcts, AlgorithmKind::bb, AlgorithmKind::random}) {
    if (to_string(k) == name) return k;
  }
  return std::nullopt;
}

std::string SessionStats::summary() const {
  const double busy_s = propagation_s + model_s + codegen_s;
  const auto share = [&](double s) { return busy_s > 0 ? 100 * s / busy_s : 0.0; };
  return fmt::format(
             "{} on {} thread{}: {:.3g} evaluations/s, {:.3g} rollouts/s, {:.1f}% dead ends, {} "
             "cut by "
             "the bound, {} found again\n"
             "searching threads: {:.0f}% propagation, {:.0f}% model, {:.0f}% code generation ({} "
             "in "
             "all), paused {} while the device measured\n"
             "device: compiling {}, measuring {}, idle {:.1f}% of the time after the fifth "
             "evaluation",
             algorithm, threads, threads == 1 ? "" : "s", evaluations_per_s(), rollouts_per_s(),
             100 * dead_end_rate(), pruned, repeats, share(propagation_s), share(model_s),
             share(codegen_s), support::format_ns(busy_s * 1e9), support::format_ns(paused_s * 1e9),
             support::format_ns(compile_s * 1e9), support::format_ns(measure_s * 1e9),
             100 * device_idle_share) +
         (first_violation
              ? fmt::format(
                    "\nbound: {} candidate{} ran faster than the model's lower bound (the first, "
                    "candidate {}: {} measured, bound {}); the model misjudges this device, so "
                    "the bound cut only what it put over {:.3g} times the best time (`sculpt "
                    "characterize` measures the device again)",
                    bound_violations, bound_violations == 1 ? "" : "s", first_violation->id,
                    support::format_ns(first_violation->time_ns),
                    support::format_ns(first_violation->bound_ns), slack)
              : std::string());
}

std::string SessionStats::to_json() const {
  const nlohmann::ordered_json j = {
      {"algorithm", algorithm},
      {"threads", threads},
      {"evaluated", evaluated},
      {"rollouts", rollouts},
      {"dead_ends", dead_ends},
      {"pruned", pruned},
      {"repeats", repeats},
      {"abandoned", abandoned},
      {"cut_short", cut_short},
      {"killed", killed},
      {"sampled", sampled},
      {"bound_violations", bound_violations},
      {"slack", slack},
      {"first_violation", first_violation
                              ? nlohmann::ordered_json{{"id", first_violation->id},
                                                       {"time_ns", first_violation->time_ns},
                                                       {"bound_ns", first_violation->bound_ns}}
                              : nlohmann::ordered_json()},
      {"exhausted", exhausted},
      {"stopped_by", stopped_by},
      {"wall_s", wall_s},
      {"evaluations_per_s", evaluations_per_s()},
      {"rollouts_per_s", rollouts_per_s()},
      {"dead_end_rate", dead_end_rate()},
      {"propagation_s", propagation_s},
      {"model_s", model_s},
      {"codegen_s", codegen_s},
      {"paused_s", paused_s},
      {"compile_s", compile_s},
      {"measure_s", measure_s},
      {"device_idle_share", device_idle_share}};
  return j.dump();
}

namespace {

/// The order a user named, else the device's.
DecisionOrder decision_order(const spacegen::CandidateBase& root,
                             const std::optional<std::string>& names,
                             const DeviceDefaults& defaults) {
  if (!names) return DecisionOrder::standard(root.table(), defaults.order);
  std::string error;
  std::optional<DecisionOrder> order = DecisionOrder::parse(root.table(), *names, &error);
  if (!order) throw Error(Error::Kind::usage, error);
  return std::move(*order);
}

}  // namespace

Session::Session(const spacegen::CandidateBase& root, CandidateEvaluator& evaluator,
                 const perf_model::Model* model, SessionOptions options)
    : root_(root),
      evaluator_(evaluator),
      options_(std::move(options)),
      order_(decision_order(root, options_.order, defaults_for(evaluator.device_kind()))) {
  SCULPT_CHECK(options_.threads >= 1) << "a search needs a searching thread";
  const DeviceDefaults& defaults = defaults_for(evaluator.device_kind());
  context_ = std::make_unique<SearchContext>(order_, model, evaluator_);
  main_thread_ = std::make_unique<SearchThread>(*context_, thread_seed(options_.seed, 0, 0));
  switch (options_.algorithm) {
    case AlgorithmKind::mcts:
      if (!options_.mcts.opening) options_.mcts.opening = defaults.opening;
      if (!options_.mcts.screen) options_.mcts.screen = defaults.screen;
      algorithm_ = std::make_unique<Mcts>(root_, *main_thread_, options_.mcts, options_.features);
      break;
    case AlgorithmKind::bb:
      algorithm_ = std::make_unique<BranchAndBound>(root_, *main_thread_);
      break;
    case AlgorithmKind::random:
      algorithm_ = std::make_unique<RandomSearch>(root_);
      break;
  }
}

Session::~Session() = default;

bool Session::recall(std::int64_t id, const std::vector<spacegen::Action>& actions,
                     std::optional<double> time_ns, std::string* error) {
  const std::unique_ptr<spacegen::CandidateBase> candidate = root_.clone();
  if (candidate->apply(actions) == spacegen::Status::Conflict) {
    *error = fmt::format("candidate {} does not replay on this space: {}", id,
                         candidate->conflict()->to_string());
    return false;
  }
  if (order_.next(*candidate)) {
    *error =
        fmt::format("candidate {} does not replay on this space: it is not fully specified", id);
    return false;
  }
  algorithm_->recall(*main_thread_, *candidate, time_ns);
  if (time_ns && context_->model != nullptr) {
    const double bound = main_thread_->bound(*candidate);
    if (violates(*time_ns, bound)) note_violation(id, *time_ns, bound);
  }
  std::optional<double>& seen = seen_[candidate->hash()];
  if (time_ns && (!seen || *time_ns < *seen)) seen = time_ns;
  if (time_ns) support::lower_to(context_->cut, *time_ns);
  last_id_ = id;
  ++recalled_;
  return true;
}

/// One run of a session: the evaluations in flight and the counters, shared by the searching
/// threads and the collecting one under one mutex.
class Session::Run {
 public:
  Run(Session& session, const std::function<void(Evaluated&&)>& on_evaluated)
      : s_(session),
        on_evaluated_(on_evaluated),
        start_(Clock::now()),
        queues_(std::max(s_.evaluator_.queues(), 1)) {
    const SessionOptions& o = s_.options_;
    in_flight_ = o.in_flight > 0 ? o.in_flight : 2 * std::max(o.threads, queues_) + 2;
    // A budget past what the clock holds (centuries) is no limit: adding it would overflow.
    deadline_ = o.budget && *o.budget < Clock::time_point::max() - start_
                    ? start_ + std::chrono::duration_cast<Clock::duration>(*o.budget)
                    : Clock::time_point::max();
    if (o.cutoff > 0) {
      const double cut = s_.context_->cut.load();
      cutoff_ = std::make_shared<device::Cutoff>(
          o.cutoff, std::isfinite(cut) ? std::optional<double>(cut) : std::nullopt);
      cutoff_->widen(s_.context_->slack.load());
    }
    first_id_ = s_.last_id_ ? *s_.last_id_ + 1 : 0;
    evals_ = o.evals - s_.recalled_;
    stats_.algorithm = std::string(s_.algorithm_->name());
    stats_.threads = o.threads;
    const SearchClocks& c = s_.context_->clocks;
    clocks_before_ = {seconds(c.propagation_ns), seconds(c.model_ns), seconds(c.codegen_ns),
                      seconds(c.paused_ns)};
    s_.context_->stop = [this] { return must_stop(); };
  }
  ~Run() { s_.context_->stop = nullptr; }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  SessionStats go() {
    const SessionOptions& o = s_.options_;
    const device::DeviceTimes device_before = s_.evaluator_.times();
    idle_from_ = {start_, device_before.measuring_s};
    try {
      if (o.threads == 1) {
        SearchThread& thread = *s_.main_thread_;
        thread.rng().seed(thread_seed(o.seed, 0, s_.recalled_));
        // With several device queues (a distributed search), evaluations end out of order and
        // the search is not deterministic anyway: collect them as they end, as with threads.
        for (;;) {
          while (produce(thread)) {
          }
          if (!(queues_ > 1 ? collect_first_ready() : collect_oldest())) break;
        }
        finish_workers();
      } else {
        for (int i = 0; i < o.threads; ++i) {
          try {
            workers_.emplace_back([this, i] { search_loop(i); });
          } catch (const std::system_error& e) {
            throw Error(Error::Kind::environment,
                        fmt::format("cannot start searching thread {} of {}: {}", i + 1, o.threads,
                                    e.code().message()));
          }
        }
        while (collect_first_ready()) {
        }
        finish_workers();
      }
    } catch (...) {
      s_.evaluator_.cancel_waiting();
      finish_workers();
      throw;
    }
    const auto end = Clock::now();
    const device::DeviceTimes device_after = s_.evaluator_.times();
    const SearchClocks& c = s_.context_->clocks;
    stats_.wall_s = std::chrono::duration<double>(end - start_).count();
    stats_.exhausted = exhausted_;
    stats_.stopped_by = s_.options_.stop_requested && s_.options_.stop_requested() ? "stop"
                        : exhausted_                                               ? "exhausted"
                        : end >= deadline_ && stats_.evaluated < evals_            ? "budget"
                                                                                   : "evaluations";
    stats_.bound_violations = s_.violations_;
    stats_.first_violation = s_.first_violation_;
    stats_.slack = s_.context_->slack.load();
    stats_.propagation_s = seconds(c.propagation_ns) - clocks_before_[0];
    stats_.model_s = seconds(c.model_ns) - clocks_before_[1];
    stats_.codegen_s = seconds(c.codegen_ns) - clocks_before_[2];
    stats_.paused_s = seconds(c.paused_ns) - clocks_before_[3];
    stats_.compile_s = device_after.compiling_s - device_before.compiling_s;
    stats_.measure_s = device_after.measuring_s - device_before.measuring_s;
    const double span = std::chrono::duration<double>(end - idle_from_.first).count();
    stats_.device_idle_share =
        span > 0 ? std::clamp(1 - (device_after.measuring_s - idle_from_.second) / (span * queues_),
                              0.0, 1.0)
                 : 0;
    return stats_;
  }

 private:
  struct Pending {
    Evaluated evaluated;
    Proposal proposal;
    /// A start's candidate (SessionOptions::starts), which the algorithm did not propose.
    std::unique_ptr<spacegen::CandidateBase> start;
    std::uint64_t hash = 0;
    std::future<device::Evaluation> future;
  };
  using PendingList = std::list<Pending>;

  bool must_stop() const {
    return Clock::now() >= deadline_ ||
           (s_.options_.stop_requested && s_.options_.stop_requested());
  }
  /// Under the lock: whether a searching thread should look for another candidate.
  bool may_produce() const {
    return !finished_ && !exhausted_ && !cancelled_ && submitted_ + producing_ < evals_ &&
           static_cast<int>(pending_.size()) + producing_ < in_flight_ && !must_stop();
  }
  /// Under the lock: whether nothing more will be submitted.
  bool done_submitting() const {
    return producing_ == 0 && (exhausted_ || cancelled_ || submitted_ >= evals_ || must_stop());
  }

  /// Finds and submits one candidate, or walks once without finding one; false when no walk
  /// is wanted now (evaluations enough in flight, the budget, the space exhausted).
  bool produce(SearchThread& thread) {
    std::optional<std::size_t> start;
    {
      std::lock_guard lock(mutex_);
      if (!may_produce()) return false;
      ++producing_;
      if (next_start_ < s_.options_.starts.size()) start = next_start_++;
    }
    // Whatever happens below, the walk ends under the lock, counted.
    bool submitted = false;
    Proposal p;
    try {
      p = start ? propose_start(thread, s_.options_.starts[*start])
                : s_.algorithm_->propose(thread);
      if (p.kind == Proposal::Kind::candidate) submitted = submit(thread, p, start.has_value());
    } catch (const WalkStopped&) {
      // The budget ran out or a stop was requested during the walk: no more walks.
      std::lock_guard lock(mutex_);
      --producing_;
      changed_.notify_all();
      return false;
    } catch (...) {
      std::lock_guard lock(mutex_);
      --producing_;
      changed_.notify_all();
      throw;
    }
    std::lock_guard lock(mutex_);
    --producing_;
    if (p.kind != Proposal::Kind::exhausted) ++stats_.rollouts;
    stats_.rollouts += p.set_aside.total();
    stats_.dead_ends += p.set_aside.dead_ends;
    stats_.pruned += p.set_aside.pruned;
    switch (p.kind) {
      case Proposal::Kind::exhausted:
        exhausted_ = true;
        break;
      case Proposal::Kind::dead_end:
        ++stats_.dead_ends;
        break;
      case Proposal::Kind::pruned:
        ++stats_.pruned;
        break;
      case Proposal::Kind::candidate:
        break;
    }
    fruitless_ = submitted ? 0 : fruitless_ + 1;
    if (fruitless_ >= kMaxFruitlessWalks) exhausted_ = true;
    changed_.notify_all();
    return true;
  }

  /// A start's actions replayed on the root as far as they apply, completed by a rollout.
  Proposal propose_start(SearchThread& thread, std::span<const spacegen::Action> actions) {
    std::unique_ptr<spacegen::CandidateBase> replayed =
        replay_what_applies(s_.root_, actions).candidate;
    const double bound_ns = thread.bound(*replayed);
    return rollout_proposal(thread, std::move(replayed), bound_ns);
  }

  /// Submits a proposed candidate unless it was evaluated before (the algorithm then hears its
  /// time again, unless it is a start: it knows it already) or its bound reached the cut
  /// meanwhile. A start's candidate is kept for the algorithm to recall once measured.
  bool submit(SearchThread& thread, Proposal& p, bool is_start) {
    const std::uint64_t hash = p.candidate->hash();
    {
      std::unique_lock lock(mutex_);
      const auto [it, inserted] = s_.seen_.try_emplace(hash);
      if (!inserted) {
        ++stats_.repeats;
        const std::optional<double> known = it->second;
        lock.unlock();
        if (!is_start) s_.algorithm_->observe(p, known);
        return false;
      }
    }
    std::vector<spacegen::Action> actions = thread.actions_to(*p.candidate, s_.root_);
    Submission submission;
    {
      const auto begin = Clock::now();
      submission = s_.evaluator_.prepare(*p.candidate, p.bound_ns);
      s_.context_->clocks.codegen_ns.fetch_add(
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - begin).count());
    }
    std::lock_guard lock(mutex_);
    if (!(p.bound_ns < thread.cut()) || cancelled_) {
      s_.seen_.erase(hash);
      ++stats_.pruned;
      return false;
    }
    Pending pending;
    ++submitted_;
    pending.evaluated.actions = std::move(actions);
    if (s_.context_->model != nullptr) pending.evaluated.bound_ns = p.bound_ns;
    pending.hash = hash;
    pending.future = s_.evaluator_.submit(submission, cutoff_);
    pending.evaluated.code = std::move(submission.code);
    if (is_start) pending.start = std::move(p.candidate);
    pending.evaluated.start = is_start;
    p.candidate.reset();
    pending.proposal = std::move(p);
    pending_.push_back(std::move(pending));
    if (s_.options_.threads > 1 || queues_ > 1) watch(std::prev(pending_.end()));
    return true;
  }

  /// Under the lock: has a watcher wait for an evaluation's future and hand it to the
  /// collecting thread once ready (ready_). std::future has no wait for any of several, and
  /// the evaluators (device::Evaluator's pipeline, the MPI one) hand back plain futures with no
  /// hook on completion, so a pool of watchers, as many as evaluations in flight at most, each
  /// blocked on one future, turns completions into notifications: no core spins, and nothing
  /// waits for a polling slice. With one thread and one device queue, the oldest is collected first
  /// and needs none.
  void watch(PendingList::iterator it) {
    to_watch_.push_back(it);
    if (static_cast<int>(to_watch_.size()) > idle_watchers_) {
      watchers_.emplace_back([this] { watch_loop(); });
    } else {
      watch_.notify_one();
    }
  }

  void watch_loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++idle_watchers_;
      watch_.wait(lock, [this] { return stop_watching_ || !to_watch_.empty(); });
      --idle_watchers_;
      if (stop_watching_) return;
      const PendingList::iterator it = to_watch_.front();
      to_watch_.pop_front();
      lock.unlock();
      it->future.wait();
      lock.lock();
      ready_.push_back(it);
      changed_.notify_all();
    }
  }

  void search_loop(int index) {
    SearchThread thread(*s_.context_, thread_seed(s_.options_.seed, index, s_.recalled_));
    try {
      for (;;) {
        if (produce(thread)) continue;
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return finished_ || may_produce(); });
        if (finished_) return;
      }
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      finished_ = true;
      changed_.notify_all();
    }
  }

  void finish_workers() {
    {
      std::lock_guard lock(mutex_);
      finished_ = true;
    }
    changed_.notify_all();
    for (std::thread& w : workers_) w.join();
    workers_.clear();
    // After the searching threads: nothing is submitted any more. A watcher waits for the
    // evaluation it watches (after cancel_waiting, the one being measured at most).
    {
      std::lock_guard lock(mutex_);
      stop_watching_ = true;
    }
    watch_.notify_all();
    for (std::thread& w : watchers_) w.join();
    watchers_.clear();
  }

  /// One searching thread and one device queue: waits for the oldest evaluation and hands it on,
  /// so that
  /// evaluations are collected in the order they were submitted and the searching happens at
  /// fixed points; false once nothing is in flight.
  bool collect_oldest() {
    Pending done;
    {
      std::lock_guard lock(mutex_);
      if (pending_.empty()) return false;
      done = std::move(pending_.front());
      pending_.pop_front();
    }
    changed_.notify_all();
    if ((s_.options_.budget || s_.options_.stop_requested) && !cancelled_) {
      // At the budget or a stop request, drop what has not started running rather than wait for
      // it. A stop request is seen within kStopPoll.
      constexpr auto kStopPoll = std::chrono::milliseconds(20);
      while (done.future.wait_until(std::min(deadline_, Clock::now() + kStopPoll)) !=
                 std::future_status::ready &&
             !must_stop()) {
      }
      if (must_stop()) {
        s_.evaluator_.cancel_waiting();
        std::lock_guard lock(mutex_);
        cancelled_ = true;
      }
    }
    hand_on(std::move(done));
    return true;
  }

  /// Several searching threads, or device queues: waits for whichever evaluation in flight ends
  /// first (the
  /// watchers queue them in ready_ as they end) and hands it on, so that a slow compilation
  /// holds only its own slot in flight; false once nothing is in flight and nothing more will
  /// be submitted.
  bool collect_first_ready() {
    Pending done;
    {
      std::unique_lock lock(mutex_);
      for (;;) {
        if (error_) std::rethrow_exception(error_);
        if (!ready_.empty()) break;
        // With one searching thread, this one, nothing is submitted while it waits.
        if (pending_.empty() && (workers_.empty() || done_submitting())) return false;
        if (!cancelled_ && must_stop()) {
          // At the budget or a stop request, drop what has not started running rather than
          // wait for it; set first, so that nothing is submitted after the cancel.
          cancelled_ = true;
          lock.unlock();
          s_.evaluator_.cancel_waiting();
          lock.lock();
          continue;
        }
        // Woken by watchers, submissions and the end of walks; a stop request is seen within
        // kPoll, the budget at the deadline (once cancelled, past: no longer a wake-up time).
        constexpr auto kPoll = std::chrono::milliseconds(20);
        const Clock::time_point poll = Clock::now() + kPoll;
        changed_.wait_until(lock, cancelled_ ? poll : std::min(deadline_, poll));
      }
      const PendingList::iterator it = ready_.front();
      ready_.pop_front();
      done = std::move(*it);
      pending_.erase(it);
    }
    changed_.notify_all();
    hand_on(std::move(done));
    return true;
  }

  /// Takes a collected evaluation's result (its future is ready, or abandoned: then it throws)
  /// and, unless abandoned, numbers it (ids follow the order of collection, so that the log's
  /// are increasing) and hands it to the algorithm and on_evaluated.
  void hand_on(Pending&& done) {
    try {
      done.evaluated.evaluation = done.future.get();
    } catch (const std::future_error&) {
      std::lock_guard lock(mutex_);
      ++stats_.abandoned;
      s_.seen_.erase(done.hash);
      return;
    } catch (const device::PastTheCutoff&) {
      // Times measured while it waited put the device's cutoff below its bound: cut by it, and
      // another candidate takes its place in the budget.
      {
        std::lock_guard lock(mutex_);
        ++stats_.pruned;
        --submitted_;
        s_.seen_.erase(done.hash);
      }
      changed_.notify_all();
      return;
    }
    const device::Evaluation& e = done.evaluated.evaluation;
    done.evaluated.t = std::chrono::duration<double>(Clock::now() - start_).count();
    const std::optional<double> time =
        e.check == device::Check::ok ? e.time_ns : std::optional<double>();
    {
      std::lock_guard lock(mutex_);
      done.evaluated.id = first_id_ + stats_.evaluated;
      ++stats_.evaluated;
      if (e.cut_short) {
        ++stats_.cut_short;
        if (e.check == device::Check::timeout) ++stats_.killed;
        if (e.check == device::Check::timeout && e.estimate_ns) ++stats_.sampled;
      }
      s_.seen_[done.hash] = time;
      if (time) support::lower_to(s_.context_->cut, *time);
      if (time && done.evaluated.bound_ns && violates(*time, *done.evaluated.bound_ns)) {
        s_.note_violation(done.evaluated.id, *time, *done.evaluated.bound_ns);
        if (cutoff_) cutoff_->widen(s_.context_->slack.load());
      }
      if (stats_.evaluated == 5) idle_from_ = {Clock::now(), s_.evaluator_.times().measuring_s};
    }
    if (done.start) {
      // The collecting thread's SearchThread: with one searching thread it searches between
      // collections, with several none of them uses it. A recall after the budget is spent
      // still finishes: the start was measured and the algorithm must hear of it.
      const SearchThread::Unstoppable unstoppable(*s_.main_thread_);
      s_.algorithm_->recall(*s_.main_thread_, *done.start, time);
    } else {
      s_.algorithm_->observe(done.proposal, time);
    }
    on_evaluated_(std::move(done.evaluated));
  }

  Session& s_;
  const std::function<void(Evaluated&&)>& on_evaluated_;
  Clock::time_point start_;
  Clock::time_point deadline_;
  int queues_ = 1;
  int in_flight_ = 4;
  std::shared_ptr<device::Cutoff> cutoff_;
  std::int64_t first_id_ = 0;
  /// Evaluations this run submits at most.
  std::int64_t evals_ = 0;
  std::array<double, 4> clocks_before_{};
  /// The wall time and the device's measuring time when its idle share starts counting.
  std::pair<Clock::time_point, double> idle_from_;

  std::mutex mutex_;
  std::condition_variable changed_;
  /// Submitted and not collected, in the order submitted.
  PendingList pending_;
  std::vector<std::thread> workers_;
  /// With several searching threads: evaluations no watcher waits for yet, and those whose
  /// future is ready, in the order they became ready.
  std::deque<PendingList::iterator> to_watch_;
  std::deque<PendingList::iterator> ready_;
  std::condition_variable watch_;
  std::vector<std::thread> watchers_;
  int idle_watchers_ = 0;
  bool stop_watching_ = false;
  std::int64_t submitted_ = 0;
  /// The next of SessionOptions::starts to propose.
  std::size_t next_start_ = 0;
  int producing_ = 0;
  std::int64_t fruitless_ = 0;
  bool exhausted_ = false;
  bool cancelled_ = false;
  bool finished_ = false;
  std::exception_ptr error_;
  SessionStats stats_;
};

}  // namespace sculpt::search

namespace sculpt::search {

void Session::note_violation(std::int64_t id, double time_ns, double bound_ns) {
  ++violations_;
  if (!first_violation_) first_violation_ = SessionStats::Violation{id, time_ns, bound_ns};
  const double slack = kMisjudgedMargin * bound_ns / time_ns;
  support::raise_to(context_->slack, slack);
}

SessionStats Session::run(const std::function<void(Evaluated&&)>& on_evaluated) {
  return Run(*this, on_evaluated).go();
}

}  // namespace sculpt::search
