// The random search's budget: when it runs out (or a stop is requested), the evaluation being
// measured is still logged, the ones waiting for the device are abandoned rather than waited for,
// and ids stay contiguous.
// Its cutoff: each candidate is timed until it is over a multiple of the best time before it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

#include "backbone/zoo/zoo.h"
#include "device/pipeline.h"
#include "perf_model/description.h"
#include "search/problem.h"
#include "search/random_search.h"

namespace sculpt::search {
namespace {

using namespace std::chrono_literals;

using CutoffValue = std::optional<std::chrono::nanoseconds>;

// A device that measures each candidate with `measure(cutoff)`, `cutoff` being the one the
// candidate was submitted with: the shared pipeline, without a compiler or a run.
class StandInDevice final : public device::Evaluator {
 public:
  explicit StandInDevice(std::function<device::Evaluation(CutoffValue)> measure)
      : pipeline_(
            1, [](const device::KernelCode&) -> device::Pipeline<int>::CompileResult { return 0; },
            [measure = std::move(measure)](const device::KernelCode&,
                                           const std::shared_ptr<const device::Problem>&, int&,
                                           CutoffValue cutoff) { return measure(cutoff); }) {}

  std::string name() const override { return "stand-in"; }
  void cancel_waiting() override { pipeline_.cancel_waiting(); }

 private:
  std::future<device::Evaluation> queue(device::KernelCode code,
                                        std::shared_ptr<const device::Problem> problem,
                                        std::shared_ptr<device::Cutoff> cutoff) override {
    return pipeline_.submit(std::move(code), std::move(problem), std::move(cutoff));
  }

  device::Pipeline<int> pipeline_;
};

// A device whose every measurement takes `duration` and gives 1 ms.
StandInDevice device_taking(std::chrono::milliseconds duration) {
  return StandInDevice([duration](CutoffValue) {
    std::this_thread::sleep_for(duration);
    device::Evaluation e;
    e.time_ns = 1e6;
    return e;
  });
}

// Searches of axpy at its default size.
class RandomSearch : public testing::Test {
 protected:
  void SetUp() override {
    const backbone::KernelInfo* info = backbone::find_kernel("axpy");
    ASSERT_NE(info, nullptr);
    const backbone::Sizes sizes = backbone::default_sizes(info->sizes);
    const backbone::Kernel kernel = info->build(sizes);
    root_ = gpu_space::make_root(kernel, perf_model::Description::named("sm_90").limits);
    problem_ = make_problem(*info, sizes, kernel, 1);
  }

  std::unique_ptr<gpu_space::Candidate> root_;
  std::shared_ptr<const device::Problem> problem_;
};

TEST_F(RandomSearch, AtTheBudgetFinishesTheMeasurementUnderWayAndAbandonsTheRest) {
  StandInDevice device = device_taking(400ms);
  SearchOptions options;
  options.evals = 1000;
  options.in_flight = 4;
  options.budget = 1s;
  std::vector<std::int64_t> ids;
  const auto start = std::chrono::steady_clock::now();
  const SearchStats stats = random_search(*root_, device, device::Language::c, problem_, options,
                                          [&](Evaluated&& e) { ids.push_back(e.id); });
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;

  // Measurements end at 0.4, 0.8 and 1.2 s: the third was under way at the budget. Waiting for
  // the three submitted behind it would have taken until 2.4 s.
  EXPECT_LT(took.count(), 2.0);
  EXPECT_GE(stats.evaluated, 2);
  EXPECT_EQ(stats.abandoned, 3);
  ASSERT_EQ(ids.size(), static_cast<std::size_t>(stats.evaluated));
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], static_cast<std::int64_t>(i));
}

TEST_F(RandomSearch, ABudgetOfCenturiesIsNoLimit) {
  StandInDevice device = device_taking(0ms);
  SearchOptions options;
  options.evals = 3;
  options.budget = std::chrono::duration<double>(1e12);  // past the clock's range in nanoseconds
  EXPECT_EQ(
      random_search(*root_, device, device::Language::c, problem_, options, [](Evaluated&&) {})
          .evaluated,
      3);
}

TEST_F(RandomSearch, AStopRequestEndsItAsTheBudgetWould) {
  // The stop comes with the second evaluation (at 0.4 s).
  StandInDevice device = device_taking(200ms);
  SearchOptions options;
  options.evals = 1000;
  options.in_flight = 4;
  std::atomic<bool> stop{false};
  options.stop_requested = [&stop] { return stop.load(); };
  std::vector<std::int64_t> ids;
  const auto start = std::chrono::steady_clock::now();
  const SearchStats stats =
      random_search(*root_, device, device::Language::c, problem_, options, [&](Evaluated&& e) {
        ids.push_back(e.id);
        if (ids.size() == 2) stop = true;
      });
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;

  // Nothing is submitted after the stop (5 were), the third finishes when its measurement had
  // started, and the others are abandoned rather than measured.
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
StandInDevice scripted_device(std::vector<double> times, std::vector<CutoffValue>& cutoffs) {
  return StandInDevice([times = std::move(times), &cutoffs](CutoffValue cutoff) {
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

TEST_F(RandomSearch, EachCandidateIsCutAtAMultipleOfTheBestTimeMeasuredBeforeIt) {
  using std::chrono::nanoseconds;

  // Runs a search of 5 candidates that take 5, 30, 2, 9 and 100 us: the cutoffs they were timed
  // with.
  std::vector<CutoffValue> cutoffs;
  auto search = [&](const SearchOptions& options) {
    cutoffs.clear();
    StandInDevice device = scripted_device({5000, 30000, 2000, 9000, 100000}, cutoffs);
    return random_search(*root_, device, device::Language::c, problem_, options,
                         [](Evaluated&&) {});
  };
  SearchOptions options;
  options.evals = 5;
  options.in_flight = 5;  // submitted together, each cut against the times measured before it
  options.cutoff = 4;
  const SearchStats stats = search(options);
  EXPECT_EQ(cutoffs, (std::vector<CutoffValue>{std::nullopt, nanoseconds(20000), nanoseconds(20000),
                                               nanoseconds(8000), nanoseconds(8000)}));
  EXPECT_EQ(stats.cut_short, 3);
  EXPECT_EQ(stats.killed, 1);
  // A resumed search starts from the best time of its log; 0 turns the cutoff off.
  options.best_ns = 1000;
  search(options);
  EXPECT_EQ(cutoffs.front(), nanoseconds(4000));
  options.cutoff = 0;
  EXPECT_EQ(search(options).cut_short, 0);
  EXPECT_EQ(cutoffs, std::vector<CutoffValue>(5));
}

}  // namespace
}  // namespace sculpt::search
