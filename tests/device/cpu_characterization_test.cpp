// The CPU characterization: a quick run gives positive figures that agree with each other and
// with sysfs, within what a core of its SIMD width can do, on a machine whose cores other
// processes hold too; a compiler that does not run, flags it refuses, or an object that does not
// load are DeviceErrors.
#include "device/cpu_characterization.h"

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace sculpt::device {
namespace {

class CpuCharacterizationTest : public testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = testing::TempDir() + "sculpt-characterization-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    cache_dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(cache_dir_); }

  CpuCharacterizationOptions quick() const {
    return CpuCharacterizationOptions{.quick = true, .cache_dir = cache_dir_};
  }

  std::filesystem::path cache_dir_;
};

std::string read_word(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string word;
  in >> word;
  return word;
}

/// cpu0's data and unified caches by level, in bytes, read here independently of the code
/// under test.
std::map<int, std::int64_t> cpu0_caches() {
  std::map<int, std::int64_t> sizes;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator("/sys/devices/system/cpu/cpu0/cache", error)) {
    if (!entry.path().filename().string().starts_with("index")) continue;
    if (read_word(entry.path() / "type") == "Instruction") continue;
    const std::string size = read_word(entry.path() / "size");
    const std::int64_t kib = std::stoll(size);
    sizes[std::stoi(read_word(entry.path() / "level"))] = size.ends_with("M")   ? kib << 20
                                                          : size.ends_with("K") ? kib << 10
                                                                                : kib;
  }
  return sizes;
}

/// The clock /proc/cpuinfo gives now (not the boost clock), in Hz; 3 GHz where it gives none.
double cpuinfo_clock() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("cpu MHz")) return std::stod(line.substr(line.find(':') + 1)) * 1e6;
  }
  return 3e9;
}

TEST_F(CpuCharacterizationTest, QuickFiguresAreSelfConsistent) {
  const std::map<int, std::int64_t> sysfs = cpu0_caches();
  cpu_set_t mask;
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  if (sysfs.count(1) == 0 || sysfs.count(2) == 0 || !CPU_ISSET(0, &mask)) {
    GTEST_SKIP() << "no cache sizes for cpu0 in sysfs, or cpu0 not ours";
  }

  const CpuCharacteristics c = characterize_cpu(quick());
  EXPECT_EQ(c.cores, CPU_COUNT(&mask));
#if defined(__x86_64__)
  EXPECT_FALSE(c.model_name.empty());
  EXPECT_EQ(c.model_name.find(':'), std::string::npos) << c.model_name;
#endif
  EXPECT_TRUE(c.simd_bytes == 4 || c.simd_bytes == 16 || c.simd_bytes == 32 || c.simd_bytes == 64)
      << c.simd_bytes;

  // A core does at most two vector FMAs a clock; the clock /proc/cpuinfo gives can be below the
  // boost clock, but not by half. A quick run on a busy machine loses a lot, but not 8 times.
  const double lanes = c.simd_bytes / 4.0, clock = cpuinfo_clock();
  EXPECT_LE(c.fp32_per_second, lanes * 2 * clock * 2) << "clock " << clock;
  EXPECT_GE(c.fp32_per_second, lanes * clock / 8) << "clock " << clock;
  EXPECT_EQ(c.fp32_per_second, std::max(c.fp32_one_core, c.fp32_all_cores / c.cores));

  EXPECT_EQ(c.l1_bytes, sysfs.at(1));
  EXPECT_EQ(c.l2_bytes, sysfs.at(2));
  if (sysfs.count(3) != 0) {
    // One L3 per chiplet or socket: the whole processor's is a multiple of cpu0's.
    EXPECT_GE(c.l3_bytes, sysfs.at(3));
    EXPECT_EQ(c.l3_bytes % sysfs.at(3), 0);
  }

  const MemoryLevel* levels[] = {&c.l1, &c.l2, &c.l3, &c.dram};
  for (const MemoryLevel* level : levels) {
    EXPECT_GT(level->read, 0);
    EXPECT_GT(level->write, 0);
    EXPECT_GT(level->copy, 0);
    EXPECT_GE(level->bandwidth, std::max({level->read, level->write, level->copy}));
    EXPECT_EQ(level->bytes_per_core % 512, 0);
  }
  EXPECT_GE(c.l1.bandwidth, c.l2.bandwidth);
  EXPECT_GE(c.l2.bandwidth, c.l3.bandwidth);
  EXPECT_GE(c.l3.bandwidth, c.dram.bandwidth);
  // Above 100 MB/s and below 100 TB/s (a socket's L1s together stay under 50).
  EXPECT_GT(c.dram.bandwidth, 1e8);
  EXPECT_LT(c.l1.bandwidth, 1e14);
  // The working sets lie within their level, and DRAM's far beyond the L3.
  EXPECT_LE(c.l1.bytes_per_core, c.l1_bytes);
  EXPECT_LE(c.l2.bytes_per_core, c.l2_bytes);
  EXPECT_GT(c.l2.bytes_per_core, c.l1_bytes);
  EXPECT_LE(c.l3.bytes_per_core * c.cores, c.l3_bytes);
  EXPECT_GE(c.dram.bytes_per_core * c.cores, 2 * c.l3_bytes);

  // An empty parallel region, a fork and join of the OpenMP team: about a microsecond on an idle
  // machine; where another process keeps a core busy, a scheduler period or more (4 ms seen).
  EXPECT_GT(c.launch_floor_ns, 10);
  EXPECT_LT(c.launch_floor_ns, 1e8);
  EXPECT_GT(c.launch_runs, 0);
  // The quick mode takes under 3 s on an idle machine; tests run beside others.
  EXPECT_LT(c.seconds, 10);
}

