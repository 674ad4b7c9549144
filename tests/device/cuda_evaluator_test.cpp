// The CUDA device, twice: on the GPU (skipped where none answers) and on a fake driver that
// runs the same kernels on the host, so that worker processes, protocol and recovery are
// tested on every machine that builds this.
#include "device/cuda_evaluator.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "device/cutoff.h"
#include "tests/device/axpy_problem.h"
#include "tests/device/fake_cuda.h"

namespace sculpt::device {
namespace {

using std::chrono::milliseconds;

constexpr std::int32_t kAxpySize = 1 << 22;
constexpr std::uint32_t kBlock = 256;

// y = a * x + y, one thread per element.
const char* const kAxpy = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry axpy(
    .param .s32 n,
    .param .f32 a,
    .param .u64 x,
    .param .u64 y)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<8>;

    ld.param.s32 %r1, [n];
    ld.param.f32 %f1, [a];
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.s32 %rd5, %r5, 4;
    add.s64 %rd6, %rd3, %rd5;
    add.s64 %rd7, %rd4, %rd5;
    ld.global.f32 %f2, [%rd6];
    ld.global.f32 %f3, [%rd7];
    fma.rn.f32 %f4, %f1, %f2, %f3;
    st.global.f32 [%rd7], %f4;
DONE:
    ret;
}
)";

// Loops while x[0] is not 0, which no input is: a kernel that never ends.
const char* const kSpin = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry spin(
    .param .s32 n,
    .param .f32 a,
    .param .u64 x,
    .param .u64 y)
{
    .reg .pred %p<2>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<3>;

    ld.param.u64 %rd1, [x];
    cvta.to.global.u64 %rd2, %rd1;
LOOP:
    ld.volatile.global.f32 %f1, [%rd2];
    setp.ne.f32 %p1, %f1, 0f00000000;
    @%p1 bra LOOP;
    ret;
}
)";

constexpr std::int32_t kScalarsSize = 1000;

// out = a * x + b * y + k * z in f64 (the f32 product rounded first), iout = k * z: one scalar
// of each type, arrays of each type.
const char* const kScalars = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry scalars(
    .param .s32 n,
    .param .f32 a,
    .param .f64 b,
    .param .s32 k,
    .param .u64 x,
    .param .u64 y,
    .param .u64 z,
    .param .u64 out,
    .param .u64 iout)
{
    .reg .pred %p<2>;
    .reg .b32 %r<9>;
    .reg .f32 %f<4>;
    .reg .f64 %fd<8>;
    .reg .b64 %rd<13>;

    ld.param.s32 %r1, [n];
    ld.param.f32 %f1, [a];
    ld.param.f64 %fd1, [b];
    ld.param.s32 %r2, [k];
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.param.u64 %rd3, [z];
    ld.param.u64 %rd4, [out];
    ld.param.u64 %rd5, [iout];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r6, %r3, %r4, %r5;
    setp.ge.s32 %p1, %r6, %r1;
    @%p1 bra DONE;
    mul.wide.s32 %rd6, %r6, 4;
    mul.wide.s32 %rd7, %r6, 8;
    cvta.to.global.u64 %rd8, %rd1;
    add.s64 %rd8, %rd8, %rd6;
    ld.global.f32 %f2, [%rd8];
    cvta.to.global.u64 %rd9, %rd2;
    add.s64 %rd9, %rd9, %rd7;
    ld.global.f64 %fd2, [%rd9];
    cvta.to.global.u64 %rd10, %rd3;
    add.s64 %rd10, %rd10, %rd6;
    ld.global.s32 %r7, [%rd10];
    mul.rn.f32 %f3, %f1, %f2;
    cvt.f64.f32 %fd3, %f3;
    mul.rn.f64 %fd4, %fd1, %fd2;
    add.rn.f64 %fd5, %fd3, %fd4;
    mul.lo.s32 %r8, %r2, %r7;
    cvt.rn.f64.s32 %fd6, %r8;
    add.rn.f64 %fd7, %fd5, %fd6;
    cvta.to.global.u64 %rd11, %rd4;
    add.s64 %rd11, %rd11, %rd7;
    st.global.f64 [%rd11], %fd7;
    cvta.to.global.u64 %rd12, %rd5;
    add.s64 %rd12, %rd12, %rd6;
    st.global.s32 [%rd12], %r8;
DONE:
    ret;
}
)";

