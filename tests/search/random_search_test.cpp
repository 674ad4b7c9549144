// The random search's budget: when it runs out, the evaluation being measured is still logged,
// the ones waiting for the device are abandoned rather than waited for, and ids stay contiguous.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "backbone/zoo/zoo.h"
#include "device/pipeline.h"
#include "search/problem.h"
#include "search/random_search.h"

namespace sculpt::search {
namespace {

using namespace std::chrono_literals;

// A device whose every measurement takes `measure_time`: the shared pipeline, without a
// compiler or a run.
class SlowDevice final : public device::Evaluator {
 public:
  explicit SlowDevice(std::chrono::milliseconds measure_time)
      : pipeline_(
            1, [](const device::KernelCode&) -> device::Pipeline<int>::CompileResult { return 0; },
            [measure_time](const device::KernelCode&, const std::shared_ptr<const device::Problem>&,
                           int&) {
              std::this_thread::sleep_for(measure_time);
              device::Evaluation e;
              e.time_ns = 1e6;
              return e;
            }) {}

  std::string name() const override { return "slow"; }
  std::future<device::Evaluation> submit(device::KernelCode code,
                                         std::shared_ptr<const device::Problem> problem) override {
    return pipeline_.submit(std::move(code), std::move(problem));
  }
  void cancel_waiting() override { pipeline_.cancel_waiting(); }

 private:
  device::Pipeline<int> pipeline_;
};

TEST(RandomSearch, AtTheBudgetFinishesTheMeasurementUnderWayAndAbandonsTheRest) {
  const backbone::KernelInfo* info = backbone::find_kernel("axpy");
  ASSERT_NE(info, nullptr);
  const backbone::Sizes sizes = backbone::default_sizes(info->sizes);
  const backbone::Kernel kernel = info->build(sizes);
  const auto root = gpu_space::make_root(kernel, gpu_space::DeviceDescription::sm90());
  const auto problem = make_problem(*info, sizes, kernel, 1);

  SlowDevice device(400ms);
  SearchOptions options;
  options.evals = 1000;
  options.in_flight = 4;
  options.budget = 1s;
  std::vector<std::int64_t> ids;
  const auto start = std::chrono::steady_clock::now();
  const SearchStats stats = random_search(*root, device, device::Language::c, problem, options,
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

}  // namespace
}  // namespace sculpt::search
