#include "search/device_description.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "device/c_compiler.h"
#include "support/atomic_file.h"
#include "support/file_lock.h"
#include "support/input_file.h"

namespace sculpt::search {
namespace {

/// Today, UTC: "2025-06-01".
std::string today() {
  const std::chrono::year_month_day day{
      std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now())};
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(day.year()),
                     static_cast<unsigned>(day.month()), static_cast<unsigned>(day.day()));
}

/// `x` to four significant digits, rounded up (a rate) or down (the launch floor), so that the
/// bound stays valid.
double round_outward(double x, bool up) {
  const int exponent = static_cast<int>(std::floor(std::log10(x))) - 3;
  const double scaled = x / std::pow(10.0, exponent);
  return std::stod(fmt::format("{}e{}", up ? std::ceil(scaled) : std::floor(scaled), exponent));
}

/// "16 KiB", "8 MiB": a working set.
std::string format_bytes(std::int64_t bytes) {
  if (bytes >= (std::int64_t{1} << 20)) return fmt::format("{:.4g} MiB", bytes / 1048576.0);
  return fmt::format("{:.4g} KiB", bytes / 1024.0);
}

std::string level_source(const device::MemoryLevel& level, const device::CpuCharacteristics& c,
                         const char* larger, const std::string& how) {
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

perf_model::CpuRates rates_of(const device::CpuCharacteristics& c) {
  // A busy machine gives low rates: the figures say so.
  const std::string when =
      "sculpt characterize, " + today() +
      (c.others_busy > device::kBusyShare
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

#ifdef SCULPT_HAVE_CUDA
/// The share of a random L2 chase's average latency that a near-partition hit takes at least.
constexpr double kL2NearShare = 0.75;

/// The smallest power of two not below `x`: an SM's units come in powers of two, and what the
/// loop around a benchmark takes keeps a measured rate below them.
double power_of_two_above(double x) { return std::exp2(std::ceil(std::log2(x))); }

/// A latency in whole clocks, a lower bound: a chain of `links` links, whose end clock may be
/// read as soon as the last link issues, lasts at least `links` - 1 latencies; the loop around
/// it adds less than a clock a link, which rounding down takes off (the 1e-9, floating-point
/// error). A link takes a clock at least.
double whole_clocks(double per_link, int links) {
  return std::max(1.0, std::floor(per_link * links / (links - 1) + 1e-9));
}

perf_model::GpuRates rates_of(const device::GpuCharacteristics& c) {
  const device::GpuAttributes& a = c.attributes;
  const device::GpuMeasurements& m = c.measured;
  const std::string when = fmt::format("{}, sculpt characterize, {}", c.device, today());
  auto driver = [&](const char* attribute, double value) {
    return perf_model::Figure{value, fmt::format("measured: cuDeviceGetAttribute(CU_DEVICE_"
                                                 "ATTRIBUTE_{}) of {}",
                                                 attribute, when)};
  };
  const std::string best = fmt::format("the best of {} launches", m.runs);
  const std::string block =
      fmt::format("one block of {} threads, %clock64 read at barriers around the loop, {}",
                  m.block_threads, best);
  auto per_clock = [&](double measured, std::string_view what) {
    return perf_model::Figure{
        power_of_two_above(measured),
        fmt::format("measured: {:.4g} warp {} per clock of one SM, rounded up to a power of two; "
                    "{}, {}",
                    measured, what, block, when)};
  };
  auto latency = [&](double measured, std::string_view what) {
    return perf_model::Figure{
        whole_clocks(measured, m.chain_ops),
        fmt::format("measured: {:.4g} clocks a link of a chain of {} dependent {} (%clock64 "
                    "around it, {}), taken over one link fewer (the end may be read before the "
                    "last link is done) and rounded down to whole clocks, {}",
                    measured, m.chain_ops, what, best, when)};
  };
  const perf_model::GpuRates shipped = *perf_model::Description::named("sm_90").gpu;
  auto copied = [](const perf_model::Figure& f) {
    return perf_model::Figure{f.value, f.source + " (not measured: the shipped sm_90's)"};
  };
  const std::string timed = fmt::format(
      "timed with CUDA events around one launch less the launch floor, {}, rounded up, {}", best,
      when);

  perf_model::GpuRates r;
  r.sms = driver("MULTIPROCESSOR_COUNT", a.sms);
  r.clock_hz = {
      round_outward(std::max(m.clock_hz, a.clock_hz), true),
      fmt::format("measured: the larger of {:.4g} Hz reached under load (%clock64 over "
                  "%globaltimer around a dependent fp32 chain of {:.3g} ms, the fastest of {}) "
                  "and {:.4g} Hz, cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE), rounded "
                  "up, {}",
                  m.clock_hz, 1e3 * m.clock_seconds, m.runs, a.clock_hz, when)};
  r.warp_size = driver("WARP_SIZE", a.warp_size);
  const double issued = std::max({m.mix_per_clock, m.fp32_per_clock, m.fp64_per_clock,
                                  m.special_per_clock, m.loads_per_clock});
  r.issue_per_clock = {
      power_of_two_above(issued),
      fmt::format("measured: {:.4g} warp instructions per clock of one SM, the most of a mix of "
                  "two fma.rn.f32 to one fma.rn.f64 ({:.4g}) and of the pipes' own (each warp "
                  "instruction is issued once), rounded up to a power of two; {}, {}",
                  issued, m.mix_per_clock, block, when)};
  r.fp32_per_clock = per_clock(m.fp32_per_clock, "fma.rn.f32 of 8 independent chains a thread");
  r.fp64_per_clock = per_clock(m.fp64_per_clock, "fma.rn.f64 of 8 independent chains a thread");
  r.special_per_clock =
      per_clock(m.special_per_clock, "ex2.approx.ftz.f32 of 8 independent chains a thread");
  r.memory_per_clock =
      per_clock(m.loads_per_clock, "ld.shared.f32 of consecutive words (a wavefront each)");
  r.fp32_latency = latency(m.fp32_latency, "fma.rn.f32 in one thread");
  r.fp64_latency = latency(m.fp64_latency, "fma.rn.f64 in one thread");
  r.special_latency = latency(m.special_latency, "ex2.approx.ftz.f32 in one thread");
  r.shared_latency = latency(m.shared_latency, "ld.shared.u32 of a pointer chase in one thread");
  r.global_latency = latency(m.global_latency,
                             "ld.global.ca.u64 of a pointer chase in one thread over 32 lines it "
                             "walked just before, so L1 hits");
  // A random chase averages hits in the near and the far partitions of L2; a load that lands in
  // the near one returns sooner, so the bound takes three quarters of the average.
  r.l2_latency = latency(kL2NearShare * m.l2_latency,
                         fmt::format("three quarters of {:.4g}, ld.global.cg.u64 (cached in L2, "
                                     "not L1) of a pointer chase in one thread over {} of 128-byte "
                                     "lines in a random cycle it walked just before, so L2 hits "
                                     "averaged over its near and far partitions",
                                     m.l2_latency, format_bytes(m.l2_chase_bytes)));
  r.barrier_latency = latency(m.barrier_latency, "bar.sync in a block of one warp");
  const double l1 = std::max(m.shared_bytes_per_clock, m.l1_bytes_per_clock);
  r.l1_bytes_per_clock = {
      power_of_two_above(l1),
      fmt::format("measured: the more of {:.4g} (ld.shared.v4.f32) and {:.4g} (ld.global.ca.v4.f32 "
                  "of 32 KiB that stay in L1) bytes per clock of one SM, rounded up to a power of "
                  "two; {}, {}",
                  m.shared_bytes_per_clock, m.l1_bytes_per_clock, block, when)};
  r.sector_bytes = copied(shipped.sector_bytes);
  r.shared_banks = copied(shipped.shared_banks);
  r.l2_bytes = driver("L2_CACHE_SIZE", static_cast<double>(a.l2_bytes));
  r.l2_bandwidth = {round_outward(m.l2_read, true),
                    fmt::format("measured: {} reads of {} (ld.global.cg: through L2, not L1), {}",
                                m.l2_passes, format_bytes(m.l2_bytes), timed)};
  r.dram_bandwidth = {
      round_outward(std::max(m.dram_read, m.dram_copy), true),
      fmt::format("measured: the faster of a streaming read ({:.4g} B/s) of {} and a copy of its "
                  "first half to its second ({:.4g} B/s, bytes read and written), {}",
                  m.dram_read, format_bytes(m.dram_bytes), m.dram_copy, timed)};
  r.max_threads_per_sm = driver("MAX_THREADS_PER_MULTIPROCESSOR", a.max_threads_per_sm);
  r.max_blocks_per_sm = driver("MAX_BLOCKS_PER_MULTIPROCESSOR", a.max_blocks_per_sm);
  r.registers_per_sm = driver("MAX_REGISTERS_PER_MULTIPROCESSOR", a.registers_per_sm);
  r.max_registers_per_thread = copied(shipped.max_registers_per_thread);
  r.shared_bytes_per_sm = driver("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR", a.shared_bytes_per_sm);
  r.launch_floor_ns = {
      round_outward(m.launch_floor_ns, false),
      fmt::format("measured: the fastest of {} launches of an empty kernel, each timed with CUDA "
                  "events around it as the CUDA device times a candidate's run, rounded down, {}",
                  m.launch_runs, when)};
  r.block_rate = {
      round_outward(m.block_rate, true),
      fmt::format("measured: blocks started per second, {} blocks of {} threads of an empty "
                  "kernel, {}",
                  m.rate_blocks, m.rate_threads, timed)};
  return r;
}
#endif

/// Where this machine's measured description is kept between searches (beside the compiler's
/// cache, not in it: trimming it would lose the description). The number changes with the way
/// measurements are taken or become figures (rates_of), so that an older file is measured again
/// (3: sections timed in CPU time, as version 2's, taken on a busy machine, could be far off).
std::filesystem::path cached_cpu_path() {
  return device::CCompiler::default_cache_dir().parent_path() / "cpu-description-3.json";
}

/// The cached description of this machine, if it is one.
std::optional<perf_model::Description> cached_cpu_description() {
  const std::filesystem::path path = cached_cpu_path();
  std::string error;
  const std::optional<std::string> text =
      support::read_input_file(path, std::uintmax_t{1} << 20, &error);
  if (!text) return std::nullopt;
  std::optional<perf_model::Description> d =
      perf_model::Description::parse(*text, path.string(), &error);
  if (!d || !d->cpu || d->about != device::cpu_identity()) return std::nullopt;
  return d;
}

}  // namespace

perf_model::Description cpu_description(const device::CpuCharacteristics& c) {
  perf_model::Description d;
  d.name = "cpu";
  d.about = c.identity;
  d.limits = perf_model::Description::named("sm_90").limits;
  d.limits_of = "sm_90";
  d.cpu = rates_of(c);
  return d;
}

#ifdef SCULPT_HAVE_CUDA
perf_model::Description gpu_description(const device::GpuCharacteristics& c) {
  perf_model::Description d;
  d.name = fmt::format("sm_{}", c.attributes.compute_capability);
  d.about = c.device;
  d.limits = perf_model::Description::named("sm_90").limits;
  d.limits_of = "sm_90";
  d.gpu = rates_of(c);
  return d;
}
#endif

std::optional<perf_model::Description> device_description(std::string_view device,
                                                          const std::string& requested,
                                                          std::string* error,
                                                          std::string_view model) {
  if (!requested.empty()) return perf_model::Description::load(requested, error);
  // GPUs of one architecture differ in their memories (an H200's DRAM is a third faster than
  // an H100's): a description of the very GPU comes first.
  if (device != "cpu") {
    if (std::optional<perf_model::Description> own = perf_model::Description::of_gpu(model))
      return own;
  }
  // The stand-in device (search/stand_in_device.h) stands in for a GPU.
  if (device == "cuda" || device == "stand-in") return perf_model::Description::named("sm_90");
  if (device != "cpu") {
    const std::vector<std::string> shipped = perf_model::Description::shipped();
    if (std::find(shipped.begin(), shipped.end(), device) != shipped.end()) {
      return perf_model::Description::named(device);
    }
    *error = fmt::format(
        "sculpt ships no description of {} GPUs for its performance model: measure this one with "
        "`sculpt characterize --device cuda --out FILE`, then search with --description FILE",
        device);
    return std::nullopt;
  }
  if (std::optional<perf_model::Description> cached = cached_cpu_description()) return cached;
  // Processes that start together (a test suite's, two searches) would each measure, each
  // slowing the others' measurements: one measures, the others wait and read its description.
  std::error_code ignored;
  std::filesystem::create_directories(cached_cpu_path().parent_path(), ignored);
  const support::FileLock measuring(cached_cpu_path().string() + ".lock");
  if (std::optional<perf_model::Description> cached = cached_cpu_description()) return cached;
  spdlog::warn("measuring this machine's CPU for the performance model (once; kept in {})",
               cached_cpu_path().string());
  try {
    const device::CpuCharacteristics c = device::characterize_cpu();
    if (c.others_busy > device::kBusyShare) {
      spdlog::warn(
          "other work kept the CPUs {:.0f}% busy while measuring: the bounds may be too "
          "high; sculpt characterize --device cpu --out {} measures again",
          100 * c.others_busy, cached_cpu_path().string());
    }
    perf_model::Description d = cpu_description(c);
    try {
      support::write_atomically(cached_cpu_path(), d.to_json(), fmt::format("{}", getpid()));
    } catch (const std::exception& e) {
      spdlog::warn("cannot keep the CPU's description: {}", e.what());
    }
    return d;
  } catch (const device::DeviceError& e) {
    *error = e.what();
    return std::nullopt;
  }
}

}  // namespace sculpt::search