std::shared_ptr<const Problem> axpy_problem() { return testing_problems::axpy_problem(kAxpySize); }

std::shared_ptr<const Problem> scalars_problem() {
  auto problem = std::make_shared<Problem>();
  problem->name = "scalars";
  problem->params = {
      ScalarParam{"n", kScalarsSize},
      ScalarParam{"a", 1.25f},
      ScalarParam{"b", -0.375},
      ScalarParam{"k", std::int32_t{-7}},
      ArrayParam{.name = "x", .type = ElementType::f32, .count = kScalarsSize},
      ArrayParam{.name = "y", .type = ElementType::f64, .count = kScalarsSize},
      ArrayParam{.name = "z", .type = ElementType::i32, .count = kScalarsSize},
      ArrayParam{
          .name = "out", .type = ElementType::f64, .count = kScalarsSize, .role = Role::output},
      ArrayParam{
          .name = "iout", .type = ElementType::i32, .count = kScalarsSize, .role = Role::output}};
  problem->reference = [](const Arguments& args) {
    auto a = args.scalar<float>(1);
    auto b = args.scalar<double>(2);
    auto k = args.scalar<std::int32_t>(3);
    auto x = args.array<float>(4);
    auto y = args.array<double>(5);
    auto z = args.array<std::int32_t>(6);
    auto out = args.array<double>(7);
    auto iout = args.array<std::int32_t>(8);
    for (std::size_t i = 0; i < x.size(); ++i) {
      iout[i] = k * z[i];
      out[i] = static_cast<double>(a * x[i]) + b * y[i] + static_cast<double>(iout[i]);
    }
  };
  problem->tolerance = Tolerance{.type = ElementType::f32, .reduction_length = 1};
  return problem;
}

KernelCode ptx(std::string source, std::string entry, std::int32_t elements) {
  KernelCode code;
  code.language = Language::ptx;
  code.source = std::move(source);
  code.entry = std::move(entry);
  code.launch.grid = {(static_cast<std::uint32_t>(elements) + kBlock - 1) / kBlock, 1, 1};
  code.launch.block = {kBlock, 1, 1};
  return code;
}

KernelCode axpy_code() { return ptx(kAxpy, "axpy", kAxpySize); }

// The axpy kernel renamed `entry`, with `replacement` in place of `original`.
KernelCode axpy_variant(const std::string& entry, const std::string& original,
                        const std::string& replacement) {
  std::string source = kAxpy;
  source.replace(source.find(".entry axpy("), 12, ".entry " + entry + "(");
  source.replace(source.find(original), original.size(), replacement);
  return ptx(source, entry, kAxpySize);
}

// Probed once: each probe initialises the driver in a process of its own.
const std::string& gpu_missing() {
  static const std::string why = [] {
    std::string reason;
    return cuda_available(&reason) ? std::string() : reason;
  }();
  return why;
}

class CudaEvaluatorTest : public testing::TestWithParam<Driver> {
 protected:
  void SetUp() override {
    if (GetParam() == Driver::gpu && !gpu_missing().empty()) {
      GTEST_SKIP() << "no GPU to test on: " << gpu_missing();
    }
    if (GetParam() == Driver::fake) {
      ASSERT_TRUE(std::filesystem::exists(fake_cuda_driver()))
          << fake_cuda_driver() << " not built";
    }
  }

  CudaEvaluatorOptions options() const {
    CudaEvaluatorOptions options;
    if (GetParam() == Driver::fake) options.worker.driver_library = fake_cuda_driver();
    options.compile_threads = 4;
    options.plan.budget = milliseconds(20);
    options.plan.min_runs = 3;
    options.plan.max_runs = 50;
    return options;
  }
};

