// The search session (search/session/session.h) and its algorithms, on stand-in devices:
// - its budget and stop request (the measurement under way finishes, the waiting ones are
//   abandoned, ids stay contiguous) and its cutoff (each candidate timed against the best time
//   measured before it, a resumed search's included);
// - on matmul with the real model and a device whose times are a known function of the
//   candidate: one thread and a seed give the same log twice, no candidate is submitted with a
//   bound at or above the best time collected before it, two threads keep a 50 ms device busy,
//   and, collecting evaluations as they end, keep it busy while one candidate compiles for long,
//   a resumed search rebuilds its tree and never measures a logged candidate again, an evaluator
//   of several device queues gets two candidates in flight per queue, a search started from
//   other searches' best candidates (of the same or other sizes) evaluates them first and
//   goes on from them;
// - on tiny test spaces enumerated in full: MCTS and branch-and-bound evaluate every candidate
//   exactly once, then say the space is exhausted.
#include "search/session/session.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "device/pipeline.h"
#include "generated/space_property/space.h"
#include "perf_model/description.h"
#include "search/gpu/code_features.h"
#include "search/gpu/device_evaluator.h"
#include "search/session/descent.h"
#include "search/session/problem.h"
#include "search/session/stand_in_device.h"
#include "support/error.h"
#include "tests/spacegen/space_fixture.h"
#include "zoo/zoo.h"

namespace sculpt::search {
namespace {

/// What MCTS learns its model of: the code a candidate of the GPU space becomes.
const CodeFeatures kCodeFeatures;

using namespace std::chrono_literals;

using CutoffValue = std::optional<std::chrono::nanoseconds>;

// A device that measures each candidate with `measure(cutoff)`, `cutoff` being the one the
// candidate was submitted with: the shared pipeline, without a compiler or a run.
class ScriptedDevice final : public device::Evaluator {
 public:
  explicit ScriptedDevice(std::function<device::Evaluation(CutoffValue)> measure)
      : pipeline_(
            1,
            [](const device::KernelCode&, std::stop_token) -> device::Pipeline<int>::CompileResult {
              return 0;
            },
            [measure = std::move(measure)](
                const device::KernelCode&, const std::shared_ptr<const device::Problem>&, int&,
                const device::CutoffSnapshot& snapshot) { return measure(snapshot.cutoff); }) {}

  device::Kind kind() const override { return device::Kind::stand_in; }
  void cancel_waiting() override { pipeline_.cancel_waiting(); }
  device::DeviceTimes times() const override { return pipeline_.times(); }

 private:
  std::future<device::Evaluation> queue(device::KernelCode code,
                                        std::shared_ptr<const device::Problem> problem,
                                        std::shared_ptr<device::Cutoff> cutoff,
                                        double bound_ns) override {
    return pipeline_.submit(std::move(code), std::move(problem), std::move(cutoff), bound_ns);
  }

  device::Pipeline<int> pipeline_;
};

// A device whose every measurement takes `duration` and gives 1 ms.
std::unique_ptr<ScriptedDevice> device_taking(std::chrono::milliseconds duration) {
  return std::make_unique<ScriptedDevice>([duration](CutoffValue) {
    std::this_thread::sleep_for(duration);
    device::Evaluation e;
    e.time_ns = 1e6;
    return e;
  });
}

/// A zoo kernel's root, model and problem on sm_90.
struct Problem {
  Problem(const std::string& name, const std::string& size) {
    const zoo::ZooLookup lookup = zoo::lookup_kernel(name, size);
    EXPECT_TRUE(lookup.ok()) << lookup.error;
    kernel.emplace(lookup.info->build(lookup.sizes));
    root = gpu_space::make_root(*kernel, perf_model::Description::named("sm_90").limits);
    model = std::make_unique<perf_model::Model>(*kernel, perf_model::Description::named("sm_90"));
    problem = make_problem(*lookup.info, lookup.sizes, *kernel, 1);
  }
  std::optional<backbone::Kernel> kernel;
  std::unique_ptr<gpu_space::Candidate> root;
  std::unique_ptr<perf_model::Model> model;
  std::shared_ptr<const device::Problem> problem;
};

/// What a log line says of an evaluation, timestamp aside.
struct Line {
  std::int64_t id;
  std::vector<spacegen::Action> actions;
  std::optional<double> bound_ns;
  std::optional<double> time_ns;
  device::Check check;
  bool cut_short;
  friend bool operator==(const Line&, const Line&) = default;
};

struct Outcome {
  std::vector<Line> lines;
  SessionStats stats;
};

Outcome search(const spacegen::CandidateBase& root, CandidateEvaluator& device,
               const perf_model::Model* model, const SessionOptions& options,
               Session* resumed = nullptr) {
  Outcome out;
  std::optional<Session> own;
  Session& session = resumed != nullptr ? *resumed : own.emplace(root, device, model, options);
  out.stats = session.run([&](Evaluated&& e) {
    out.lines.push_back({e.id, e.actions, e.bound_ns, e.evaluation.time_ns, e.evaluation.check,
                         e.evaluation.cut_short});
  });
  return out;
}

constexpr AlgorithmKind kAlgorithms[] = {AlgorithmKind::mcts, AlgorithmKind::bb,
                                         AlgorithmKind::random};

class SessionBudget : public testing::Test {
 protected:
  SessionBudget() : axpy_("axpy", "4096") {}
  SessionOptions random_options() const {
    SessionOptions o;
    o.features = &kCodeFeatures;
    o.algorithm = AlgorithmKind::random;
    return o;
  }
  Problem axpy_;
};

TEST_F(SessionBudget, AtTheBudgetFinishesTheMeasurementUnderWayAndAbandonsTheRest) {
  auto device = device_taking(400ms);
  DeviceEvaluator evaluator(*device, axpy_.problem);
  SessionOptions options = random_options();
  options.evals = 1000;
  options.in_flight = 4;
  options.budget = 1s;
  const auto start = std::chrono::steady_clock::now();
  const Outcome out = search(*axpy_.root, evaluator, nullptr, options);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;

  // Measurements end at 0.4, 0.8 and 1.2 s: the third was under way at the budget. Waiting for
  // the three submitted behind it would have taken until 2.4 s.
  EXPECT_LT(took.count(), 2.0);
  EXPECT_GE(out.stats.evaluated, 2);
  EXPECT_EQ(out.stats.abandoned, 3);
  ASSERT_EQ(out.lines.size(), static_cast<std::size_t>(out.stats.evaluated));
  for (std::size_t i = 0; i < out.lines.size(); ++i) EXPECT_EQ(out.lines[i].id, std::int64_t(i));
}

TEST_F(SessionBudget, ABudgetOfCenturiesIsNoLimit) {
  auto device = device_taking(0ms);
  DeviceEvaluator evaluator(*device, axpy_.problem);
  SessionOptions options = random_options();
  options.evals = 3;
  options.budget = std::chrono::duration<double>(1e12);  // past the clock's range in nanoseconds
  const Outcome out = search(*axpy_.root, evaluator, nullptr, options);
  EXPECT_EQ(out.stats.evaluated, 3);
}

TEST_F(SessionBudget, AStopRequestEndsItAsTheBudgetWould) {
  // The stop comes with the second evaluation (at 0.4 s).
  auto device = device_taking(200ms);
  DeviceEvaluator evaluator(*device, axpy_.problem);
  SessionOptions options = random_options();
  options.evals = 1000;
  options.in_flight = 4;
  std::atomic<bool> stop{false};
  options.stop_requested = [&stop] { return stop.load(); };
  std::vector<std::int64_t> ids;
  const auto start = std::chrono::steady_clock::now();
  Session session(*axpy_.root, evaluator, nullptr, options);
  const SessionStats stats = session.run([&](Evaluated&& e) {
    ids.push_back(e.id);
    if (ids.size() == 2) stop = true;
  });
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;

  // Nothing is submitted after the stop (4 were in flight, then a fifth after the first), the
  // third finishes when its measurement had started, and the others are abandoned.
  EXPECT_LT(took.count(), 1.0);
  EXPECT_GE(stats.evaluated, 2);
  EXPECT_LE(stats.evaluated, 3);
  EXPECT_EQ(stats.evaluated + stats.abandoned, 5);
  ASSERT_EQ(ids.size(), static_cast<std::size_t>(stats.evaluated));
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], static_cast<std::int64_t>(i));
}

