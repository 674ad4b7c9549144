#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "device/description_of.h"
#include "device/measured_figures.h"

namespace sculpt::device {
namespace {

std::string level_source(const MemoryLevel& level, const CpuCharacteristics& c, const char* larger,
                         const std::string& how) {
  const double fastest = std::max({level.read, level.write, level.copy});
  return fmt::format(
      "measured: {} per core on {} cores, 64-byte vectors, half again the fastest of read "
      "({:.4g}), "
      "write ({:.4g}) and copy ({:.4g}) bytes/s{}, {}",
      format_bytes(level.bytes_per_core), c.cores, level.read, level.write, level.copy,
      level.bandwidth > fastest ? fmt::format(", raised to the {}'s", larger) : "", how);
}

/// Other work on the machine (other processes; other guests of a virtual machine: DRAM reads
/// here measured anywhere from 17 to 57 GB/s) slows what a measurement sees, so that a candidate
/// measured at a quieter time can beat it: the description takes the bandwidths half again as
/// high and the launch floor half as long, which keeps the bound valid at the cost of a little
/// sharpness. The peak fp32 rate, measured on one core as well, is steady: it stays as measured.
constexpr double kBandwidthMargin = 1.5;
constexpr double kFloorMargin = 0.5;

perf_model::CpuRates rates_of(const CpuCharacteristics& c) {
  // A busy machine gives low rates: the figures say so.
  const std::string when =
      "sculpt characterize, " + today() +
      (c.others_busy > kBusyShare
           ? fmt::format(", the CPUs {:.0f}% busy with other work", 100 * c.others_busy)
           : "");
  const std::string timed = fmt::format(
      "each the fastest of up to {} sections of {:g} ms or more of CPU time in {} round{}, {}",
      c.sections, c.section_seconds * 1e3 / 2, c.rounds, c.rounds == 1 ? "" : "s", when);
  perf_model::CpuRates r;
  r.cores = {static_cast<double>(c.cores),
             "measured: the CPUs in the process's affinity mask, " + when};
  r.fp32_per_second = {
      round_outward(c.fp32_per_second, true),
      fmt::format("measured: FMAs of 10 independent chains of 16-, 32- and 64-byte vectors (the "
                  "fastest; {}-byte registers seen), on one core ({:.4g}/s) and on {} cores "
                  "({:.4g}/s), per core the larger, {}",
                  c.simd_bytes, c.fp32_one_core, c.cores, c.fp32_all_cores, timed)};
  r.l1_bytes = {static_cast<double>(c.l1_bytes),
                "measured: sysfs (/sys/devices/system/cpu/cpuN/cache), the level 1 data cache of "
                "the first CPU of the affinity mask, " +
                    when};
  r.l2_bytes = {
      static_cast<double>(c.l2_bytes),
      "measured: sysfs, the level 2 cache of the first CPU of the affinity mask, " + when};
  r.l3_bytes = {static_cast<double>(c.l3_bytes),
                "measured: sysfs, every distinct level 3 cache of the CPUs of the affinity mask "
                "together, " +
                    when};
  r.l1_bandwidth = {round_outward(c.l1.bandwidth * kBandwidthMargin, true),
                    level_source(c.l1, c, "L2", timed)};
  r.l2_bandwidth = {round_outward(c.l2.bandwidth * kBandwidthMargin, true),
                    level_source(c.l2, c, "L3", timed)};
  r.l3_bandwidth = {round_outward(c.l3.bandwidth * kBandwidthMargin, true),
                    level_source(c.l3, c, "DRAM", timed)};
  r.dram_bandwidth = {round_outward(c.dram.bandwidth * kBandwidthMargin, true),
                      level_source(c.dram, c, "", timed)};
  r.launch_floor_ns = {
      round_outward(c.launch_floor_ns * kFloorMargin, false),
      fmt::format(
          "measured: half the fastest of {} runs of an empty OpenMP parallel region ({:.4g} "
          "ns), timed as the CPU device times a candidate's run, {}",
          c.launch_runs, c.launch_floor_ns, when)};
  return r;
}

}  // namespace

perf_model::Description cpu_description(const CpuCharacteristics& c) {
  perf_model::Description d = measured_description("cpu", c.identity);
  d.cpu = rates_of(c);
  return d;
}

}  // namespace sculpt::device