TEST_P(CudaEvaluatorTest, AxpyIsCorrectAndTimed) {
  CudaEvaluator evaluator(options());
  EXPECT_EQ(evaluator.name(), "cuda");
  EXPECT_NE(evaluator.device_description().find("(sm_"), std::string::npos)
      << evaluator.device_description();
  Evaluation result = evaluator.evaluate(axpy_code(), axpy_problem());
  ASSERT_EQ(result.check, Check::ok) << result.message;
  ASSERT_TRUE(result.time_ns);
  // 4M multiply-adds over 48 MB: microseconds on a GPU, at most a tenth of a second anywhere.
  EXPECT_GT(*result.time_ns, 100);
  EXPECT_LT(*result.time_ns, 1e8);
  EXPECT_GE(result.runs, 3);
  EXPECT_LE(result.runs, 50);
  EXPECT_GE(result.spread_ns, 0);
  auto stats = evaluator.stats();
  EXPECT_EQ(stats.compiler.compilations, 1);
  EXPECT_EQ(stats.evaluations, 1);
  EXPECT_EQ(stats.runs, 1);
  EXPECT_EQ(stats.problems, 1);
  EXPECT_EQ(stats.worker_restarts, 0);
  EXPECT_EQ(stats.arrays_restored_from_host, 0);
}

TEST_P(CudaEvaluatorTest, TheCutoffStopsTimingACandidateSlowerThanIt) {
  CudaEvaluator evaluator(options());
  const auto problem = axpy_problem();
  Evaluation cut = evaluator.submit(axpy_code(), problem, std::make_shared<Cutoff>(1.0, 1.0)).get();
  ASSERT_EQ(cut.check, Check::ok) << cut.message;
  EXPECT_EQ(cut.runs, RunPlan::kDecisive);
  EXPECT_TRUE(cut.cut_short);
  EXPECT_TRUE(cut.time_ns);
  Evaluation under =
      evaluator.submit(axpy_code(), problem, std::make_shared<Cutoff>(1.0, 1e9)).get();
  ASSERT_EQ(under.check, Check::ok) << under.message;
  EXPECT_GE(under.runs, 3);
  EXPECT_FALSE(under.cut_short);
}