// Measures the i-th candidate at times[i] ns, cut short when that is over its cutoff and a
// timeout past 10 cutoffs, and records the cutoffs (the measuring thread writes them; read them
// once the search returned).
std::unique_ptr<ScriptedDevice> scripted_device(std::vector<double> times,
                                                std::vector<CutoffValue>& cutoffs) {
  return std::make_unique<ScriptedDevice>([times = std::move(times), &cutoffs](CutoffValue cutoff) {
    cutoffs.push_back(cutoff);
    const double time = times.at(cutoffs.size() - 1);
    device::Evaluation e;
    e.cut_short = cutoff && time > static_cast<double>(cutoff->count());
    if (cutoff && time > 10.0 * static_cast<double>(cutoff->count())) {
      e.check = device::Check::timeout;
    } else {
      e.time_ns = time;
    }
    return e;
  });
}

TEST_F(SessionBudget, EachCandidateIsCutAtAMultipleOfTheBestTimeMeasuredBeforeIt) {
  using std::chrono::nanoseconds;

  // Runs a search of 5 candidates that take 5, 30, 2, 9 and 100 us, after `recalled` logged
  // ones (a resumed search): the cutoffs they were timed with.
  std::vector<CutoffValue> cutoffs;
  auto run = [&](const SessionOptions& options, std::optional<double> recalled_ns) {
    cutoffs.clear();
    auto device = scripted_device({5000, 30000, 2000, 9000, 100000}, cutoffs);
    DeviceEvaluator evaluator(*device, axpy_.problem);
    Session session(*axpy_.root, evaluator, nullptr, options);
    if (recalled_ns) {
      std::mt19937_64 rng(7);
      const Descent logged = random_descent(*axpy_.root, rng, &session.order());
      std::string error;
      EXPECT_TRUE(session.recall(0, logged.actions, recalled_ns, &error)) << error;
    }
    return search(*axpy_.root, evaluator, nullptr, options, &session).stats;
  };
  SessionOptions options = random_options();
  options.evals = 5;
  options.in_flight = 5;  // submitted together, each cut against the times measured before it
  options.cutoff = 4;
  const SessionStats stats = run(options, std::nullopt);
  EXPECT_EQ(cutoffs, (std::vector<CutoffValue>{std::nullopt, nanoseconds(20000), nanoseconds(20000),
                                               nanoseconds(8000), nanoseconds(8000)}));
  EXPECT_EQ(stats.cut_short, 3);
  EXPECT_EQ(stats.killed, 1);
  // A resumed search starts from the best time of its log; 0 turns the cutoff off.
  options.evals = 6;  // in all: the recalled one and five more
  run(options, 1000);
  EXPECT_EQ(cutoffs.front(), nanoseconds(4000));
  options.cutoff = 0;
  EXPECT_EQ(run(options, 1000).cut_short, 0);
  EXPECT_EQ(cutoffs, std::vector<CutoffValue>(5));
}

// Searches of matmul with the model's bounds on a device whose times are the bound times a
// penalty drawn from the candidate's hash.
class SessionOnMatmul : public testing::TestWithParam<AlgorithmKind> {
 protected:
  SessionOnMatmul() : matmul_("matmul", "256x256x32") {}
  /// Random descents rarely find a leaf below the cut once a few times are known: fewer
  /// evaluations keep their tests short.
  int evals() const { return GetParam() == AlgorithmKind::random ? 12 : 40; }
  Problem matmul_;
};

