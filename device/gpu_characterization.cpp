#include "device/gpu_characterization.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "device/cuda_channel.h"
#include "device/cuda_driver.h"
#include "device/evaluator.h"

namespace sculpt::device {
namespace {

/// The full mode takes seconds on an H100: only a hung kernel or driver takes this long.
constexpr std::chrono::minutes kTimeLimit{3};

/// Links of a chain per loop iteration: enough that the loop's own instructions hardly count.
constexpr int kUnroll = 64;
/// The throughput benchmarks' one block: 32 warps, 8 per scheduler of an SM.
constexpr std::uint32_t kBlockThreads = 1024;
/// The global pointer chase walks this many 128-byte lines, 4 KiB in all: L1 holds them.
constexpr int kChaseLines = 32;
constexpr int kLineBytes = 128;
/// The L2 pointer chase: as many lines as the chain has links (512 KiB in full mode, well
/// within the L2), in a random cycle, so that no prefetch guesses the next line.
constexpr std::uint64_t kL2ChaseSeed = 0x5c0197;
/// The block rate's empty kernel: blocks of one warp.
constexpr std::uint32_t kRateThreads = 32;
/// The load benchmarks read 4 rows of this many bytes in turn (one row per loop iteration, so
/// that no load repeats an address of its iteration and none is loop-invariant for the compiler
/// to hoist): 32 KiB in all, within the 48 KiB of static shared memory a block may declare.
constexpr std::uint32_t kRowBytes = 8192;
constexpr std::uint32_t kRows = 4;
/// Each thread of a streaming kernel moves 4 vectors of 16 bytes per loop iteration.
constexpr std::int64_t kStreamBytesPerThread = 4 * 16;

std::string float_bits(float value) {
  return fmt::format("0f{:08X}", std::bit_cast<std::uint32_t>(value));
}
std::string double_bits(double value) {
  return fmt::format("0d{:016X}", std::bit_cast<std::uint64_t>(value));
}

/// fma chains converge to a fixed point with these: no overflow, no subnormals.
const std::string kScale = float_bits(0.999f);
const std::string kOffset = float_bits(0.001f);

/// `text`'s lines, each indented but labels.
std::string lines(std::string_view text) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    if (end > at) {
      out += fmt::format("{}{}\n", text[end - 1] == ':' ? "" : "    ", text.substr(at, end - at));
    }
    at = end + 1;
  }
  return out;
}

/// `text` for k from `first` to `end` - 1, `{k}` in it replaced by k.
std::string repeat(std::string_view text, int first, int end) {
  std::string out;
  for (int k = first; k < end; ++k) {
    std::string copy(text);
    for (std::size_t at; (at = copy.find("{k}")) != std::string::npos;) {
      copy.replace(at, 3, std::to_string(k));
    }
    out += copy + "\n";
  }
  return out;
}

/// An entry declaring every register a benchmark may use (%r, %rd, %f, %fd, %p).
std::string entry(std::string_view name, std::string_view params, std::string_view declarations,
                  std::string_view body) {
  return fmt::format(R"(
.visible .entry {}({})
{{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .f32 %f<40>;
    .reg .f64 %fd<32>;
{}{}    ret;
}}
)",
                     name, params, declarations, body);
}

/// `out` (u64, converted to a global address in %rd1), `data` (u64, in %rd2) and `iterations`
/// (u32, in %r1); the thread's index in %r10.
constexpr std::string_view kClockedParams =
    "\n    .param .u64 out,\n    .param .u64 data,\n    .param .u32 iterations";
constexpr std::string_view kClockedPrologue =
    "ld.param.u64 %rd1, [out];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "ld.param.u64 %rd2, [data];\n"
    "ld.param.u32 %r1, [iterations];\n"
    "mov.u32 %r10, %tid.x;\n";
/// The end of a loop over %r2 from 0 to %r1.
constexpr std::string_view kLoopEnd =
    "add.u32 %r2, %r2, 1;\n"
    "setp.lt.u32 %p1, %r2, %r1;\n"
    "@%p1 bra LOOP;\n";

/// A chain of dependent links in one thread (a warp for bar.sync).
struct Chain {
  std::string name;          ///< of the entry, sculpt_chain_<name>
  std::string declarations;  ///< beside the registers
  std::string setup;         ///< before the clocks start
  std::string link;          ///< one link
  std::string keep;          ///< stores the chain's end at [%rd1+16], so that it is computed
};