TEST_P(CudaEvaluatorTest, SyntaxErrorIsACompileErrorWithTheJitLog) {
  CudaEvaluator evaluator(options());
  Evaluation result =
      evaluator.evaluate(axpy_variant("axpy", "fma.rn.f32", "frobnicate.f32"), axpy_problem());
  EXPECT_EQ(result.check, Check::compile_error);
  EXPECT_NE(result.message.find("CUDA_ERROR_INVALID_PTX"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("Not a name of any known instruction: 'frobnicate'"),
            std::string::npos)
      << result.message;
  EXPECT_FALSE(result.time_ns);
  auto stats = evaluator.stats();
  EXPECT_EQ(stats.compiler.errors, 1);
  EXPECT_EQ(stats.runs, 0);
}

TEST_P(CudaEvaluatorTest, MissingEntryPointIsACompileError) {
  CudaEvaluator evaluator(options());
  KernelCode code = axpy_code();
  code.entry = "saxpy";
  Evaluation result = evaluator.evaluate(code, axpy_problem());
  EXPECT_EQ(result.check, Check::compile_error);
  EXPECT_NE(result.message.find("no entry point 'saxpy'"), std::string::npos) << result.message;
}

TEST_P(CudaEvaluatorTest, IllegalAddressIsAFaultAndTheNextCandidateRuns) {
  CudaEvaluator evaluator(options());
  auto problem = axpy_problem();
  // x + 1 TiB: far outside any allocation.
  Evaluation fault = evaluator.evaluate(
      axpy_variant("axpy_far", "add.s64 %rd6, %rd3, %rd5;",
                   "add.s64 %rd6, %rd3, %rd5;\n    add.s64 %rd6, %rd6, 1099511627776;"),
      problem);
  EXPECT_EQ(fault.check, Check::fault);
  EXPECT_NE(fault.message.find("CUDA_ERROR_ILLEGAL_ADDRESS"), std::string::npos) << fault.message;
  EXPECT_NE(fault.message.find("during the warm-up run"), std::string::npos) << fault.message;
  EXPECT_FALSE(fault.time_ns);

  Evaluation next = evaluator.evaluate(axpy_code(), problem);
  EXPECT_EQ(next.check, Check::ok) << next.message;
  auto stats = evaluator.stats();
  EXPECT_EQ(stats.faults, 1);
  EXPECT_EQ(stats.worker_restarts, 1);
  EXPECT_EQ(stats.problems, 1);
}

TEST_P(CudaEvaluatorTest, RejectedLaunchIsAFaultThatKeepsTheWorker) {
  CudaEvaluator evaluator(options());
  auto problem = axpy_problem();
  KernelCode code = axpy_code();
  code.launch.block = {2048, 1, 1};
  Evaluation rejected = evaluator.evaluate(code, problem);
  EXPECT_EQ(rejected.check, Check::fault);
  EXPECT_NE(rejected.message.find("cuLaunchKernel rejected grid"), std::string::npos)
      << rejected.message;
  EXPECT_NE(rejected.message.find("CUDA_ERROR_INVALID_VALUE"), std::string::npos)
      << rejected.message;
  // What the JIT said about the kernel's resources comes with it.
  EXPECT_NE(rejected.message.find("registers"), std::string::npos) << rejected.message;
  EXPECT_EQ(evaluator.evaluate(axpy_code(), problem).check, Check::ok);
  EXPECT_EQ(evaluator.stats().worker_restarts, 0);
}

TEST_P(CudaEvaluatorTest, InfiniteLoopTimesOutAndTheNextCandidateRuns) {
  auto opts = options();
  opts.plan.run_timeout = milliseconds(1500);
  CudaEvaluator evaluator(opts);
  auto problem = axpy_problem();
  auto start = std::chrono::steady_clock::now();
  Evaluation result = evaluator.evaluate(ptx(kSpin, "spin", 1), problem);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(result.check, Check::timeout);
  EXPECT_NE(result.message.find("the warm-up run took longer than 1500 ms; killed"),
            std::string::npos)
      << result.message;
  EXPECT_FALSE(result.time_ns);
  // The run limit plus compilation, a worker start and the problem's upload, not more.
  EXPECT_LT(elapsed, std::chrono::seconds(15));

  Evaluation next = evaluator.evaluate(axpy_code(), problem);
  EXPECT_EQ(next.check, Check::ok) << next.message;
  auto stats = evaluator.stats();
  EXPECT_EQ(stats.timeouts, 1);
  EXPECT_EQ(stats.worker_restarts, 1);
}

TEST_P(CudaEvaluatorTest, ARunFarPastTheCutoffIsKilled) {
  auto opts = options();
  opts.plan.run_timeout = std::chrono::seconds(10);
  opts.plan.kill_floor = milliseconds(100);
  // Only the cutoff sets the limit here; what a restart costs is tested on its own.
  opts.plan.restarts_to_kill = 0;
  CudaEvaluator evaluator(opts);
  auto problem = axpy_problem();
  auto start = std::chrono::steady_clock::now();
  // Cutoff 50 ms: runs are killed at 10 cutoffs, 500 ms, not at the 10 s timeout.
  Evaluation result =
      evaluator.submit(ptx(kSpin, "spin", 1), problem, std::make_shared<Cutoff>(1.0, 50e6)).get();
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(result.check, Check::timeout);
  EXPECT_TRUE(result.cut_short);
  EXPECT_NE(result.message.find(
                "the warm-up run took longer than 500 ms (10 times the cutoff of 50 ms); killed"),
            std::string::npos)
      << result.message;
  EXPECT_LT(elapsed, std::chrono::seconds(9));
  EXPECT_EQ(evaluator.evaluate(axpy_code(), problem).check, Check::ok);
}

TEST_P(CudaEvaluatorTest, WrongResultIsWrongAndKeepsItsTime) {
  CudaEvaluator evaluator(options());
  Evaluation result = evaluator.evaluate(
      axpy_variant("axpy_wrong", "st.global.f32 [%rd7], %f4;",
                   "setp.eq.s32 %p2, %r5, 4321;\n    @%p2 add.f32 %f4, %f4, 0f3F000000;\n"
                   "    st.global.f32 [%rd7], %f4;"),
      axpy_problem());
  EXPECT_EQ(result.check, Check::wrong);
  EXPECT_NE(result.message.find("'y' (parameter 3) mismatch at index 4321"), std::string::npos)
      << result.message;
  EXPECT_NE(result.message.find("1 of 4194304 elements differ"), std::string::npos)
      << result.message;
  EXPECT_TRUE(result.time_ns);
}

TEST_P(CudaEvaluatorTest, TheLaunchConfigurationIsHonoured) {
  CudaEvaluator evaluator(options());
  KernelCode code = axpy_code();
  --code.launch.grid[0];
  Evaluation result = evaluator.evaluate(code, axpy_problem());
  EXPECT_EQ(result.check, Check::wrong);
  std::string first_missed = std::to_string(kAxpySize - static_cast<std::int32_t>(kBlock));
  EXPECT_NE(result.message.find("mismatch at index " + first_missed + ":"), std::string::npos)
      << result.message;
}

TEST_P(CudaEvaluatorTest, ScalarsOfEachTypeArePassedInOrder) {
  CudaEvaluator evaluator(options());
  Evaluation result = evaluator.evaluate(ptx(kScalars, "scalars", kScalarsSize), scalars_problem());
  EXPECT_EQ(result.check, Check::ok) << result.message;
}

TEST_P(CudaEvaluatorTest, CompilationOverlapsMeasurement) {
  CudaEvaluator evaluator(options());
  auto problem = axpy_problem();
  std::vector<std::future<Evaluation>> futures;
  constexpr int kCandidates = 8;
  for (int variant = 0; variant < kCandidates; ++variant) {
    // Distinct sources, so that each one is compiled.
    KernelCode code = axpy_code();
    code.source += "// variant " + std::to_string(variant) + "\n";
    futures.push_back(evaluator.submit(code, problem));
  }
  for (auto& future : futures) {
    Evaluation result = future.get();
    EXPECT_EQ(result.check, Check::ok) << result.message;
  }
  auto stats = evaluator.stats();
  EXPECT_EQ(stats.compiler.compilations, kCandidates);
  EXPECT_GE(stats.compiler.peak_concurrent, 2);
  EXPECT_GE(stats.compiled_while_measuring, 1);
  EXPECT_EQ(stats.runs, kCandidates);
  EXPECT_EQ(stats.evaluations, kCandidates);
  EXPECT_EQ(stats.problems, 1);
}

TEST_P(CudaEvaluatorTest, TwoProblemsAlternate) {
  CudaEvaluator evaluator(options());
  auto axpy = axpy_problem();
  auto scalars = scalars_problem();
  KernelCode scalars_code = ptx(kScalars, "scalars", kScalarsSize);
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(evaluator.evaluate(axpy_code(), axpy).check, Check::ok);
    EXPECT_EQ(evaluator.evaluate(scalars_code, scalars).check, Check::ok);
  }
  EXPECT_EQ(evaluator.stats().problems, 2);
}