TEST_P(SessionOnMatmul, OneThreadAndASeedGiveTheSameLogTwice) {
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.algorithm = GetParam();
  options.evals = evals();
  options.seed = 11;
  StandInDevice first(0us), second(0us);
  const Outcome a = search(*matmul_.root, first, matmul_.model.get(), options);
  const Outcome b = search(*matmul_.root, second, matmul_.model.get(), options);
  EXPECT_EQ(a.lines.size(), static_cast<std::size_t>(evals()));
  EXPECT_TRUE(a.lines == b.lines);
  if (GetParam() != AlgorithmKind::bb) {
    options.seed = 12;
    StandInDevice third(0us);
    EXPECT_FALSE(a.lines == search(*matmul_.root, third, matmul_.model.get(), options).lines)
        << "another seed, another search";
  }
}

TEST_P(SessionOnMatmul, NoCandidateIsSubmittedWithABoundAtOrAboveTheCut) {
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.algorithm = GetParam();
  options.evals = 2 * evals();
  options.in_flight = 4;
  StandInDevice device(0us);
  const Outcome out = search(*matmul_.root, device, matmul_.model.get(), options);
  ASSERT_EQ(out.lines.size(), static_cast<std::size_t>(2 * evals()));
  // With one thread, candidate k is submitted once candidate k - in_flight was collected: the
  // cut it met is at most the best time of those.
  double cut = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < out.lines.size(); ++k) {
    if (k >= 4 && out.lines[k - 4].time_ns) cut = std::min(cut, *out.lines[k - 4].time_ns);
    ASSERT_TRUE(out.lines[k].bound_ns);
    EXPECT_LT(*out.lines[k].bound_ns, cut) << "candidate " << k;
    EXPECT_LE(*out.lines[k].bound_ns, *out.lines[k].time_ns) << "the stand-in's times";
  }
  EXPECT_GE(out.stats.rollouts, out.stats.evaluated);
}

/// The stand-in (penalties in [1, 1 + spread)), except that from the `from`-th candidate
/// submitted on, each takes its time divided by `factor`: below its bound for a factor above the
/// penalty, as on a device the model misjudges.
class FasterThanTheBound final : public CandidateEvaluator {
 public:
  explicit FasterThanTheBound(int from, double factor = 100, double spread = 3)
      : from_(from), factor_(factor), device_(0us, spread) {}
  device::Kind device_kind() const override { return device_.device_kind(); }
  Submission prepare(const spacegen::CandidateBase& candidate, double bound_ns) const override {
    return device_.prepare(candidate, bound_ns);
  }
  std::future<device::Evaluation> submit(const Submission& submission,
                                         std::shared_ptr<device::Cutoff> cutoff) override {
    Submission faster = submission;
    if (submitted_++ >= from_) faster.bound_ns /= factor_;
    return device_.submit(faster, std::move(cutoff));
  }
  void cancel_waiting() override { device_.cancel_waiting(); }
  void wait_while_measuring() const override {}
  device::DeviceTimes times() const override { return device_.times(); }

 private:
  int from_;
  double factor_;
  std::atomic<int> submitted_{0};
  StandInDevice device_;
};

// A candidate measured faster than its bound proves the model wrong for the device: the search
// counts it, names the first, and from then on cuts only past the best time times 4 times the
// worst bound / time seen, so that candidates the wrong bound had cut (subtrees included) are
// searched again rather than the space found exhausted, and those it judges far slower still
// are not.
TEST_P(SessionOnMatmul, ACandidateFasterThanItsBoundWidensTheCut) {
  const int from = evals() / 2;
  FasterThanTheBound device(from);
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.algorithm = GetParam();
  options.evals = evals();
  options.in_flight = 4;
  const Outcome out = search(*matmul_.root, device, matmul_.model.get(), options);
  ASSERT_EQ(out.lines.size(), static_cast<std::size_t>(evals())) << out.stats.summary();
  EXPECT_EQ(out.stats.stopped_by, "evaluations");
  EXPECT_EQ(out.stats.bound_violations, evals() - from);
  ASSERT_TRUE(out.stats.first_violation);
  EXPECT_EQ(out.stats.first_violation->id, from);
  EXPECT_EQ(out.stats.first_violation->time_ns, *out.lines[from].time_ns);
  EXPECT_EQ(out.stats.first_violation->bound_ns, *out.lines[from].bound_ns);
  EXPECT_NE(out.stats.summary().find(fmt::format("ran faster than the model's lower bound (the "
                                                 "first, candidate {}:",
                                                 from)),
            std::string::npos)
      << out.stats.summary();
  double worst = 0;
  for (std::size_t k = from; k < out.lines.size(); ++k) {
    worst = std::max(worst, *out.lines[k].bound_ns / *out.lines[k].time_ns);
  }
  EXPECT_DOUBLE_EQ(out.stats.slack, kMisjudgedMargin * worst);
  EXPECT_NE(out.stats.summary().find("times the best time"), std::string::npos)
      << out.stats.summary();
  // Once the violation was collected, candidates whose bound is far above the best time are
  // measured, but none past the widened cut (the best of the first ones, collected before them).
  double best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < from; ++k) best = std::min(best, *out.lines[k].time_ns);
  const std::size_t after = static_cast<std::size_t>(from) + 4 + 1;
  ASSERT_LT(after, out.lines.size());
  for (std::size_t k = after; k < out.lines.size(); ++k) {
    EXPECT_GT(*out.lines[k].bound_ns, *out.lines[from].time_ns) << "candidate " << k;
    EXPECT_LT(*out.lines[k].bound_ns, best * out.stats.slack) << "candidate " << k;
  }

  // A resumed search that recalls a violation widens its cut alike.
  options.evals = 4;
  Session resumed(*matmul_.root, device, matmul_.model.get(), options);
  std::string error;
  ASSERT_TRUE(resumed.recall(0, out.lines[from].actions, *out.lines[from].time_ns, &error))
      << error;
  const Outcome more = search(*matmul_.root, device, matmul_.model.get(), options, &resumed);
  EXPECT_EQ(more.lines.size(), 3u) << more.stats.summary();
  EXPECT_EQ(more.stats.bound_violations, 4) << "the recalled one and three more";
  EXPECT_GE(more.stats.slack,
            kMisjudgedMargin * *out.lines[from].bound_ns / *out.lines[from].time_ns);
}

