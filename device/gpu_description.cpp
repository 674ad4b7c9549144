#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "device/description_of.h"
#include "device/measured_figures.h"

namespace sculpt::device {
namespace {

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

perf_model::GpuRates rates_of(const GpuCharacteristics& c) {
  const GpuAttributes& a = c.attributes;
  const GpuMeasurements& m = c.measured;
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

}  // namespace

perf_model::Description gpu_description(const GpuCharacteristics& c) {
  perf_model::Description d =
      measured_description(fmt::format("sm_{}", c.attributes.compute_capability), c.device);
  d.gpu = rates_of(c);
  return d;
}

}  // namespace sculpt::device