std::vector<Chain> chains() {
  // Walks the 32 lines of `data` twice before the clocks start, so that each is in L1.
  const std::string warm =
      "cvta.to.global.u64 %rd9, %rd2;\n" + repeat("ld.global.ca.u64 %rd9, [%rd9];", 0, kUnroll);
  return {
      {"fp32", "",
       "cvt.rn.f32.u32 %f1, %r10;\nmov.f32 %f2, " + kScale + ";\nmov.f32 %f3, " + kOffset + ";",
       "fma.rn.f32 %f1, %f1, %f2, %f3;", "st.global.f32 [%rd1+16], %f1;"},
      {"fp64", "",
       "cvt.rn.f64.u32 %fd1, %r10;\nmov.f64 %fd2, " + double_bits(0.999) + ";\nmov.f64 %fd3, " +
           double_bits(0.001) + ";",
       "fma.rn.f64 %fd1, %fd1, %fd2, %fd3;", "st.global.f64 [%rd1+16], %fd1;"},
      // 1, 2, 4, 16, 65536, then infinity: the special-function unit takes as long on any value.
      {"special", "", "cvt.rn.f32.u32 %f1, %r10;", "ex2.approx.ftz.f32 %f1, %f1;",
       "st.global.f32 [%rd1+16], %f1;"},
      // A cycle through the 256 words of `chase`, each holding the next one's address.
      {"shared", ".shared .align 4 .b8 chase[1024];",
       "mov.u32 %r3, chase;\n"
       "mov.u32 %r4, 0;\n"
       "FILL:\n"
       "add.u32 %r5, %r4, 1;\n"
       "rem.u32 %r5, %r5, 256;\n"
       "mad.lo.u32 %r6, %r5, 4, %r3;\n"
       "mad.lo.u32 %r7, %r4, 4, %r3;\n"
       "st.shared.u32 [%r7], %r6;\n"
       "mov.u32 %r4, %r5;\n"
       "setp.ne.u32 %p1, %r4, 0;\n"
       "@%p1 bra FILL;\n"
       "mov.u32 %r8, %r3;",
       "ld.shared.u32 %r8, [%r8];", "st.global.u32 [%rd1+16], %r8;"},
      {"global", "", warm, "ld.global.ca.u64 %rd9, [%rd9];", "st.global.u64 [%rd1+16], %rd9;"},
      // Walks the whole cycle (as many lines as links) once before the clocks start, so that
      // each line is in L2; ld.global.cg caches in L2, not L1, so each link misses L1.
      {"l2", "",
       "cvta.to.global.u64 %rd9, %rd2;\n"
       "mov.u32 %r3, 0;\n"
       "WARM:\n" +
           repeat("ld.global.cg.u64 %rd9, [%rd9];", 0, kUnroll) +
           "add.u32 %r3, %r3, 1;\n"
           "setp.lt.u32 %p1, %r3, %r1;\n"
           "@%p1 bra WARM;",
       "ld.global.cg.u64 %rd9, [%rd9];", "st.global.u64 [%rd1+16], %rd9;"},
      {"barrier", "", "", "bar.sync 0;", ""},
  };
}

/// out[0]: the clocks of the chain, out[1]: its nanoseconds.
std::string chain_kernel(const Chain& c) {
  return entry("sculpt_chain_" + c.name, kClockedParams, lines(c.declarations),
               lines(std::string(kClockedPrologue) + c.setup +
                     "\nmov.u64 %rd3, %globaltimer;\n"
                     "mov.u64 %rd4, %clock64;\n"
                     "mov.u32 %r2, 0;\n"
                     "LOOP:\n" +
                     repeat(c.link, 0, kUnroll) + std::string(kLoopEnd) +
                     "mov.u64 %rd5, %clock64;\n"
                     "mov.u64 %rd6, %globaltimer;\n"
                     "setp.ne.u32 %p2, %r10, 0;\n"
                     "@%p2 bra DONE;\n"
                     "sub.u64 %rd7, %rd5, %rd4;\n"
                     "st.global.u64 [%rd1], %rd7;\n"
                     "sub.u64 %rd8, %rd6, %rd3;\n"
                     "st.global.u64 [%rd1+8], %rd8;\n" +
                     c.keep + "\nDONE:"));
}

/// Independent chains in every thread of one block.
struct Throughput {
  std::string name;  ///< of the entry, sculpt_throughput_<name>
  std::string declarations;
  std::string setup;      ///< the chains' first values, from the thread's index %r10
  std::string iteration;  ///< the loop iteration's addresses, from the iteration %r2
  std::string body;       ///< what is counted
  std::string keep;       ///< folds the chains into 8 bytes stored at [%rd7+8]
  double work;  ///< what a warp's `body` does: warp instructions, or bytes for the v4 loads
};

/// The first values of 8 fp32 chains %f10..%f17: the thread's index, plus 0 to 7, so that no two
/// chains are the same for the compiler to merge.
std::string fp32_chains() {
  std::string out = "cvt.rn.f32.u32 %f10, %r10;\n";
  for (int k = 1; k < 8; ++k) {
    out += fmt::format("add.f32 %f1{}, %f10, {};\n", k, float_bits(static_cast<float>(k)));
  }
  return out;
}
std::string fp64_chains(int count) {
  std::string out = "cvt.rn.f64.u32 %fd10, %r10;\n";
  for (int k = 1; k < count; ++k) {
    out += fmt::format("add.f64 %fd1{}, %fd10, {};\n", k, double_bits(k));
  }
  return out;
}
const std::string kSumFp32 = repeat("add.f32 %f10, %f10, %f1{k};", 1, 8);
const std::string kConstants = "mov.f32 %f2, " + kScale + ";\nmov.f32 %f3, " + kOffset +
                               ";\nmov.f64 %fd2, " + double_bits(0.999) + ";\nmov.f64 %fd3, " +
                               double_bits(0.001) + ";\n";