// Times a hair under their bound are a measurement's noise, not a wrong model: the bound cuts on.
TEST_P(SessionOnMatmul, ATimeWithinTwoPercentUnderItsBoundIsNoViolation) {
  FasterThanTheBound device(0, 1.015, /*spread=*/0);
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.algorithm = GetParam();
  // As many as are submitted before the first time is known: past that, times equal to their
  // bounds leave little below the cut.
  options.evals = 3;
  const Outcome out = search(*matmul_.root, device, matmul_.model.get(), options);
  ASSERT_EQ(out.lines.size(), 3u);
  EXPECT_EQ(out.stats.bound_violations, 0);
  EXPECT_FALSE(out.stats.first_violation);
  for (const Line& l : out.lines) EXPECT_LT(*l.time_ns, *l.bound_ns) << "candidate " << l.id;
}

INSTANTIATE_TEST_SUITE_P(Algorithms, SessionOnMatmul, testing::ValuesIn(kAlgorithms),
                         [](const auto& param) { return std::string(to_string(param.param)); });

// On axpy, whose walks take about a millisecond: on a machine loaded by other tests (CI runs two
// at a time on two cores), matmul's (about 10 ms each, two or three per candidate once the cut
// prunes) left a 50 ms device idle 7% of the time; idle cores keep it busy either way.
TEST(Session, TwoThreadsKeepA50MillisecondDeviceBusy) {
  Problem axpy("axpy", "1048576");
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.threads = 2;
  options.evals = 25;
  StandInDevice device(50ms);
  const Outcome out = search(*axpy.root, device, axpy.model.get(), options);
  EXPECT_EQ(out.stats.evaluated, 25);
  EXPECT_LE(out.stats.device_idle_share, 0.05) << out.stats.summary();
  std::set<std::int64_t> ids;
  for (const Line& l : out.lines) ids.insert(l.id);
  EXPECT_EQ(ids.size(), 25u);
  EXPECT_EQ(*ids.rbegin(), 24) << "ids are contiguous";
}

// A device whose candidates compile in 10 ms, side by side, and measure in 20 ms, except the
// `slow`-th submitted (from 0), whose compilation takes `slow_compile` (on a GPU, a huge unrolled
// kernel takes 10-20 s to JIT-compile): each collected candidate is named by its hash.
struct SlowCompilation {
  SlowCompilation(std::int64_t slow, std::chrono::milliseconds slow_compile)
      : device(20ms, 3, [this, slow, slow_compile](std::uint64_t hash, std::int64_t index) {
          if (index != slow) return std::chrono::microseconds(10ms);
          slow_hash = hash;
          return std::chrono::microseconds(slow_compile);
        }) {}
  std::atomic<std::uint64_t> slow_hash{0};
  StandInDevice device;
};

std::uint64_t hash_of(const spacegen::CandidateBase& root,
                      const std::vector<spacegen::Action>& actions) {
  const std::unique_ptr<spacegen::CandidateBase> candidate = root.clone();
  EXPECT_NE(candidate->apply(actions), spacegen::Status::Conflict);
  return candidate->hash();
}

// With several threads, evaluations are collected as they end: a slow compilation holds only its
// own place in flight. Collected in the order they were submitted, the evaluations behind it
// ended but waited, nothing new was submitted, and the device stood idle until it compiled (on an
// H100, 95% of a two-minute search): here about 30% of the time after the fifth evaluation.
TEST(Session, ASlowCompilationHoldsOnlyItsOwnPlaceInFlight) {
  Problem axpy("axpy", "1048576");
  // The sixth submitted, in flight with the first five (2 threads: 6 in flight): it compiles
  // from before the fifth is collected, when the device's idle time starts counting, for as long
  // as 30 others take to measure.
  constexpr std::int64_t kSlow = 5;
  SlowCompilation device(kSlow, 600ms);
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.threads = 2;
  options.evals = 50;
  std::vector<std::int64_t> ids;
  std::optional<std::size_t> slow_collected;
  Session session(*axpy.root, device.device, axpy.model.get(), options);
  const SessionStats stats = session.run([&](Evaluated&& e) {
    if (hash_of(*axpy.root, e.actions) == device.slow_hash) slow_collected = ids.size();
    ids.push_back(e.id);
  });
  ASSERT_EQ(stats.evaluated, 50) << stats.summary();
  RecordProperty("device_idle_share", fmt::format("{:.3f}", stats.device_idle_share));
  RecordProperty("slow_collected", static_cast<int>(slow_collected.value_or(0)));
  // Generous limits for a loaded machine: about 30 end while it compiles, the device idles <1%.
  ASSERT_TRUE(slow_collected);
  EXPECT_GE(*slow_collected, static_cast<std::size_t>(kSlow + 10))
      << "evaluations that ended while it compiled were collected before it";
  EXPECT_LT(stats.device_idle_share, 0.15) << stats.summary();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(ids[i], static_cast<std::int64_t>(i)) << "ids follow the order of collection";
  }
}

