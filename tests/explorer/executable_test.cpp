// sculpt::load: a found kernel run in this process on the caller's buffers and checked against a
// plain loop; from several threads at once; arguments that do not fit refused with a message. A
// GPU kernel runs the same way on the fake CUDA driver (CTest puts it first on the library path
// as libcuda.so.1), whose PTX emulator reads host memory as device memory.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

#include "explorer/sculpt.h"
#include "tests/explorer/command_test_util.h"
#ifdef SCULPT_HAVE_CUDA
#include "device/cuda_driver.h"
#include "device/cuda_evaluator.h"
#endif

namespace sculpt {
namespace {

constexpr int kM = 40, kN = 24, kK = 32;

std::vector<float> random_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = value(rng);
  return v;
}

/// C = A B, row-major, by the book.
std::vector<float> plain_matmul(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<float> c(kM * kN, 0);
  for (int m = 0; m < kM; ++m) {
    for (int n = 0; n < kN; ++n) {
      double sum = 0;
      for (int k = 0; k < kK; ++k) sum += static_cast<double>(a[m * kK + k]) * b[k * kN + n];
      c[m * kN + n] = static_cast<float>(sum);
    }
  }
  return c;
}

void expect_near_all(const std::vector<float>& got, const std::vector<float>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], expected[i], 1e-4) << "element " << i;
  }
}

Kernel found_matmul(const std::string& device, const std::filesystem::path& cache) {
  SearchOptions options;
  options.device = device;
  options.evals = 3;
  options.cache_dir = cache;
  return sculpt::search("matmul", fmt::format("{}x{}x{}", kM, kN, kK), options);
}

class Load : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cache_ = new std::filesystem::path(explorer::fresh_dir("executable"));
    kernel_ = new Kernel(found_matmul("cpu", *cache_));
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*cache_);
    delete kernel_;
    delete cache_;
  }
  static inline std::filesystem::path* cache_ = nullptr;
  static inline Kernel* kernel_ = nullptr;
};

TEST_F(Load, AFoundKernelRunsOnTheCallersBuffers) {
  ASSERT_EQ(kernel_->language, "c");
  const Executable run = load(*kernel_);
  ASSERT_EQ(run.arguments().size(), 3U);
  EXPECT_EQ(run.arguments()[0].name, "A");
  EXPECT_EQ(run.arguments()[0].shape, (std::vector<std::int64_t>{kM, kK}));
  EXPECT_EQ(run.arguments()[2].role, Parameter::Role::output);
  const std::vector<float> a = random_floats(kM * kK, 1), b = random_floats(kK * kN, 2);
  std::vector<float> c(kM * kN, NAN);
  run({a, b, c});
  expect_near_all(c, plain_matmul(a, b));
}

TEST_F(Load, RunsFromSeveralThreadsAtOnce) {
  const Executable run = load(*kernel_);
  std::vector<std::thread> threads;
  std::vector<std::vector<float>> results(4);
  for (unsigned t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      const std::vector<float> a = random_floats(kM * kK, t), b = random_floats(kK * kN, t + 10);
      std::vector<float> c(kM * kN);
      for (int i = 0; i < 20; ++i) run({a, b, c});
      results[t] = std::move(c);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (unsigned t = 0; t < results.size(); ++t) {
    expect_near_all(results[t],
                    plain_matmul(random_floats(kM * kK, t), random_floats(kK * kN, t + 10)));
  }
}

TEST_F(Load, ArgumentsThatDoNotFitAreRefused) {
  const Executable run = load(*kernel_);
  std::vector<float> a(kM * kK), b(kK * kN), c(kM * kN), small(10);
  std::vector<double> wide(kK * kN);
  const std::vector<float> constant(kM * kN);
  auto message = [&](std::initializer_list<Argument> arguments) -> std::string {
    try {
      run(arguments);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), Error::Kind::usage);
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message({a, b}),
            fmt::format("matmul {}x{}x{} takes 3 arguments (A, B, C), not 2", kM, kN, kK));
  EXPECT_NE(message({a, small, c})
                .find("argument 2 (B) holds 768 elements of f32 (3072 bytes), "
                      "not 40 bytes"),
            std::string::npos);
  EXPECT_NE(message({a, wide, c}).find("argument 2 (B) is an array of f32, not of f64"),
            std::string::npos);
  EXPECT_NE(message({a, b, constant}).find("argument 3 (C) is written by the kernel"),
            std::string::npos);
  EXPECT_NE(message({a, 2.0F, c}).find("argument 2 (B) is an array of f32, not a scalar"),
            std::string::npos);
  // A raw buffer's type is not checked, its size is.
  EXPECT_EQ(message({a, Argument::buffer(b.data(), b.size() * 4), c}), "no error");
}