/// `groups` groups of `per_group` loads of `values` floats each (`load`, with {v} what it
/// loads and {o} its byte offset, `bytes` apart) into %f20..., each followed by adds of what
/// they loaded into the 8 chains %f10..%f17: several loads in flight per warp before the first
/// add waits for its data.
std::string loads(int groups, int per_group, int values, int bytes, std::string_view load) {
  std::string out;
  for (int g = 0; g < groups; ++g) {
    for (int k = 0; k < per_group; ++k) {
      std::string line(load);
      line.replace(line.find("{o}"), 3, std::to_string((g * per_group + k) * bytes));
      std::string registers;
      for (int v = 0; v < values; ++v) {
        registers += fmt::format("{}%f{}", v == 0 ? "" : ",", 20 + k * values + v);
      }
      line.replace(line.find("{v}"), 3, values == 1 ? registers : "{" + registers + "}");
      out += line + "\n";
    }
    for (int v = 0; v < per_group * values; ++v) {
      out += fmt::format("add.f32 %f1{0}, %f1{0}, %f{1};\n", v % 8, 20 + v);
    }
  }
  return out;
}

/// The address of the iteration's row: %r7 (shared) from %r5, the lane's first byte.
const std::string kSharedRow =
    fmt::format("rem.u32 %r6, %r2, {};\nmad.lo.u32 %r7, %r6, {}, %r5;", kRows, kRowBytes);

std::vector<Throughput> throughputs() {
  // Two fp32 fmas to one fp64 fma, over 8 fp32 chains and 4 fp64 ones.
  std::string mix_round;
  for (int k = 0; k < 4; ++k) {
    mix_round += fmt::format(
        "fma.rn.f32 %f1{0}, %f1{0}, %f2, %f3;\nfma.rn.f32 %f1{1}, %f1{1}, %f2, %f3;\n"
        "fma.rn.f64 %fd1{2}, %fd1{2}, %fd2, %fd3;\n",
        2 * k, 2 * k + 1, k);
  }
  const std::string store_fp32 = kSumFp32 + "st.global.f32 [%rd7+8], %f10;";
  return {
      {"fp32", "", fp32_chains() + kConstants, "",
       repeat(repeat("fma.rn.f32 %f1{k}, %f1{k}, %f2, %f3;", 0, 8), 0, 8), store_fp32, 64},
      {"fp64", "", fp64_chains(8) + kConstants, "",
       repeat(repeat("fma.rn.f64 %fd1{k}, %fd1{k}, %fd2, %fd3;", 0, 8), 0, 8),
       repeat("add.f64 %fd10, %fd10, %fd1{k};", 1, 8) + "st.global.f64 [%rd7+8], %fd10;", 64},
      {"special", "", fp32_chains(), "",
       repeat(repeat("ex2.approx.ftz.f32 %f1{k}, %f1{k};", 0, 8), 0, 8), store_fp32, 64},
      {"mix", "", fp32_chains() + fp64_chains(4) + kConstants, "", repeat(mix_round, 0, 4),
       kSumFp32 + repeat("add.f64 %fd10, %fd10, %fd1{k};", 1, 4) +
           "cvt.f64.f32 %fd20, %f10;\nadd.f64 %fd10, %fd10, %fd20;\n"
           "st.global.f64 [%rd7+8], %fd10;",
       48},
      // Each warp reads 128 consecutive bytes: one wavefront, one word per lane.
      {"loads", fmt::format(".shared .align 16 .b8 words[{}];", kRows * kRowBytes),
       fp32_chains() + "mov.u32 %r3, words;\nrem.u32 %r4, %r10, 32;\nmad.lo.u32 %r5, %r4, 4, %r3;",
       kSharedRow, loads(8, 8, 1, 128, "ld.shared.f32 {v}, [%r7+{o}];"), store_fp32, 64},
      {"shared_v4", fmt::format(".shared .align 16 .b8 vectors[{}];", kRows * kRowBytes),
       fp32_chains() +
           "mov.u32 %r3, vectors;\nrem.u32 %r4, %r10, 32;\nmad.lo.u32 %r5, %r4, 16, %r3;",
       kSharedRow, loads(4, 4, 4, 512, "ld.shared.v4.f32 {v}, [%r7+{o}];"), store_fp32, 16 * 512},
      {"l1_v4", "",
       fp32_chains() +
           "cvta.to.global.u64 %rd9, %rd2;\nrem.u32 %r4, %r10, 32;\nmul.lo.u32 %r5, %r4, 16;\n"
           "cvt.u64.u32 %rd10, %r5;\nadd.u64 %rd9, %rd9, %rd10;",
       fmt::format("rem.u32 %r6, %r2, {};\nmul.lo.u32 %r7, %r6, {};\ncvt.u64.u32 %rd11, %r7;\n"
                   "add.u64 %rd12, %rd9, %rd11;",
                   kRows, kRowBytes),
       loads(4, 4, 4, 512, "ld.global.ca.v4.f32 {v}, [%rd12+{o}];"), store_fp32, 16 * 512},
  };
}