// At the budget, with several threads, the evaluation being measured finishes and the others,
// the slow compilation among them, are abandoned at once.
TEST(Session, WithTwoThreadsTheBudgetAbandonsWhatIsStillCompiling) {
  Problem axpy("axpy", "1048576");
  SlowCompilation device(2, 20s);
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.threads = 2;
  options.evals = 1000;
  options.budget = 500ms;
  std::vector<std::int64_t> ids;
  const auto start = std::chrono::steady_clock::now();
  Session session(*axpy.root, device.device, axpy.model.get(), options);
  const SessionStats stats = session.run([&](Evaluated&& e) { ids.push_back(e.id); });
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took.count(), 5.0);
  EXPECT_EQ(stats.stopped_by, "budget");
  EXPECT_GE(stats.evaluated, 5) << stats.summary();
  EXPECT_GE(stats.abandoned, 1) << "the slow one at least";
  ASSERT_EQ(ids.size(), static_cast<std::size_t>(stats.evaluated));
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], static_cast<std::int64_t>(i));
}

/// A stand-in with `queues` device queues (a distributed search's evaluator), counting what is
/// submitted to it.
class StandInQueues final : public CandidateEvaluator {
 public:
  explicit StandInQueues(int queues) : queues_(queues), device_(0us) {}
  StandInQueues(int queues, std::chrono::microseconds latency, StandInDevice::CompileTime compile)
      : queues_(queues), device_(latency, 3, std::move(compile)) {}
  device::Kind device_kind() const override { return device_.device_kind(); }
  Submission prepare(const spacegen::CandidateBase& candidate, double bound_ns) const override {
    return device_.prepare(candidate, bound_ns);
  }
  std::future<device::Evaluation> submit(const Submission& submission,
                                         std::shared_ptr<device::Cutoff> cutoff) override {
    ++submitted;
    return device_.submit(submission, std::move(cutoff));
  }
  void cancel_waiting() override { device_.cancel_waiting(); }
  void wait_while_measuring() const override {}
  device::DeviceTimes times() const override { return device_.times(); }
  int queues() const override { return queues_; }

  std::atomic<int> submitted{0};

 private:
  int queues_;
  StandInDevice device_;
};

// A distributed search with one searching thread collects evaluations as they end too.
TEST(Session, OneThreadOverSeveralDeviceQueuesCollectsEvaluationsAsTheyEnd) {
  Problem axpy("axpy", "1048576");
  constexpr std::int64_t kSlow = 5;
  std::atomic<std::uint64_t> slow_hash{0};
  StandInQueues device(2, 20ms, [&](std::uint64_t hash, std::int64_t index) {
    if (index != kSlow) return std::chrono::microseconds(10ms);
    slow_hash = hash;
    return std::chrono::microseconds(600ms);
  });
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.evals = 50;
  std::optional<std::size_t> slow_collected;
  std::size_t collected = 0;
  Session session(*axpy.root, device, axpy.model.get(), options);
  const SessionStats stats = session.run([&](Evaluated&& e) {
    if (hash_of(*axpy.root, e.actions) == slow_hash) slow_collected = collected;
    EXPECT_EQ(e.id, static_cast<std::int64_t>(collected++));
  });
  ASSERT_EQ(stats.evaluated, 50) << stats.summary();
  ASSERT_TRUE(slow_collected);
  EXPECT_GE(*slow_collected, static_cast<std::size_t>(kSlow + 10))
      << "evaluations that ended while it compiled were collected before it";
}

TEST(Session, KeepsTwoCandidatesInFlightPerDeviceQueue) {
  Problem matmul("matmul", "256x256x32");
  for (int queues : {1, 4}) {
    StandInQueues device(queues);
    SessionOptions options;
    options.features = &kCodeFeatures;
    options.evals = 30;
    Session session(*matmul.root, device, matmul.model.get(), options);
    int before_first = -1;
    session.run([&](Evaluated&&) {
      if (before_first < 0) before_first = device.submitted;
    });
    // One thread submits until the evaluations in flight reach the limit, then collects.
    EXPECT_EQ(before_first, 2 * queues + 2) << queues << " queues";
  }
}

TEST(Session, AResumedSearchRebuildsItsTreeAndMeasuresNoLoggedCandidateAgain) {
  Problem matmul("matmul", "256x256x32");
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.evals = 30;
  StandInDevice device(0us);
  const Outcome first = search(*matmul.root, device, matmul.model.get(), options);
  ASSERT_EQ(first.lines.size(), 30u);

  options.evals = 50;
  Session resumed(*matmul.root, device, matmul.model.get(), options);
  double best = std::numeric_limits<double>::infinity();
  std::set<std::uint64_t> logged;
  for (const Line& l : first.lines) {
    std::string error;
    ASSERT_TRUE(resumed.recall(l.id, l.actions, l.time_ns, &error)) << error;
    best = std::min(best, *l.time_ns);
    auto c = matmul.root->clone();
    ASSERT_EQ(c->apply(l.actions), spacegen::Status::Ok);
    logged.insert(c->hash());
  }
  const Outcome second = search(*matmul.root, device, matmul.model.get(), options, &resumed);
  ASSERT_EQ(second.lines.size(), 20u);
  for (std::size_t i = 0; i < second.lines.size(); ++i) {
    const Line& l = second.lines[i];
    EXPECT_EQ(l.id, static_cast<std::int64_t>(30 + i));
    auto c = matmul.root->clone();
    ASSERT_EQ(c->apply(l.actions), spacegen::Status::Ok);
    EXPECT_FALSE(logged.contains(c->hash())) << "candidate " << l.id << " was measured before";
    EXPECT_LT(*l.bound_ns, best) << "the log's best time is the cut";
  }

  // A logged candidate that does not replay is refused with its id.
  std::vector<spacegen::Action> broken = first.lines[0].actions;
  broken.pop_back();
  std::string error;
  Session another(*matmul.root, device, matmul.model.get(), options);
  EXPECT_FALSE(another.recall(7, broken, 1.0, &error));
  EXPECT_NE(error.find("candidate 7"), std::string::npos) << error;
}