TEST(LoadScalars, AScalarConvertsToItsParametersType) {
  const std::filesystem::path cache = explorer::fresh_dir("executable_scalars");
  SearchOptions options;
  options.device = "cpu";
  options.evals = 2;
  options.cache_dir = cache;
  options.definition = "def scaled(float a, float(N) X) -> (Y) { Y(i) = a * X(i) }";
  const Executable run = load(sculpt::search("", "N=100", options));
  const std::vector<float> x = random_floats(100, 5);
  std::vector<float> y(100);
  run({2.5, x, y});  // a double for a float
  for (int i = 0; i < 100; ++i) EXPECT_FLOAT_EQ(y[i], 2.5F * x[i]);
  try {
    run({x, x, y});
    ADD_FAILURE() << "an array for a scalar ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("argument 1 (a) is a scalar of f32, not an array"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(cache);
}

TEST(LoadErrors, AKernelWithoutItsParametersIsRefused) {
  Kernel made_up;
  made_up.kernel = "matmul";
  made_up.sizes = "8x8x8";
  made_up.language = "c";
  EXPECT_THROW(load(made_up), Error);
}

#ifdef SCULPT_HAVE_CUDA
TEST(LoadGpu, AGpuKernelRunsOnDeviceMemory) {
  std::string why;
  if (!device::cuda_available(&why)) GTEST_SKIP() << why;
  const std::filesystem::path cache = explorer::fresh_dir("executable_gpu");
  const Kernel kernel = found_matmul("cuda", cache);
  ASSERT_EQ(kernel.language, "ptx");
  const Executable run = load(kernel);
  // The caller's device memory, through the driver as a program would have it.
  std::optional<device::CudaContext> cuda = device::open_cuda_context("libcuda.so.1", 0, &why);
  ASSERT_TRUE(cuda) << why;
  const device::CudaDriver& driver = cuda->driver;
  const std::vector<float> a = random_floats(kM * kK, 1), b = random_floats(kK * kN, 2);
  std::vector<float> c(kM * kN, NAN);
  CUdeviceptr da = 0, db = 0, dc = 0;
  ASSERT_EQ(driver.cuMemAlloc(&da, a.size() * 4), CUDA_SUCCESS);
  ASSERT_EQ(driver.cuMemAlloc(&db, b.size() * 4), CUDA_SUCCESS);
  ASSERT_EQ(driver.cuMemAlloc(&dc, c.size() * 4), CUDA_SUCCESS);
  ASSERT_EQ(driver.cuMemcpyHtoD(da, a.data(), a.size() * 4), CUDA_SUCCESS);
  ASSERT_EQ(driver.cuMemcpyHtoD(db, b.data(), b.size() * 4), CUDA_SUCCESS);
  auto buffer = [](CUdeviceptr p, std::size_t bytes) {
    return Argument::buffer(reinterpret_cast<void*>(p), bytes);
  };
  run({buffer(da, a.size() * 4), buffer(db, b.size() * 4), buffer(dc, c.size() * 4)});
  ASSERT_EQ(driver.cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(driver.cuMemcpyDtoH(c.data(), dc, c.size() * 4), CUDA_SUCCESS);
  expect_near_all(c, plain_matmul(a, b));
  // Too small a buffer is refused before any launch.
  EXPECT_THROW(run({buffer(da, 4), buffer(db, b.size() * 4), buffer(dc, c.size() * 4)}), Error);
  for (CUdeviceptr p : {da, db, dc}) driver.cuMemFree(p);
  std::filesystem::remove_all(cache);
}
#endif

}  // namespace
}  // namespace sculpt