/// out[0]: the clocks between the barriers around the loop; out[1 + thread]: what it kept.
std::string throughput_kernel(const Throughput& t) {
  return entry("sculpt_throughput_" + t.name, kClockedParams, lines(t.declarations),
               lines(std::string(kClockedPrologue) + t.setup +
                     "\nbar.sync 0;\n"
                     "mov.u64 %rd4, %clock64;\n"
                     "mov.u32 %r2, 0;\n"
                     "LOOP:\n" +
                     t.iteration + "\n" + t.body + std::string(kLoopEnd) +
                     "bar.sync 0;\n"
                     "mov.u64 %rd5, %clock64;\n"
                     "cvt.u64.u32 %rd6, %r10;\n"
                     "mad.lo.u64 %rd7, %rd6, 8, %rd1;\n" +
                     t.keep +
                     "\nsetp.ne.u32 %p2, %r10, 0;\n"
                     "@%p2 bra DONE;\n"
                     "sub.u64 %rd8, %rd5, %rd4;\n"
                     "st.global.u64 [%rd1], %rd8;\n"
                     "DONE:"));
}

/// The streaming kernels' loop: `count` 16-byte elements of `data` (a multiple of 4 per thread
/// of the grid), each thread taking every (grid's threads)-th, 4 a loop iteration, `passes`
/// times over; `each` loads (and stores) the iteration's 4 elements at %rd9 (the first), %rd10,
/// %rd11 and %rd12, the grid's stride (%rd6 bytes) apart. The thread's index is in %r5 and %rd4.
std::string stream_kernel(std::string_view name, std::string_view last_param,
                          std::string_view setup, std::string_view each, std::string_view after) {
  return entry(
      name,
      fmt::format("\n    .param .u64 data,\n    .param .u64 count,\n    .param .u32 passes,"
                  "\n    .param .u64 {}",
                  last_param),
      "",
      lines(fmt::format("ld.param.u64 %rd1, [data];\n"
                        "cvta.to.global.u64 %rd1, %rd1;\n"
                        "ld.param.u64 %rd2, [count];\n"
                        "ld.param.u32 %r1, [passes];\n"
                        "mov.u32 %r2, %ctaid.x;\n"
                        "mov.u32 %r3, %ntid.x;\n"
                        "mov.u32 %r4, %tid.x;\n"
                        "mad.lo.u32 %r5, %r2, %r3, %r4;\n"
                        "cvt.u64.u32 %rd4, %r5;\n"
                        "mov.u32 %r6, %nctaid.x;\n"
                        "mul.lo.u32 %r7, %r6, %r3;\n"
                        "cvt.u64.u32 %rd5, %r7;\n"
                        "mul.lo.u64 %rd6, %rd5, 16;\n"
                        "mul.lo.u64 %rd7, %rd5, 4;\n"
                        "{}\n"
                        "mov.u32 %r8, 0;\n"
                        "PASS:\n"
                        "mov.u64 %rd8, %rd4;\n"
                        "mad.lo.u64 %rd9, %rd4, 16, %rd1;\n"
                        "LOOP:\n"
                        "add.u64 %rd10, %rd9, %rd6;\n"
                        "add.u64 %rd11, %rd10, %rd6;\n"
                        "add.u64 %rd12, %rd11, %rd6;\n"
                        "{}"
                        "add.u64 %rd9, %rd12, %rd6;\n"
                        "add.u64 %rd8, %rd8, %rd7;\n"
                        "setp.lt.u64 %p1, %rd8, %rd2;\n"
                        "@%p1 bra LOOP;\n"
                        "add.u32 %r8, %r8, 1;\n"
                        "setp.lt.u32 %p2, %r8, %r1;\n"
                        "@%p2 bra PASS;\n"
                        "{}",
                        setup, each, after)));
}

/// Loads of the iteration's 4 elements (ld.global.cg: through L2, not L1) into %f20..%f35.
std::string stream_loads() {
  std::string out;
  for (int k = 0; k < 4; ++k) {
    out += fmt::format("ld.global.cg.v4.f32 {{%f{},%f{},%f{},%f{}}}, [%rd{}];\n", 20 + 4 * k,
                       21 + 4 * k, 22 + 4 * k, 23 + 4 * k, 9 + k);
  }
  return out;
}

/// Reads `passes` times, summing into %f1; out[thread] keeps the sum.
std::string read_kernel() {
  return stream_kernel("sculpt_read", "out", "cvt.rn.f32.u32 %f1, %r5;",
                       stream_loads() + repeat("add.f32 %f1, %f1, %f{k};", 20, 36),
                       "ld.param.u64 %rd3, [out];\n"
                       "cvta.to.global.u64 %rd3, %rd3;\n"
                       "mad.lo.u64 %rd13, %rd4, 4, %rd3;\n"
                       "st.global.f32 [%rd13], %f1;");
}