// A device on which every candidate takes 1 us times 8 per thread dimension: without a model (no
// bound tells candidates apart, nothing is cut), MCTS's move statistics must learn it.
class ThreadsAreSlow final : public CandidateEvaluator {
 public:
  static int thread_dims(const spacegen::CandidateBase& c) {
    int threads = 0;
    for (const spacegen::InstanceRef& i : c.live_instances()) {
      if (c.table().choices[i.choice].name != "dim_kind") continue;
      const std::vector<std::uint32_t> value = c.domain(i);
      threads += value.size() == 1 && c.value_name(i, value[0]) == "THREAD";
    }
    return threads;
  }
  device::Kind device_kind() const override { return device::Kind::stand_in; }
  Submission prepare(const spacegen::CandidateBase& c, double) const override {
    return {{}, 1000 * std::pow(8.0, thread_dims(c)), c.hash()};
  }
  std::future<device::Evaluation> submit(const Submission& s,
                                         std::shared_ptr<device::Cutoff>) override {
    std::promise<device::Evaluation> done;
    device::Evaluation e;
    e.time_ns = s.bound_ns;  // prepare() put the time there
    done.set_value(e);
    return done.get_future();
  }
  void cancel_waiting() override {}
  void wait_while_measuring() const override {}
  device::DeviceTimes times() const override { return {}; }
};

/// The mean number of thread dimensions of the candidates an MCTS search with `mcts` and `seed`
/// evaluated from `from` to `to` on ThreadsAreSlow.
double mean_thread_dims(const MctsOptions& mcts, int from, int to, std::uint64_t seed = 1) {
  Problem matmul("matmul", "256x256x32");
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.seed = seed;
  options.mcts = mcts;
  options.evals = to;
  ThreadsAreSlow device;
  double threads = 0;
  Session(*matmul.root, device, nullptr, options).run([&](Evaluated&& e) {
    if (e.id < from) return;
    auto c = matmul.root->clone();
    EXPECT_EQ(c->apply(e.actions), spacegen::Status::Ok);
    threads += ThreadsAreSlow::thread_dims(*c);
  });
  return threads / (to - from);
}

TEST(Session, MoveStatisticsLearnWhatTheModelDoesNotSee) {
  MctsOptions mast, none;
  mast.screen = none.screen = 1;
  none.mast = 0;
  const double early = mean_thread_dims(mast, 0, 40);
  const double late = mean_thread_dims(mast, 120, 160);
  const double late_without = mean_thread_dims(none, 120, 160);
  EXPECT_LT(late, early / 2) << "the first 40 have " << early << " thread dimensions";
  EXPECT_LT(late, late_without / 2) << "without move statistics";
}

// The same device with screening by the learnt model on top of the move statistics: over three
// seeds, the candidates hold fewer than half as many thread dimensions as without it.
TEST(Session, ScreeningByTheLearntModelLearnsWhatTheBoundDoesNotSee) {
  MctsOptions screened, none;
  screened.screen = 8;
  none.screen = 1;
  double with = 0, without = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    with += mean_thread_dims(screened, 120, 160, seed) / 3;
    without += mean_thread_dims(none, 120, 160, seed) / 3;
  }
  EXPECT_LT(with, without / 2);
}

// Wide screening: the model picks among rollouts from the root, where the tree would have kept
// the decisions above its node; with every proposal so picked from the 20th on, candidates
// 60-100 hold fewer than half as many thread dimensions as the tree's screened rollouts (three
// seeds: 0.017 against 0.117).
TEST(Session, WideScreeningPicksWhatTheModelPredictsFastestFromTheRoot) {
  MctsOptions wide, tree;
  wide.screen = tree.screen = 8;
  wide.wide = 1;
  tree.wide = 0;
  wide.local = tree.local = 0;
  double with = 0, without = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    with += mean_thread_dims(wide, 60, 100, seed) / 3;
    without += mean_thread_dims(tree, 60, 100, seed) / 3;
  }
  EXPECT_LT(with, without / 2) << "with wide screening: " << with;
}

// The learnt model predicts a candidate measured before as fast as it ran, so screening would
// favour the best of them, which the session does not measure again: it proposes a new one
// instead, and finds candidates again less often than a search without screening (matmul 1024^3
// on the stand-in device, 150 evaluations: 62 against 111; 261 when screening took them).
TEST(Session, ScreeningProposesCandidatesNotEvaluatedBefore) {
  Problem matmul("matmul", "1024x1024x1024");
  const auto found_again = [&](int screen) {
    SessionOptions options;
    options.features = &kCodeFeatures;
    options.evals = 150;
    options.mcts.screen = screen;
    StandInDevice device(0us);
    return Session(*matmul.root, device, matmul.model.get(), options)
        .run([](Evaluated&&) {})
        .repeats;
  };
  const std::int64_t screened = found_again(8);
  const std::int64_t unscreened = found_again(1);
  EXPECT_LT(screened, unscreened) << "without screening: " << unscreened;
}

TEST(Session, UntilAFirstTimeTheSearchProposesLowBounds) {
  // matmul 1024^3 on sm_90, whose bounds span five decades: the geometric mean of the first
  // three candidates' bounds over five seeds, with the opening's 32 rollouts and without.
  Problem matmul("matmul", "1024x1024x1024");
  const auto first_bounds = [&](int opening) {
    double log_sum = 0;
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      StandInDevice device(0us);
      SessionOptions options;
      options.features = &kCodeFeatures;
      options.seed = seed;
      options.evals = 3;
      options.mcts.opening = opening;
      for (const Line& l : search(*matmul.root, device, matmul.model.get(), options).lines) {
        log_sum += std::log(*l.bound_ns);
      }
    }
    return std::exp(log_sum / 15);
  };
  const double opened = first_bounds(32);
  const double plain = first_bounds(1);
  EXPECT_LT(opened, plain / 4) << "the opening's first bounds: " << opened << " ns";
}