// Other processes holding every core (a test suite beside, a build) make the team's threads wait
// for a core at every barrier. The sections are timed in CPU time, so the rates stay those of the
// machine: each level at least as fast as DRAM, the fp32 rate as above. Timed in wall time, a
// section of one pass held up by a scheduler period gave an L1 of 4 MB/s.
TEST_F(CpuCharacterizationTest, OtherProcessesHoldingEveryCoreDoNotLowerTheRates) {
  cpu_set_t mask;
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  std::vector<pid_t> busy;
  for (int i = 0; i <= CPU_COUNT(&mask); ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      volatile unsigned n = 0;
      for (;;) n = n + 1;
    }
    busy.push_back(pid);
  }
  CpuCharacteristics c;
  try {
    c = characterize_cpu(quick());
  } catch (...) {
    for (pid_t pid : busy) kill(pid, SIGKILL);
    for (pid_t pid : busy) waitpid(pid, nullptr, 0);
    throw;
  }
  for (pid_t pid : busy) kill(pid, SIGKILL);
  for (pid_t pid : busy) waitpid(pid, nullptr, 0);

  EXPECT_GT(c.others_busy, kBusyShare) << "the busy processes were seen";
  const double lanes = c.simd_bytes / 4.0, clock = cpuinfo_clock();
  EXPECT_GE(c.fp32_per_second, lanes * clock / 8) << "clock " << clock;
  for (const MemoryLevel* level : {&c.l1, &c.l2, &c.l3}) {
    for (double rate : {level->read, level->write, level->copy}) {
      EXPECT_GE(rate, c.dram.bandwidth / 4) << level->bytes_per_core << " bytes per core";
    }
  }
  EXPECT_GT(c.dram.bandwidth, 1e8);
}

TEST_F(CpuCharacterizationTest, ACompilerThatDoesNotRunIsADeviceError) {
  CpuCharacterizationOptions options = quick();
  options.compiler = "/nonexistent/cc";
  try {
    characterize_cpu(options);
    FAIL() << "no error";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("the C compiler '/nonexistent/cc' does not run"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(CpuCharacterizationTest, CodeThatDoesNotCompileIsADeviceError) {
  CpuCharacterizationOptions options = quick();
  options.compiler = "cc";
  options.flags.push_back("-fno-such-option-sculpt");
  try {
    characterize_cpu(options);
    FAIL() << "no error";
  } catch (const DeviceError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("cpu characterization: 'cc' cannot compile the microbenchmarks: ", 0), 0u)
        << what;
    EXPECT_NE(what.find("-fno-such-option-sculpt"), std::string::npos) << what;
  }
}

// The benchmarks' process reports what went wrong there: here, an object that does not load.
TEST_F(CpuCharacterizationTest, AnObjectThatDoesNotLoadIsADeviceError) {
  const std::filesystem::path fake = cache_dir_ / "fake-cc";
  std::ofstream(fake) << "#!/bin/sh\n"
                         "if [ \"$1\" = --version ]; then echo fake-cc 1.0; exit 0; fi\n"
                         "for a; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
                         ": > \"$out\"\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  CpuCharacterizationOptions options = quick();
  options.compiler = fake.string();
  options.cache_dir = cache_dir_ / "cache";
  try {
    characterize_cpu(options);
    FAIL() << "no error";
  } catch (const DeviceError& e) {
    EXPECT_EQ(
        std::string(e.what()).rfind("cpu characterization: cannot load the microbenchmarks: ", 0),
        0u)
        << e.what();
  }
}

}  // namespace
}  // namespace sculpt::device