INSTANTIATE_TEST_SUITE_P(Driver, CudaEvaluatorTest, testing::Values(Driver::gpu, Driver::fake),
                         [](const testing::TestParamInfo<Driver>& info) {
                           return to_string(info.param);
                         });

TEST(CudaDevice, MissingDriverIsADeviceError) {
  CudaEvaluatorOptions options;
  options.worker.driver_library = "/nonexistent/libcuda.so.1";
  std::string why;
  EXPECT_FALSE(cuda_available(&why, options.worker));
  EXPECT_EQ(why, "no CUDA driver: /nonexistent/libcuda.so.1 not found");
  try {
    CudaEvaluator evaluator(options);
    FAIL() << "constructed without a driver";
  } catch (const DeviceError& error) {
    EXPECT_EQ(std::string(error.what()), why);
  }
}

TEST(CudaDevice, NoDeviceIsADeviceError) {
  CudaEvaluatorOptions options;
  options.worker.driver_library = fake_cuda_driver();
  std::string why;
  bool available = false;
  {
    // Read by the fake driver's cuInit in the worker.
    ScopedEnvironment no_device("SCULPT_FAKE_CUDA_NO_DEVICE", "1");
    available = cuda_available(&why, options.worker);
  }
  EXPECT_FALSE(available);
  EXPECT_EQ(why, "no GPU: cuInit returned CUDA_ERROR_NO_DEVICE");
}