// Every walk counts in the statistics: with screening from the start, each of the opening's four
// rollouts is the least of three walks, and so is every later rollout: the count comes in threes.
TEST(Session, TheWalksSetAsideCountAsRollouts) {
  Problem matmul("matmul", "1024x1024x1024");
  StandInDevice device(0us);
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.evals = 5;
  options.mcts.opening = 4;
  options.mcts.screen = 3;
  options.mcts.screen_after = 0;
  const SessionStats stats = search(*matmul.root, device, matmul.model.get(), options).stats;
  EXPECT_GE(stats.rollouts, 12);
  EXPECT_EQ(stats.rollouts % 3, 0) << stats.rollouts << " rollouts";
}

/// The decisions of a logged candidate, as a set.
std::set<std::string> decision_set(const std::vector<spacegen::Action>& actions) {
  std::set<std::string> decisions;
  for (const spacegen::Action& a : actions) decisions.insert(spacegen::to_json(a));
  return decisions;
}

/// How many decisions `decisions` has apart from the nearest of `others` (the size of the
/// symmetric difference of the sets).
std::size_t distance_to_nearest(const std::set<std::string>& decisions,
                                const std::vector<std::set<std::string>>& others) {
  std::size_t nearest = std::numeric_limits<std::size_t>::max();
  for (const std::set<std::string>& other : others) {
    std::vector<std::string> apart;
    std::set_symmetric_difference(decisions.begin(), decisions.end(), other.begin(), other.end(),
                                  std::back_inserter(apart));
    nearest = std::min(nearest, apart.size());
  }
  return nearest;
}