/// Copies the elements to `to` (%rd15 bytes from them).
std::string copy_kernel() {
  std::string stores;
  for (int k = 0; k < 4; ++k) {
    stores += fmt::format(
        "add.u64 %rd14, %rd{}, %rd15;\nst.global.v4.f32 [%rd14], {{%f{},%f{},%f{},%f{}}};\n", 9 + k,
        20 + 4 * k, 21 + 4 * k, 22 + 4 * k, 23 + 4 * k);
  }
  return stream_kernel("sculpt_copy", "to",
                       "ld.param.u64 %rd15, [to];\n"
                       "cvta.to.global.u64 %rd15, %rd15;\n"
                       "sub.u64 %rd15, %rd15, %rd1;",
                       stream_loads() + stores, "");
}

/// How much each benchmark does.
struct Sizes {
  int runs;  ///< launches of each benchmark, the best kept
  std::uint32_t chain_iterations;
  std::uint32_t clock_iterations;  ///< of the fp32 chain the clock is measured on
  std::uint32_t throughput_iterations;
  std::uint32_t stream_blocks;
  std::uint32_t stream_threads;
  std::uint32_t rate_blocks;  ///< of the empty kernel the block rate is measured on
  std::int64_t dram_bytes;
  std::int64_t l2_bytes;
  int l2_passes;
  int floor_runs;
};

Sizes sizes_of(bool quick, const GpuAttributes& a) {
  if (quick) {
    // The clock's chain lasts some 30 us on a GPU: %globaltimer may count in microseconds.
    return {.runs = 2,
            .chain_iterations = 2,
            .clock_iterations = 256,
            .throughput_iterations = 1,
            .stream_blocks = 4,
            .stream_threads = 128,
            .rate_blocks = 256,
            .dram_bytes = 8 * 512 * kStreamBytesPerThread,
            .l2_bytes = 2 * 512 * kStreamBytesPerThread,
            .l2_passes = 2,
            .floor_runs = 20};
  }
  Sizes s{.runs = 10,
          .chain_iterations = 64,
          .clock_iterations = 1 << 16,  // 8 ms at 2 GHz, 4 clocks a link
          .throughput_iterations = 256,
          .stream_blocks = 2 * static_cast<std::uint32_t>(a.sms),
          .stream_threads = 512,
          .rate_blocks = 1 << 22,  // some 2 ms at 2e9 blocks per second
          .dram_bytes = 0,
          .l2_bytes = 0,
          .l2_passes = 200,
          .floor_runs = 1000};
  // Buffers in whole iterations of the grid: 8 times the L2 or more (and halves of it for the
  // copy), and a third of it or less (so that it stays there; one iteration at least).
  const std::int64_t chunk =
      std::int64_t{s.stream_blocks} * s.stream_threads * kStreamBytesPerThread;
  const std::int64_t dram_chunks = (8 * a.l2_bytes + chunk - 1) / chunk;
  s.dram_bytes = (dram_chunks + dram_chunks % 2) * chunk;
  s.l2_bytes = std::max<std::int64_t>(1, a.l2_bytes / 3 / chunk) * chunk;
  return s;
}

[[noreturn]] void fail(std::string_view what, const CudaDriver& driver, CUresult result) {
  throw DeviceError(
      fmt::format("gpu characterization: {} returned {}", what, driver.describe(result)));
}

