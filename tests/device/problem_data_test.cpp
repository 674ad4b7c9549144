#include "device/problem_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "device/evaluator.h"

namespace sculpt::device {
namespace {

// y = a * x + y over n floats: one input, one inout array, one scalar.
Problem axpy_problem(std::int64_t n, std::uint64_t seed) {
  Problem problem;
  problem.name = "axpy";
  problem.seed = seed;
  problem.params = {
      ScalarParam{"a", 2.0f}, ArrayParam{.name = "x", .type = ElementType::f32, .count = n},
      ArrayParam{.name = "y", .type = ElementType::f32, .count = n, .role = Role::inout}};
  problem.reference = [](const Arguments& args) {
    float a = args.scalar<float>(0);
    auto x = args.array<float>(1);
    auto y = args.array<float>(2);
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = a * x[i] + y[i];
  };
  return problem;
}

std::vector<float> floats(std::span<const std::byte> bytes) {
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

TEST(ProblemData, FillsInputsFromTheSeedWithoutZeros) {
  ProblemData data(axpy_problem(1000, 7));
  ProblemData same(axpy_problem(1000, 7));
  ProblemData other(axpy_problem(1000, 8));
  auto x = floats(data.initial(1));
  ASSERT_EQ(x.size(), 1000u);
  bool negative = false;
  for (float v : x) {
    EXPECT_GE(std::abs(v), 0.5f);
    EXPECT_LT(std::abs(v), 1.5f);
    negative |= v < 0;
  }
  EXPECT_TRUE(negative);
  EXPECT_EQ(x, floats(same.initial(1)));
  EXPECT_NE(x, floats(other.initial(1)));
  // Two arrays of one problem get different values.
  EXPECT_NE(x, floats(data.initial(2)));
  float a = 0;
  std::memcpy(&a, data.initial(0).data(), sizeof a);
  EXPECT_EQ(a, 2.0f);
}

TEST(ProblemData, PoisonsOutputs) {
  Problem problem;
  problem.params = {
      ArrayParam{.name = "in", .type = ElementType::f64, .count = 4},
      ArrayParam{.name = "out", .type = ElementType::f64, .count = 4, .role = Role::output},
      ArrayParam{.name = "ints", .type = ElementType::i32, .count = 4, .role = Role::output}};
  problem.reference = [](const Arguments& args) {
    auto in = args.array<double>(0);
    auto out = args.array<double>(1);
    auto ints = args.array<std::int32_t>(2);
    for (std::size_t i = 0; i < in.size(); ++i) {
      out[i] = in[i];
      ints[i] = static_cast<std::int32_t>(i);
    }
  };
  ProblemData data(problem);
  EXPECT_FALSE(data.is_result(0));
  EXPECT_TRUE(data.is_result(1));
  std::vector<double> out(4);
  ASSERT_EQ(data.bytes(1), out.size() * sizeof(double));
  data.write_initial(1, reinterpret_cast<std::byte*>(out.data()));
  EXPECT_TRUE(std::isnan(out[0]));
  std::vector<std::int32_t> ints(4);
  data.write_initial(2, reinterpret_cast<std::byte*>(ints.data()));
  // Left untouched, the poisoned outputs fail the check.
  auto unwritten = data.compare(1, out.data());
  ASSERT_TRUE(unwritten);
  EXPECT_NE(unwritten->find("index 0: got nan"), std::string::npos) << *unwritten;
  EXPECT_TRUE(data.compare(2, ints.data()));
  std::vector<std::int32_t> right = {0, 1, 2, 3};
  EXPECT_FALSE(data.compare(2, right.data()));
  std::vector<std::int32_t> wrong = {0, 1, 5, 3};
  auto mismatch = data.compare(2, wrong.data());
  ASSERT_TRUE(mismatch);
  EXPECT_NE(mismatch->find("'ints' (parameter 2) mismatch at index 2: got 5 expected 2"),
            std::string::npos)
      << *mismatch;
}

// Inputs can take gigabytes: the reference reads them where the data keeps them, and only the
// results it writes are copies.
TEST(ProblemData, ReferenceReadsTheInputsInPlace) {
  Problem problem = axpy_problem(8, 3);
  const void* seen_x = nullptr;
  const void* seen_y = nullptr;
  Reference axpy = problem.reference;
  problem.reference = [&](const Arguments& args) {
    seen_x = args.array<float>(1).data();
    seen_y = args.array<float>(2).data();
    axpy(args);
  };
  ProblemData data(problem);
  EXPECT_EQ(seen_x, data.initial(1).data());
  EXPECT_NE(seen_y, data.initial(2).data());
  // The inout array's initial values are left as they were for the candidates.
  auto y = floats(data.initial(2));
  auto x = floats(data.initial(1));
  std::vector<float> expected(8);
  for (std::size_t i = 0; i < 8; ++i) expected[i] = 2.0f * x[i] + y[i];
  EXPECT_FALSE(data.compare(2, expected.data()));
  EXPECT_TRUE(data.compare(2, y.data()));
}

TEST(ProblemData, CountsItsBytesAndRefusesProblemsLargerThanMemory) {
  // x once, y twice (initial and expected values), the scalar not at all.
  EXPECT_EQ(data_bytes(axpy_problem(1000, 1)), 1000u * 4 * 3);
  Problem huge = axpy_problem(std::int64_t{1} << 62, 1);
  EXPECT_EQ(data_bytes(huge), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(result_bytes(axpy_problem(1000, 1)), 1000u * 4);
  EXPECT_EQ(result_bytes(huge), std::numeric_limits<std::uint64_t>::max());
  EXPECT_NO_THROW(require_host_memory(axpy_problem(1000, 1), {.data = 2}, "cpu device"));
  // Under a limit: what the copies leave of it.
  EXPECT_EQ(
      require_host_memory(axpy_problem(1000, 1), {.data = 1, .results = 2}, "cuda device", 100'000),
      100'000u - 12'000 - 2 * 4'000);
  EXPECT_EQ(require_host_memory(axpy_problem(1000, 1), {.data = 2}, "cpu device", 24'000), 0u);
  try {
    require_host_memory(axpy_problem(1000, 1), {.data = 2}, "cpu device", 23'999);
    ADD_FAILURE() << "no error";
  } catch (const DeviceError& error) {
    EXPECT_EQ(std::string(error.what()),
              "cpu device: problem 'axpy' needs 2.4e-05 GB of host memory (2 copies of its arrays "
              "and expected results), more than the 2.4e-05 GB it may use");
  }
  try {
    require_host_memory(huge, {.data = 1, .results = 2}, "cuda device");
    ADD_FAILURE() << "no error";
  } catch (const DeviceError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("cuda device: problem 'axpy' needs 5.534e+10 GB of host memory (its "
                        "arrays and expected results, and 2 of its results), more than the "),
              std::string::npos)
        << error.what();
  }
  try {
    require_host_memory(huge, {.data = 2}, "cpu device");
    ADD_FAILURE() << "no error";
  } catch (const DeviceError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("cpu device: problem 'axpy' needs 3.689e+10 GB of "
                        "host memory (2 copies of its arrays and expected "
                        "results), more than the "),
              std::string::npos)
        << error.what();
  }
}

TEST(ProblemData, ComparesWithinTheTolerance) {
  Problem problem = axpy_problem(100, 3);
  problem.tolerance = Tolerance{.type = ElementType::f32, .reduction_length = 1};
  ProblemData data(problem);
  auto expected = floats(data.initial(2));
  float a = 2.0f;
  auto x = floats(data.initial(1));
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = a * x[i] + expected[i];
  EXPECT_FALSE(data.compare(2, expected.data()));

  auto close = expected;
  close[10] = std::nextafter(close[10], 100.0f);
  EXPECT_FALSE(data.compare(2, close.data()));

  auto far = expected;
  far[42] *= 1.001f;
  auto message = data.compare(2, far.data());
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("inout array 'y' (parameter 2) mismatch at index 42"), std::string::npos)
      << *message;
  EXPECT_NE(message->find("1 of 100 elements differ"), std::string::npos) << *message;

  auto not_a_number = expected;
  not_a_number[99] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(data.compare(2, not_a_number.data()));
}

TEST(ProblemData, ToleranceGrowsWithEpsilonAndReductionLength) {
  double f32_short = relative_tolerance({ElementType::f32, 1});
  double f32_long = relative_tolerance({ElementType::f32, 10000});
  double f64_long = relative_tolerance({ElementType::f64, 10000});
  EXPECT_GT(f32_long, f32_short);
  EXPECT_LT(f64_long, f32_long * 1e-6);
  EXPECT_NEAR(f32_long, 8 * std::numeric_limits<float>::epsilon() * 101, 1e-12);
  EXPECT_EQ(relative_tolerance({ElementType::i32, 10000}), 0);
}

TEST(RunStatistics, MedianAndMedianAbsoluteDeviation) {
  auto odd = summarize_runs({5, 1, 3, 100, 4});
  EXPECT_EQ(odd.median_ns, 4);
  EXPECT_EQ(odd.spread_ns, 1);  // deviations 1 3 1 96 0
  auto even = summarize_runs({10, 20, 30, 40});
  EXPECT_EQ(even.median_ns, 25);
  EXPECT_EQ(even.spread_ns, 10);
  // Runs over a second keep their nanoseconds.
  auto long_runs = summarize_runs({3'000'000'001, 3'000'000'003, 3'000'000'002});
  EXPECT_EQ(long_runs.median_ns, 3'000'000'002);
}

TEST(Check, NamesAreThoseOfTheEventLog) {
  EXPECT_EQ(to_string(Check::ok), "ok");
  EXPECT_EQ(to_string(Check::wrong), "wrong");
  EXPECT_EQ(to_string(Check::fault), "fault");
  EXPECT_EQ(to_string(Check::timeout), "timeout");
  EXPECT_EQ(to_string(Check::compile_error), "compile_error");
}

}  // namespace
}  // namespace sculpt::device