TEST(Session, NeighboursOfTheBestKeepMostOfItsDecisions) {
  Problem matmul("matmul", "256x256x32");
  // Per candidate from the 25th on: how many of its decisions differ from the nearest of the ten
  // fastest collected before it (symmetric difference of the decision sets); the median.
  const auto distance_to_best = [&](double local) {
    SessionOptions options;
    options.features = &kCodeFeatures;
    options.mcts.local = local;
    options.mcts.local_after = 10;
    options.evals = 60;
    StandInDevice device(0us);
    std::vector<std::pair<double, std::set<std::string>>> seen;
    std::vector<double> distances;
    Session(*matmul.root, device, matmul.model.get(), options).run([&](Evaluated&& e) {
      std::set<std::string> decisions = decision_set(e.actions);
      if (seen.size() >= 25) {
        std::vector<std::pair<double, std::set<std::string>>> best = seen;
        std::sort(best.begin(), best.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        best.resize(10);
        std::vector<std::set<std::string>> fastest;
        for (auto& [time, other] : best) fastest.push_back(std::move(other));
        distances.push_back(static_cast<double>(distance_to_nearest(decisions, fastest)));
      }
      seen.emplace_back(e.evaluation.time_ns.value_or(std::numeric_limits<double>::infinity()),
                        std::move(decisions));
    });
    std::nth_element(distances.begin(), distances.begin() + distances.size() / 2, distances.end());
    return distances[distances.size() / 2];
  };
  const double neighbours = distance_to_best(1);
  const double tree = distance_to_best(0);
  // Three decisions dropped and taken again, and those on objects a dropped one created.
  EXPECT_LE(neighbours, 12) << "the tree's candidates: " << tree;
  EXPECT_LT(neighbours, tree / 2);
}

/// The lines of `outcome` by time, fastest first.
std::vector<const Line*> by_time(const Outcome& outcome) {
  std::vector<const Line*> lines;
  for (const Line& l : outcome.lines)
    if (l.time_ns) lines.push_back(&l);
  std::stable_sort(lines.begin(), lines.end(),
                   [](const Line* a, const Line* b) { return *a->time_ns < *b->time_ns; });
  return lines;
}

/// The `n` fastest candidates of a search of `evals` on the stand-in device, fastest first.
std::vector<Line> fastest_found(const Problem& problem, std::int64_t evals, std::size_t n) {
  StandInDevice device(0us);
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.evals = evals;
  const Outcome found = search(*problem.root, device, problem.model.get(), options);
  std::vector<Line> fastest;
  for (const Line* l : by_time(found)) fastest.push_back(*l);
  fastest.resize(std::min(n, fastest.size()));
  return fastest;
}

TEST(Session, StartsAreEvaluatedFirstAndTheSearchGoesOnFromThem) {
  Problem matmul("matmul", "256x256x32");
  const std::vector<Line> fastest = fastest_found(matmul, 40, 10);
  StandInDevice device(0us);
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.seed = 2;
  options.evals = 30;
  options.mcts.local = 1;
  options.mcts.local_after = 1;
  for (const Line& l : fastest) options.starts.push_back(l.actions);
  const Outcome second = search(*matmul.root, device, matmul.model.get(), options);
  // The starts come first, in order, but for those whose bound reached the best time collected
  // meanwhile: they cannot be faster.
  std::size_t next = 0;
  std::size_t from_starts = 0;
  for (const Line& l : second.lines) {
    while (next < fastest.size() && l.actions != fastest[next].actions) ++next;
    if (next == fastest.size()) break;
    ++from_starts;
  }
  ASSERT_GE(from_starts, 1u);
  EXPECT_EQ(second.lines[0].actions, fastest[0].actions);
  EXPECT_LE(*by_time(second)[0]->time_ns, *fastest[0].time_ns);
  // MCTS heard them: its first proposals, all neighbours of the best candidates it knows (once
  // it knows one), change a few decisions of a start.
  std::vector<std::set<std::string>> starts;
  for (const Line& l : fastest) starts.push_back(decision_set(l.actions));
  std::vector<std::size_t> distances;
  for (std::size_t i = from_starts; i < std::min(from_starts + 5, second.lines.size()); ++i) {
    distances.push_back(distance_to_nearest(decision_set(second.lines[i].actions), starts));
  }
  ASSERT_FALSE(distances.empty());
  std::nth_element(distances.begin(), distances.begin() + distances.size() / 2, distances.end());
  EXPECT_LE(distances[distances.size() / 2], 12u);
}

// A start measured after the budget is spent is still heard by MCTS, whose recall expands its
// tree: the budget's stop request must not escape the thread that collects evaluations.
TEST(Session, AStartMeasuredPastTheBudgetEndsTheSearchCleanly) {
  Problem matmul("matmul", "256x256x32");
  const std::vector<Line> fastest = fastest_found(matmul, 6, 3);
  ASSERT_FALSE(fastest.empty());
  StandInDevice device(300ms);
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.evals = 100;
  options.budget = 100ms;
  for (const Line& l : fastest) options.starts.push_back(l.actions);
  const Outcome out = search(*matmul.root, device, matmul.model.get(), options);
  EXPECT_EQ(out.stats.stopped_by, "budget");
  ASSERT_GE(out.lines.size(), 1u);
  EXPECT_EQ(out.lines[0].actions, fastest[0].actions);
}

TEST(Session, StartsFromOtherSizesKeepTheDecisionsThatStillApply) {
  Problem large("matmul", "512x512x512");
  Problem small("matmul", "32x32x4");
  const std::vector<Line> fastest = fastest_found(large, 20, 5);
  StandInDevice device(0us);
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.evals = 20;

  std::size_t skipped = 0;
  for (const Line& l : fastest) {
    const Replay replay = replay_what_applies(*small.root, l.actions);
    EXPECT_EQ(replay.applied + replay.absent + replay.refused, l.actions.size());
    EXPECT_GE(replay.applied, l.actions.size() / 2);
    skipped += replay.absent + replay.refused;
    options.starts.push_back(l.actions);
  }
  EXPECT_GT(skipped, 0u) << "32x32x4 has none of 512^3's larger tile sizes";
  const Outcome second = search(*small.root, device, small.model.get(), options);
  // The first candidate completes what applied of the fastest.
  const Replay replay = replay_what_applies(*small.root, fastest[0].actions);
  EXPECT_EQ(replay.candidate->apply(second.lines.at(0).actions), spacegen::Status::Ok);
}

TEST(Session, StatisticsSayWhereTheTimeWent) {
  Problem matmul("matmul", "256x256x32");
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.evals = 20;
  StandInDevice device(1ms);
  const Outcome out = search(*matmul.root, device, matmul.model.get(), options);
  const SessionStats& s = out.stats;
  EXPECT_EQ(s.algorithm, "mcts");
  EXPECT_EQ(s.evaluated, 20);
  EXPECT_GE(s.rollouts, 20);
  EXPECT_GT(s.propagation_s, 0);
  EXPECT_GT(s.model_s, 0);
  EXPECT_NEAR(s.measure_s, 0.020, 0.015);
  EXPECT_GT(s.evaluations_per_s(), 0);
  EXPECT_LE(s.propagation_s + s.model_s + s.codegen_s, s.wall_s * 1.01);
  const nlohmann::json j = nlohmann::json::parse(s.to_json());
  EXPECT_EQ(j.at("evaluated"), 20);
  EXPECT_EQ(j.at("algorithm"), "mcts");
  for (const char* key : {"rollouts_per_s", "dead_end_rate", "device_idle_share", "model_s"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_NE(s.summary().find("evaluations/s"), std::string::npos);
}

TEST(Session, AnUnknownDecisionOrderIsRefused) {
  Problem axpy("axpy", "64");
  StandInDevice device(0us);
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.order = "size,colour";
  try {
    Session session(*axpy.root, device, nullptr, options);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::usage);
    EXPECT_NE(std::string(e.what()).find("'colour' is not a choice"), std::string::npos)
        << e.what();
  }
}

// Every fully specified candidate below `node`, as text.
void leaves(const spacegen::CandidateBase& node, std::set<std::string>& out) {
  const auto choice = node.first_open_instance();
  if (!choice) {
    out.insert(node.to_string());
    return;
  }
  for (const auto& child : valid_children(node, *choice)) leaves(*child, out);
}

class SessionOnATinySpace : public testing::TestWithParam<AlgorithmKind> {};

TEST_P(SessionOnATinySpace, EvaluatesEveryCandidateOnceThenSaysTheSpaceIsExhausted) {
  spacegen::test::Backbone fun;
  for (const std::vector<std::int64_t>& sizes :
       {std::vector<std::int64_t>{1, 2}, std::vector<std::int64_t>{1, 2, 4}}) {
    fun.add_dim(sizes);
  }
  const auto root = spacegen::test::make_candidate<space_property::Candidate>(fun);
  std::set<std::string> all;
  leaves(*root, all);
  ASSERT_GT(all.size(), 3u);
  SessionOptions options;
  options.features = &kCodeFeatures;
  options.algorithm = GetParam();
  options.evals = static_cast<std::int64_t>(all.size()) + 10;
  StandInDevice device(0us);
  std::multiset<std::string> evaluated;
  Session session(*root, device, nullptr, options);  // no model: every bound is 0, nothing is cut
  const SessionStats stats = session.run([&](Evaluated&& e) {
    auto c = root->clone();
    ASSERT_EQ(c->apply(e.actions), spacegen::Status::Ok);
    evaluated.insert(c->to_string());
  });
  EXPECT_TRUE(stats.exhausted);
  EXPECT_EQ(evaluated, std::multiset<std::string>(all.begin(), all.end()));
}

INSTANTIATE_TEST_SUITE_P(TreeSearches, SessionOnATinySpace,
                         testing::Values(AlgorithmKind::mcts, AlgorithmKind::bb),
                         [](const auto& param) { return std::string(to_string(param.param)); });

}  // namespace
}  // namespace sculpt::search