TEST(CudaDevice, WithoutAGpuTheDefaultDriverSaysWhy) {
  if (gpu_missing().empty()) GTEST_SKIP() << "a GPU answers here";
  EXPECT_TRUE(gpu_missing() == "no CUDA driver: libcuda.so.1 not found" ||
              gpu_missing().starts_with("no GPU: "))
      << gpu_missing();
  EXPECT_THROW(CudaEvaluator evaluator, DeviceError);
}

constexpr std::size_t kAxpyArrayBytes = kAxpySize * sizeof(float);

TEST(CudaDevice, WithoutRoomForASecondCopyTheInitialValuesComeFromHostMemory) {
  // Room for x and y, and for a copy of neither.
  ScopedEnvironment memory("SCULPT_FAKE_CUDA_MEMORY",
                           std::to_string(2 * kAxpyArrayBytes + kAxpyArrayBytes / 2));
  CudaEvaluatorOptions options;
  options.worker.driver_library = fake_cuda_driver();
  options.plan.budget = milliseconds(20);
  CudaEvaluator evaluator(options);
  const auto problem = axpy_problem();
  // The second candidate's warm-up sees y as it was before the first one's runs.
  for (int candidate = 0; candidate < 2; ++candidate) {
    Evaluation result = evaluator.evaluate(axpy_code(), problem);
    ASSERT_EQ(result.check, Check::ok) << result.message;
    EXPECT_GE(result.runs, 3);
  }
  EXPECT_EQ(evaluator.stats().arrays_restored_from_host, 2);
}

TEST(CudaDevice, InitialValuesKeptOnTheHostCountInItsMemory) {
  // No room on the GPU for a second copy of x or y, and room in host memory for one of them.
  ScopedEnvironment memory("SCULPT_FAKE_CUDA_MEMORY",
                           std::to_string(2 * kAxpyArrayBytes + kAxpyArrayBytes / 2));
  const auto problem = axpy_problem();
  // What evaluating axpy throws when the device may use `host_memory` bytes.
  auto refusal = [&](std::uint64_t host_memory) -> std::string {
    CudaEvaluatorOptions options;
    options.worker.driver_library = fake_cuda_driver();
    options.host_memory = host_memory;
    CudaEvaluator evaluator(options);
    try {
      evaluator.evaluate(axpy_code(), problem);
    } catch (const DeviceError& error) {
      return error.what();
    }
    return "no error";
  };
  const std::uint64_t data_and_results = data_bytes(*problem) + 2 * result_bytes(*problem);
  EXPECT_EQ(refusal(data_and_results + kAxpyArrayBytes),
            "cuda device: problem 'axpy' does not fit on the GPU: no room there for a second "
            "copy of 'y' (16777216 bytes), nor in the 0 bytes of host memory left");
  // Nothing left for the copies: the problem is refused before any upload, like one whose data
  // alone is too large.
  EXPECT_EQ(refusal(data_and_results - 1),
            "cuda device: problem 'axpy' needs 0.08389 GB of host memory (its arrays and "
            "expected results, and 2 of its results), more than the 0.08389 GB it may use");
}

