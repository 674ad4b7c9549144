// `sculpt characterize --device cuda` where there is no GPU: CTest puts the fake CUDA driver
// (tests/device/cuda_fake_driver.cpp, whose PTX emulator runs the microbenchmarks) first on the
// library path as libcuda.so.1, so that the command finds it as it would the real one.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "perf_model/description.h"
#include "tests/device/fake_cuda.h"
#include "tests/explorer/command_test_util.h"
#include "tests/explorer/run_sculpt.h"

namespace sculpt::explorer {
namespace {

TEST(CudaCharacterizeCommand, WritesADescriptionThatLoads) {
  const std::filesystem::path dir = fresh_dir("cuda_characterize");
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "sm_90.json";
  const Outcome outcome =
      run_sculpt({"characterize", "--device", "cuda", "--quick", "--out", file.string()});
  ASSERT_EQ(outcome.code, kExitOk) << outcome.err;
  EXPECT_EQ(outcome.err, "");
  EXPECT_NE(outcome.out.find("gpu: Fake GPU (sm_90), measured in "), std::string::npos)
      << outcome.out;
  EXPECT_NE(outcome.out.find("\n  fp32_latency "), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("wrote " + file.string() + "\n"), std::string::npos) << outcome.out;
  // The emulator is no H100: its latencies (a clock each) are far from the shipped ones.
  EXPECT_NE(outcome.out.find("against the shipped description 'sm_90'"), std::string::npos)
      << outcome.out;
  EXPECT_NE(outcome.out.find("  differs by more than 25%"), std::string::npos) << outcome.out;

  std::string error;
  const std::optional<perf_model::Description> loaded =
      perf_model::Description::load(file.string(), &error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->name, "sm_90");
  EXPECT_EQ(loaded->about, "Fake GPU (sm_90)");
  EXPECT_FALSE(loaded->cpu);
  ASSERT_TRUE(loaded->gpu);
  EXPECT_EQ(loaded->limits_of, "sm_90");
  EXPECT_EQ(loaded->limits.to_json(), perf_model::Description::named("sm_90").limits.to_json());
  EXPECT_EQ(loaded->gpu->sms.value, 132);
  for (const perf_model::NamedFigure& f : perf_model::figures(*loaded->gpu)) {
    EXPECT_GT(f.figure->value, 0) << f.name;
  }
  std::filesystem::remove_all(dir);
}

TEST(CudaCharacterizeCommand, WithoutAGpuItSaysSoInOneLine) {
  // Read by the fake driver's cuInit in the worker.
  device::ScopedEnvironment no_device("SCULPT_FAKE_CUDA_NO_DEVICE", "1");
  const Outcome outcome = run_sculpt({"characterize", "--device", "cuda", "--quick"});
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_EQ(outcome.err, "sculpt characterize: no GPU: cuInit returned CUDA_ERROR_NO_DEVICE\n");
}

}  // namespace
}  // namespace sculpt::explorer
