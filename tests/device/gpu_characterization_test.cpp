// The GPU characterization twice: on the fake driver in quick mode (label unit), its
// microbenchmarks run on the PTX emulator, whose clock counts a thread's instructions, so that
// the whole of it, process, PTX and description, is tested without a GPU; and in full on a GPU
// (label gpu, skipped where none answers), where its description must be near the shipped sm_90.
#include "device/gpu_characterization.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>

#include "device/cuda_evaluator.h"
#include "device/description_of.h"
#include "perf_model/description.h"
#include "tests/device/fake_cuda.h"

namespace sculpt::device {
namespace {

class GpuCharacterizationTest : public testing::TestWithParam<Driver> {
 protected:
  void SetUp() override {
    if (GetParam() == Driver::fake) {
      ASSERT_TRUE(std::filesystem::exists(fake_cuda_driver()))
          << fake_cuda_driver() << " not built";
      return;
    }
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no GPU to test on: " << why;
  }

  GpuCharacterizationOptions options() const {
    GpuCharacterizationOptions options;
    if (GetParam() == Driver::fake) {
      options.quick = true;
      options.worker.driver_library = fake_cuda_driver();
    }
    return options;
  }
};

/// The figures no benchmark measures, copied from the shipped sm_90.
bool copied(std::string_view figure) {
  return figure == "sector_bytes" || figure == "shared_banks" ||
         figure == "max_registers_per_thread";
}

TEST_P(GpuCharacterizationTest, EveryFigureIsPositiveAndConsistent) {
  const GpuCharacteristics c = characterize_gpu(options());
  const GpuAttributes& a = c.attributes;
  const GpuMeasurements& m = c.measured;
  EXPECT_TRUE(c.device.ends_with(fmt::format(" (sm_{})", a.compute_capability))) << c.device;
  EXPECT_GE(a.compute_capability, 90);
  EXPECT_EQ(a.warp_size, 32);
  for (int attribute : {a.sms, a.max_threads_per_sm, a.max_blocks_per_sm, a.registers_per_sm,
                        a.shared_bytes_per_sm}) {
    EXPECT_GT(attribute, 0);
  }
  EXPECT_GT(a.l2_bytes, 0);
  EXPECT_GT(c.seconds, 0);
  EXPECT_LT(c.seconds, 180);

  EXPECT_GT(m.clock_hz, 0);
  EXPECT_GT(m.clock_seconds, 0);
  // A link of a dependent chain takes a clock at least.
  for (double latency : {m.fp32_latency, m.fp64_latency, m.special_latency, m.shared_latency,
                         m.global_latency, m.l2_latency, m.barrier_latency}) {
    EXPECT_GE(latency, 1);
  }
  EXPECT_EQ(m.l2_chase_bytes, std::int64_t{m.chain_ops} * 128);
  // An SM issues no more warp instructions a clock than the block has warps; the issue rate is
  // at least each pipe's.
  const double warps = static_cast<double>(m.block_threads) / a.warp_size;
  for (double rate : {m.fp32_per_clock, m.fp64_per_clock, m.special_per_clock, m.mix_per_clock,
                      m.loads_per_clock}) {
    EXPECT_GT(rate, 0);
    EXPECT_LE(rate, warps);
  }
  for (double bytes : {m.shared_bytes_per_clock, m.l1_bytes_per_clock}) {
    EXPECT_GT(bytes, 0);
    EXPECT_LE(bytes, warps * 512);  // a v4 load of 16 bytes a lane a clock
  }
  EXPECT_GT(m.dram_bytes, m.l2_bytes);
  for (double rate : {m.dram_read, m.dram_copy, m.l2_read}) EXPECT_GT(rate, 0);
  EXPECT_GT(m.launch_floor_ns, 0);
  EXPECT_GT(m.launch_runs, 0);
  EXPECT_GT(m.block_rate, 0);
  EXPECT_TRUE(std::isfinite(m.block_rate));
  EXPECT_GT(m.rate_blocks, 0u);
  EXPECT_EQ(m.rate_threads, 32u);

  const perf_model::Description d = device::gpu_description(c);
  EXPECT_EQ(d.name, fmt::format("sm_{}", a.compute_capability));
  ASSERT_TRUE(d.gpu);
  EXPECT_GE(d.gpu->issue_per_clock.value, d.gpu->fp32_per_clock.value);
  // Written and read back as `sculpt characterize --out` and a search would.
  std::string error;
  const std::optional<perf_model::Description> loaded =
      perf_model::Description::parse(d.to_json(), "measured.json", &error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_EQ(loaded->to_json(), d.to_json());
  for (const perf_model::NamedFigure& f : perf_model::figures(*loaded->gpu)) {
    EXPECT_EQ(f.figure->source.starts_with("measured: "), !copied(f.name))
        << f.name << ": " << f.figure->source;
    EXPECT_GT(f.figure->value, 0) << f.name;
    EXPECT_TRUE(std::isfinite(f.figure->value)) << f.name;
  }

  if (GetParam() == Driver::fake) {
    // The fake driver's H100 and the emulator's clocks: one per instruction a thread executes,
    // as many nanoseconds.
    EXPECT_EQ(c.device, "Fake GPU (sm_90)");
    EXPECT_EQ(a.sms, 132);
    EXPECT_EQ(a.l2_bytes, 52428800);
    EXPECT_EQ(a.clock_hz, 1.98e9);
    EXPECT_NEAR(m.clock_hz, 1e9, 1e6);
    // A link is an instruction, and the loop's own three are spread over its 64 links.
    for (double latency : {m.fp32_latency, m.fp64_latency, m.special_latency, m.shared_latency,
                           m.global_latency, m.l2_latency, m.barrier_latency}) {
      EXPECT_LT(latency, 1.1);
    }
    EXPECT_EQ(d.gpu->fp32_latency.value, 1);
    EXPECT_EQ(d.gpu->l2_latency.value, 1);
    EXPECT_EQ(d.gpu->clock_hz.value, 1.98e9);  // the driver's, the larger
    return;
  }

  // Within a factor of 2 of the shipped figure. The shipped estimates (sources "estimate: ")
  // are on the safe side of published measurements on purpose, a latency or launch floor below
  // them and a rate above: only their other side is checked.
  const perf_model::Description shipped = perf_model::Description::named("sm_90");
  const std::vector<perf_model::NamedFigure> expected = perf_model::figures(*shipped.gpu);
  const std::vector<perf_model::NamedFigure> measured = perf_model::figures(*d.gpu);
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const double ratio = measured[i].figure->value / expected[i].figure->value;
    const bool estimate = expected[i].figure->source.starts_with("estimate: ");
    const bool lower_bound =
        measured[i].name.ends_with("_latency") || measured[i].name == "launch_floor_ns";
    if (!estimate || lower_bound) {
      EXPECT_GE(ratio, 0.5) << measured[i].name;
    }
    if (!estimate || !lower_bound) {
      EXPECT_LE(ratio, 2) << measured[i].name;
    }
  }
  EXPECT_GE(m.dram_bytes, 8 * a.l2_bytes);
  // An L2 hit takes longer than an L1 hit.
  EXPECT_GT(m.l2_latency, m.global_latency);
}

INSTANTIATE_TEST_SUITE_P(Driver, GpuCharacterizationTest,
                         testing::Values(Driver::gpu, Driver::fake),
                         [](const testing::TestParamInfo<Driver>& info) {
                           return to_string(info.param);
                         });

TEST(GpuCharacterization, WithoutADriverItSaysSo) {
  GpuCharacterizationOptions options;
  options.worker.driver_library = "/nonexistent/libcuda.so.1";
  try {
    characterize_gpu(options);
    FAIL() << "characterized without a driver";
  } catch (const DeviceError& error) {
    EXPECT_EQ(std::string(error.what()), "no CUDA driver: /nonexistent/libcuda.so.1 not found");
  }
}

TEST(GpuCharacterization, WithoutAGpuItSaysSo) {
  GpuCharacterizationOptions options;
  options.quick = true;
  options.worker.driver_library = fake_cuda_driver();
  // Read by the fake driver's cuInit in the worker.
  ScopedEnvironment no_device("SCULPT_FAKE_CUDA_NO_DEVICE", "1");
  try {
    characterize_gpu(options);
    FAIL() << "characterized without a GPU";
  } catch (const DeviceError& error) {
    EXPECT_EQ(std::string(error.what()), "no GPU: cuInit returned CUDA_ERROR_NO_DEVICE");
  }
}

TEST(GpuCharacterization, WhatCannotBeAllocatedIsOneLine) {
  GpuCharacterizationOptions options;
  options.quick = true;
  options.worker.driver_library = fake_cuda_driver();
  // Room for the small buffers, not for the quick mode's 256 KiB "DRAM" one.
  ScopedEnvironment memory("SCULPT_FAKE_CUDA_MEMORY", "100000");
  try {
    characterize_gpu(options);
    FAIL() << "characterized without the memory";
  } catch (const DeviceError& error) {
    EXPECT_EQ(std::string(error.what()),
              "gpu characterization: cuMemAlloc of 262144 bytes returned "
              "CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  }
}

}  // namespace
}  // namespace sculpt::device