TEST(CudaDevice, AProblemThatDoesNotFitIsADeviceError) {
  ScopedEnvironment memory("SCULPT_FAKE_CUDA_MEMORY",
                           std::to_string(kAxpyArrayBytes + kAxpyArrayBytes / 2));
  CudaEvaluatorOptions options;
  options.worker.driver_library = fake_cuda_driver();
  CudaEvaluator evaluator(options);
  try {
    evaluator.evaluate(axpy_code(), axpy_problem());
    FAIL() << "evaluated a problem larger than the GPU";
  } catch (const DeviceError& error) {
    EXPECT_EQ(std::string(error.what()),
              "cuda device: problem 'axpy' does not fit on the GPU: cuMemAlloc of 16777216 "
              "bytes for 'y' returned CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  }
}

TEST(CudaDevice, ARunIsKilledOnceItLastsTwiceWhatARestartCosts) {
  // Every worker takes 300 ms to open its context: a restart costs that and the upload.
  ScopedEnvironment slow_start("SCULPT_FAKE_CUDA_INIT_MS", "300");
  CudaEvaluatorOptions options;
  options.worker.driver_library = fake_cuda_driver();
  options.plan.budget = milliseconds(20);
  options.plan.kill_floor = milliseconds(100);
  options.plan.run_timeout = std::chrono::seconds(20);
  CudaEvaluator evaluator(options);
  const auto problem = axpy_problem();
  // A cutoff of 1 ms would kill at 100 ms; the restart that the kill costs, 300 ms and more,
  // says to wait twice that.
  const auto start = std::chrono::steady_clock::now();
  Evaluation killed =
      evaluator.submit(ptx(kSpin, "spin", 1), problem, std::make_shared<Cutoff>(1.0, 1e6)).get();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(killed.check, Check::timeout);
  EXPECT_TRUE(killed.cut_short);
  EXPECT_NE(killed.message.find("that restarting after a kill costs; the cutoff is 1 ms); killed"),
            std::string::npos)
      << killed.message;
  const auto restart = evaluator.stats().restart_cost_ns;
  EXPECT_GE(restart, 300'000'000);
  EXPECT_NE(killed.message.find(fmt::format("the warm-up run took longer than {} ms (2 times the "
                                            "{} ms",
                                            (2 * restart + 999'999) / 1'000'000,
                                            (restart + 999'999) / 1'000'000)),
            std::string::npos)
      << killed.message;
  EXPECT_LT(elapsed, std::chrono::seconds(15));
  // The next candidate runs on a new worker, whose start is measured again.
  EXPECT_EQ(evaluator.evaluate(axpy_code(), problem).check, Check::ok);
  EXPECT_EQ(evaluator.stats().worker_restarts, 1);
  EXPECT_GE(evaluator.stats().restart_cost_ns, 300'000'000);
}

// The axpy kernel, which the fake driver's JIT takes a minute to compile.
KernelCode slow_to_compile() {
  KernelCode code = axpy_code();
  code.source += std::string(kFakeSlowJitMark) + "\n";
  return code;
}

// Waits until `evaluator` has a compilation under way (at most 10 s).
void wait_for_a_compilation(const CudaEvaluator& evaluator) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (evaluator.stats().compiler.peak_concurrent == 0 &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(milliseconds(5));
  }
  // Past the count, the PTX is on its way to the worker.
  std::this_thread::sleep_for(milliseconds(100));
}

TEST(CudaDevice, CancellingStopsTheCompilationUnderWay) {
  CudaEvaluatorOptions options;
  options.worker.driver_library = fake_cuda_driver();
  options.compile_threads = 1;
  options.plan.budget = milliseconds(20);
  CudaEvaluator evaluator(options);
  const auto problem = axpy_problem();
  auto abandoned = evaluator.submit(slow_to_compile(), problem);
  wait_for_a_compilation(evaluator);
  const auto start = std::chrono::steady_clock::now();
  evaluator.cancel_waiting();
  EXPECT_THROW(abandoned.get(), std::future_error);
  // The pool's one thread is free at once, and a new worker compiles the next candidate.
  Evaluation next = evaluator.evaluate(axpy_code(), problem);
  EXPECT_EQ(next.check, Check::ok) << next.message;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  const CudaEvaluatorStats stats = evaluator.stats();
  EXPECT_EQ(stats.compiler.compilations, 1);
  EXPECT_EQ(stats.compiler.errors, 0);
  EXPECT_EQ(stats.compiler.worker_restarts, 1);
}

// Destroys `evaluator`, which must not wait for what it has under way.
void expect_destroyed_at_once(std::unique_ptr<CudaEvaluator>& evaluator) {
  const auto start = std::chrono::steady_clock::now();
  evaluator.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(CudaDevice, DestroyingStopsTheCompilationUnderWay) {
  CudaEvaluatorOptions options;
  options.worker.driver_library = fake_cuda_driver();
  options.compile_threads = 2;
  auto evaluator = std::make_unique<CudaEvaluator>(options);
  auto abandoned = evaluator->submit(slow_to_compile(), axpy_problem());
  wait_for_a_compilation(*evaluator);
  expect_destroyed_at_once(evaluator);
  EXPECT_THROW(abandoned.get(), std::future_error);
}

TEST(CudaDevice, DestroyingStopsAWorkerStillOpeningItsContext) {
  CudaEvaluatorOptions options;
  options.worker.driver_library = fake_cuda_driver();
  options.compile_threads = 1;
  auto evaluator = std::make_unique<CudaEvaluator>(options);
  // The compiling worker, forked at the first compilation, takes a minute to open its context.
  ScopedEnvironment slow_start("SCULPT_FAKE_CUDA_INIT_MS", "60000");
  auto abandoned = evaluator->submit(axpy_code(), axpy_problem());
  std::this_thread::sleep_for(milliseconds(300));
  expect_destroyed_at_once(evaluator);
  EXPECT_THROW(abandoned.get(), std::future_error);
}

TEST(CudaDevice, DestroyingStopsARunWorkerStillOpeningItsContext) {
  CudaEvaluatorOptions options;
  options.worker.driver_library = fake_cuda_driver();
  options.plan.budget = milliseconds(20);
  options.plan.kill_floor = milliseconds(100);
  auto evaluator = std::make_unique<CudaEvaluator>(options);
  const auto problem = axpy_problem();
  ASSERT_EQ(evaluator->evaluate(axpy_code(), problem).check, Check::ok);
  // A run killed at the cutoff costs the run worker; its successor takes a minute to start.
  ScopedEnvironment slow_start("SCULPT_FAKE_CUDA_INIT_MS", "60000");
  const Evaluation killed =
      evaluator->submit(ptx(kSpin, "spin", 1), problem, std::make_shared<Cutoff>(1.0, 1e6)).get();
  ASSERT_EQ(killed.check, Check::timeout) << killed.message;
  auto waiting = evaluator->submit(axpy_code(), problem);
  std::this_thread::sleep_for(milliseconds(300));
  expect_destroyed_at_once(evaluator);
  EXPECT_ANY_THROW(waiting.get());
}

TEST(CudaDevice, TheCallerNeverLoadsTheDriver) {
  CudaEvaluatorOptions options;
  options.worker.driver_library = fake_cuda_driver();
  CudaEvaluator evaluator(options);
  KernelCode code = axpy_code();
  ASSERT_EQ(evaluator.evaluate(code, axpy_problem()).check, Check::ok);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    EXPECT_EQ(line.find("libsculpt_fake_cuda"), std::string::npos) << line;
    EXPECT_EQ(line.find("libcuda"), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace sculpt::device