GpuAttributes attributes_of(const CudaContext& cuda) {
  auto get = [&](CUdevice_attribute attribute, std::string_view name, int least = 1) {
    int value = 0;
    const CUresult result = cuda.driver.cuDeviceGetAttribute(&value, attribute, cuda.device);
    if (result != CUDA_SUCCESS) {
      fail(fmt::format("cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_{})", name), cuda.driver, result);
    }
    if (value < least) {
      throw DeviceError(fmt::format(
          "gpu characterization: the driver gives {} as CU_DEVICE_ATTRIBUTE_{}", value, name));
    }
    return value;
  };
  GpuAttributes a;
  a.compute_capability =
      10 * get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR") +
      get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR", 0);
  a.sms = get(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT");
  a.warp_size = get(CU_DEVICE_ATTRIBUTE_WARP_SIZE, "WARP_SIZE");
  a.max_threads_per_sm =
      get(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "MAX_THREADS_PER_MULTIPROCESSOR");
  a.max_blocks_per_sm =
      get(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, "MAX_BLOCKS_PER_MULTIPROCESSOR");
  a.registers_per_sm =
      get(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, "MAX_REGISTERS_PER_MULTIPROCESSOR");
  a.shared_bytes_per_sm = get(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                              "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR");
  a.l2_bytes = get(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2_CACHE_SIZE");
  // CUDA 13's runtime dropped it from cudaDeviceProp: a driver that gives none is no failure,
  // since the clock reached is measured anyway.
  int kilohertz = 0;
  if (cuda.driver.cuDeviceGetAttribute(&kilohertz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, cuda.device) ==
      CUDA_SUCCESS) {
    a.clock_hz = 1e3 * std::max(0, kilohertz);
  }
  return a;
}

/// Device memory, zeroed, freed with the object.
class Buffer {
 public:
  Buffer(const CudaDriver& driver, std::int64_t bytes) : driver_(driver) {
    const auto size = static_cast<std::size_t>(bytes);
    if (CUresult result = driver_.cuMemAlloc(&pointer_, size); result != CUDA_SUCCESS) {
      fail(fmt::format("cuMemAlloc of {} bytes", bytes), driver_, result);
    }
    if (CUresult result = driver_.cuMemsetD8(pointer_, 0, size); result != CUDA_SUCCESS) {
      fail("cuMemsetD8", driver_, result);
    }
  }
  ~Buffer() { driver_.cuMemFree(pointer_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  CUdeviceptr pointer() const { return pointer_; }

 private:
  const CudaDriver& driver_;
  CUdeviceptr pointer_ = 0;
};

/// The microbenchmarks' module in a worker's context, CUDA events to time launches, and the
/// buffer kernels write what they measured to.
class Benchmarks {
 public:
  Benchmarks(const CudaDriver& driver, std::int64_t out_bytes) : driver_(driver) {
    JitLogs logs;
    const std::string ptx = gpu_benchmarks_ptx();
    if (CUresult result = driver_.cuModuleLoadDataEx(&module_, ptx.c_str(), logs.count(),
                                                     logs.options(), logs.values());
        result != CUDA_SUCCESS) {
      throw DeviceError(fmt::format(
          "gpu characterization: the microbenchmarks do not compile: cuModuleLoadDataEx "
          "returned {}: {}",
          driver_.describe(result), logs.error()));
    }
    for (CUevent* event : {&start_, &stop_}) {
      if (CUresult result = driver_.cuEventCreate(event, CU_EVENT_DEFAULT);
          result != CUDA_SUCCESS) {
        fail("cuEventCreate", driver_, result);
      }
    }
    out_.emplace(driver_, out_bytes);
  }
  ~Benchmarks() {
    out_.reset();
    for (CUevent event : {start_, stop_}) {
      if (event != nullptr) driver_.cuEventDestroy(event);
    }
    driver_.cuModuleUnload(module_);
  }
  Benchmarks(const Benchmarks&) = delete;
  Benchmarks& operator=(const Benchmarks&) = delete;

  const CudaDriver& driver() const { return driver_; }
  CUdeviceptr out() const { return out_->pointer(); }

  /// Runs kernel `name` once and waits for it: the milliseconds between CUDA events around the
  /// launch, as the CUDA device times a candidate's run.
  double run(const std::string& name, std::uint32_t grid, std::uint32_t block,
             std::initializer_list<void*> params) {
    CUfunction& function = functions_[name];
    if (function == nullptr) {
      if (CUresult result = driver_.cuModuleGetFunction(&function, module_, name.c_str());
          result != CUDA_SUCCESS) {
        fail("cuModuleGetFunction(" + name + ")", driver_, result);
      }
    }
    std::vector<void*> args(params);
    const TimedLaunch timed =
        timed_launch(driver_, start_, stop_, function, {grid, 1, 1}, {block, 1, 1}, 0, args.data());
    if (timed.rejected) fail(fmt::format("cuLaunchKernel({})", name), driver_, timed.result);
    if (timed.result != CUDA_SUCCESS) {
      throw DeviceError(
          fmt::format("gpu characterization: {} failed: {}", name, driver_.describe(timed.result)));
    }
    return timed.milliseconds;
  }

  /// The first `count` words the last kernel wrote to `out`.
  std::vector<std::uint64_t> results(std::size_t count) const {
    std::vector<std::uint64_t> words(count);
    if (CUresult result = driver_.cuMemcpyDtoH(words.data(), out(), 8 * count);
        result != CUDA_SUCCESS) {
      fail("cuMemcpyDtoH", driver_, result);
    }
    return words;
  }

 private:
  const CudaDriver& driver_;
  CUmodule module_ = nullptr;
  std::map<std::string, CUfunction> functions_;
  CUevent start_ = nullptr;
  CUevent stop_ = nullptr;
  std::optional<Buffer> out_;
};

/// Clocks and nanoseconds of a chain of `iterations` * kUnroll links, the fastest of `runs`.
struct ChainTime {
  double clocks = std::numeric_limits<double>::infinity();
  double ns = 0;
};

ChainTime time_chain(Benchmarks& b, const std::string& name, std::uint32_t threads,
                     CUdeviceptr data, std::uint32_t iterations, int runs) {
  CUdeviceptr out = b.out();
  ChainTime best;
  for (int run = 0; run < runs; ++run) {
    b.run("sculpt_chain_" + name, 1, threads, {&out, &data, &iterations});
    const std::vector<std::uint64_t> words = b.results(2);
    if (static_cast<double>(words[0]) < best.clocks) {
      best = {static_cast<double>(words[0]), static_cast<double>(words[1])};
    }
  }
  return best;
}

/// Clocks per link of a chain.
double latency(Benchmarks& b, const std::string& name, std::uint32_t threads, CUdeviceptr data,
               const Sizes& s) {
  return time_chain(b, name, threads, data, s.chain_iterations, s.runs).clocks /
         (static_cast<double>(s.chain_iterations) * kUnroll);
}

/// The work of benchmark `name` (Throughput::work) of every warp of the block, per clock: the
/// fastest of the runs.
double per_clock(Benchmarks& b, const std::string& name, CUdeviceptr data, int warp_size,
                 const Sizes& s) {
  static const std::vector<Throughput> all = throughputs();
  const auto t =
      std::find_if(all.begin(), all.end(), [&](const Throughput& t) { return t.name == name; });
  SCULPT_CHECK(t != all.end()) << "no throughput benchmark " << name;
  CUdeviceptr out = b.out();
  std::uint32_t iterations = s.throughput_iterations;
  const double work =
      t->work * (kBlockThreads / static_cast<std::uint32_t>(warp_size)) * iterations;
  double best = 0;
  for (int run = 0; run < s.runs; ++run) {
    b.run("sculpt_throughput_" + name, 1, kBlockThreads, {&out, &data, &iterations});
    best = std::max(best, work / static_cast<double>(std::max<std::uint64_t>(1, b.results(1)[0])));
  }
  return best;
}

/// The fastest of the runs of `kernel` over `count` 16-byte elements from `data` (to `to` for a
/// copy), in bytes moved per second, the launch floor taken off the time: at most half of it, for
/// a kernel too short to say much anyway.
double stream_rate(Benchmarks& b, const std::string& kernel, CUdeviceptr data, CUdeviceptr to,
                   std::int64_t count, std::uint32_t passes, double bytes, double floor_ns,
                   const Sizes& s) {
  auto elements = static_cast<std::uint64_t>(count);
  double best = 0;
  for (int run = 0; run < s.runs; ++run) {
    const double ns =
        1e6 * b.run(kernel, s.stream_blocks, s.stream_threads, {&data, &elements, &passes, &to});
    best = std::max(best, bytes / (1e-9 * std::max(ns - floor_ns, ns / 2)));
  }
  return best;
}

GpuMeasurements measure(Benchmarks& b, const GpuAttributes& a, const Sizes& s) {
  const CudaDriver& driver = b.driver();
  GpuMeasurements m;
  m.runs = s.runs;

  // The first launch also loads the module's code: not timed.
  b.run("sculpt_empty", 1, 1, {});
  m.launch_runs = s.floor_runs;
  m.launch_floor_ns = std::numeric_limits<double>::infinity();
  for (int run = 0; run < s.floor_runs; ++run) {
    m.launch_floor_ns = std::min(m.launch_floor_ns, 1e6 * b.run("sculpt_empty", 1, 1, {}));
  }

  // Blocks that do nothing, as many as the GPU starts in a millisecond or two.
  m.rate_blocks = s.rate_blocks;
  m.rate_threads = kRateThreads;
  for (int run = 0; run < s.runs; ++run) {
    const double ns = 1e6 * b.run("sculpt_empty", s.rate_blocks, kRateThreads, {});
    if (ns > 0) {
      m.block_rate =
          std::max(m.block_rate, s.rate_blocks / (1e-9 * std::max(ns - m.launch_floor_ns, ns / 2)));
    }
  }

  m.chain_ops = static_cast<int>(s.chain_iterations) * kUnroll;
  m.fp32_latency = latency(b, "fp32", 1, 0, s);
  m.fp64_latency = latency(b, "fp64", 1, 0, s);
  m.special_latency = latency(b, "special", 1, 0, s);
  m.shared_latency = latency(b, "shared", 1, 0, s);
  m.barrier_latency = latency(b, "barrier", static_cast<std::uint32_t>(a.warp_size), 0, s);
  {
    // A cycle through kChaseLines lines, each line's first word the address of the next line.
    Buffer chase(driver, kChaseLines * kLineBytes);
    std::vector<std::uint64_t> words(kChaseLines * kLineBytes / 8);
    for (int line = 0; line < kChaseLines; ++line) {
      words[line * kLineBytes / 8] = chase.pointer() + (line + 1) % kChaseLines * kLineBytes;
    }
    if (CUresult result = driver.cuMemcpyHtoD(chase.pointer(), words.data(), 8 * words.size());
        result != CUDA_SUCCESS) {
      fail("cuMemcpyHtoD", driver, result);
    }
    m.global_latency = latency(b, "global", 1, chase.pointer(), s);
  }
  {
    // A random cycle through as many lines as the chain has links (Sattolo's shuffle: one
    // cycle through all of them), each line's first word the address of the next line.
    const auto count = static_cast<std::size_t>(m.chain_ops);
    std::vector<std::size_t> next(count);
    for (std::size_t line = 0; line < count; ++line) next[line] = line;
    std::mt19937_64 random(kL2ChaseSeed);
    for (std::size_t i = count - 1; i > 0; --i) {
      std::swap(next[i], next[std::uniform_int_distribution<std::size_t>(0, i - 1)(random)]);
    }
    m.l2_chase_bytes = static_cast<std::int64_t>(count) * kLineBytes;
    Buffer chase(driver, m.l2_chase_bytes);
    std::vector<std::uint64_t> words(count * kLineBytes / 8);
    for (std::size_t line = 0; line < count; ++line) {
      words[line * kLineBytes / 8] = chase.pointer() + next[line] * kLineBytes;
    }
    if (CUresult result = driver.cuMemcpyHtoD(chase.pointer(), words.data(), 8 * words.size());
        result != CUDA_SUCCESS) {
      fail("cuMemcpyHtoD", driver, result);
    }
    m.l2_latency = latency(b, "l2", 1, chase.pointer(), s);
  }

  m.block_threads = kBlockThreads;
  m.fp32_per_clock = per_clock(b, "fp32", 0, a.warp_size, s);
  m.fp64_per_clock = per_clock(b, "fp64", 0, a.warp_size, s);
  m.special_per_clock = per_clock(b, "special", 0, a.warp_size, s);
  m.mix_per_clock = per_clock(b, "mix", 0, a.warp_size, s);
  m.loads_per_clock = per_clock(b, "loads", 0, a.warp_size, s);
  m.shared_bytes_per_clock = per_clock(b, "shared_v4", 0, a.warp_size, s);
  {
    Buffer rows(driver, kRows * kRowBytes);
    m.l1_bytes_per_clock = per_clock(b, "l1_v4", rows.pointer(), a.warp_size, s);
  }

  {
    m.dram_bytes = s.dram_bytes;
    Buffer buffer(driver, s.dram_bytes);
    const std::int64_t count = s.dram_bytes / 16;
    const auto bytes = static_cast<double>(s.dram_bytes);
    m.dram_read = stream_rate(b, "sculpt_read", buffer.pointer(), b.out(), count, 1, bytes,
                              m.launch_floor_ns, s);
    m.dram_copy = stream_rate(b, "sculpt_copy", buffer.pointer(),
                              buffer.pointer() + static_cast<CUdeviceptr>(s.dram_bytes / 2),
                              count / 2, 1, bytes, m.launch_floor_ns, s);
  }
  {
    m.l2_bytes = s.l2_bytes;
    m.l2_passes = s.l2_passes;
    Buffer buffer(driver, s.l2_bytes);
    m.l2_read = stream_rate(b, "sculpt_read", buffer.pointer(), b.out(), s.l2_bytes / 16,
                            static_cast<std::uint32_t>(s.l2_passes),
                            static_cast<double>(s.l2_bytes) * s.l2_passes, m.launch_floor_ns, s);
  }

  // Last, once the GPU has been busy a while: its clock rises under load.
  for (int run = 0; run < s.runs; ++run) {
    const ChainTime t = time_chain(b, "fp32", 1, 0, s.clock_iterations, 1);
    if (t.ns > 0 && 1e9 * t.clocks / t.ns > m.clock_hz) {
      m.clock_hz = 1e9 * t.clocks / t.ns;
      m.clock_seconds = 1e-9 * t.ns;
    }
  }
  return m;
}

/// In the worker: everything, or why not.
Frame<CharacterizeMessage> characterize(CudaContext& cuda, bool quick) {
  try {
    const GpuAttributes a = attributes_of(cuda);
    const Sizes s = sizes_of(quick, a);
    // The throughput benchmarks' word per thread, or the read's float per thread of the grid.
    const std::int64_t out_bytes = std::max<std::int64_t>(
        8 * (1 + kBlockThreads), 4 * std::int64_t{s.stream_blocks} * s.stream_threads);
    Benchmarks benchmarks(cuda.driver, out_bytes);
    const GpuMeasurements m = measure(benchmarks, a, s);
    return {.kind = CharacterizeMessage::characterized,
            .value = 0,
            .data = Writer().put(a).put(m).take()};
  } catch (const DeviceError& e) {
    return {.kind = CharacterizeMessage::failed, .value = 0, .data = e.what()};
  }
}

}  // namespace

std::string gpu_benchmarks_ptx() {
  std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n";
  for (const Chain& c : chains()) ptx += chain_kernel(c);
  for (const Throughput& t : throughputs()) ptx += throughput_kernel(t);
  ptx += read_kernel();
  ptx += copy_kernel();
  ptx += entry("sculpt_empty", "", "", "");
  return ptx;
}

GpuCharacteristics characterize_gpu(const GpuCharacterizationOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CudaWorker worker(options.worker, 1,
                    [quick = options.quick](CudaContext& cuda, std::vector<Channel>& channels) {
                      channels[0].send(characterize(cuda, quick));
                    });
  Frame<CharacterizeMessage> reply;
  const Channel::Received received = worker.channel(0).receive(reply, kTimeLimit);
  if (received != Channel::Received::frame) {
    worker.stop();
    throw DeviceError(received == Channel::Received::timeout
                          ? fmt::format("gpu characterization: took longer than {} minutes; killed",
                                        kTimeLimit.count())
                          : "gpu characterization: the CUDA worker died while measuring");
  }
  if (reply.kind == CharacterizeMessage::failed) throw DeviceError(reply.data);
  SCULPT_CHECK(reply.kind == CharacterizeMessage::characterized)
      << "unexpected reply " << encode(reply.kind);
  GpuCharacteristics c;
  c.device = worker.description();
  Reader reader(reply.data);
  c.attributes = reader.get<GpuAttributes>();
  c.measured = reader.get<GpuMeasurements>();
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return c;
}

}  // namespace sculpt::device
