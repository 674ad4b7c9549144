// The PTX emulator that the fake CUDA driver runs candidates on: what it computes, and the
// faults and races it must report, on small kernels written by hand.
#include "tests/device/ptx_emulator.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "perf_model/instruction_class.h"

namespace sculpt::ptx_emulator {
namespace {

// Block b reverses its 64 elements of x into y through shared memory. {BARRIER} is where the
// barrier between the shared store and load goes; {READ} sets the element %a6 each thread reads.
const std::string kReverse = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry reverse(
  .param .u64 param_x,
  .param .u64 param_y)
.reqntid 64, 1, 1
{
  .shared .align 16 .b8 s[256];
  .reg .u64 %x;
  .reg .u64 %y;
  .reg .f32 %v;
  .reg .u64 %a<8>;
  .reg .u32 %t<3>;
  ld.param.u64 %x, [param_x];
  cvta.to.global.u64 %x, %x;
  ld.param.u64 %y, [param_y];
  cvta.to.global.u64 %y, %y;
  mov.u32 %t0, %tid.x;
  cvt.u64.u32 %a0, %t0;
  mov.u32 %t1, %ctaid.x;
  cvt.u64.u32 %a1, %t1;
  mad.lo.s64 %a2, %a1, 64, %a0;
  mad.lo.s64 %a3, %a2, 4, %x;
  ld.global.nc.f32 %v, [%a3];
  mov.u64 %a4, s;
  mad.lo.s64 %a5, %a0, 4, %a4;
  st.shared.f32 [%a5], %v;
{BARRIER}
  {READ}
  mad.lo.s64 %a7, %a6, 4, %a4;
  ld.shared.f32 %v, [%a7];
  mad.lo.s64 %a3, %a2, 4, %y;
  st.global.cs.f32 [%a3], %v;
  ret;
}
)";

std::string reverse(const std::string& barrier, const std::string& read = "sub.u64 %a6, 63, %a0;") {
  std::string ptx = kReverse;
  ptx.replace(ptx.find("{BARRIER}"), 9, barrier);
  ptx.replace(ptx.find("{READ}"), 6, read);
  return ptx;
}

/// x and y of `blocks` blocks of 64 elements, and a launch over them.
struct Buffers {
  explicit Buffers(unsigned blocks) : x(64 * blocks), y(64 * blocks) {
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
    launch.grid = {blocks, 1, 1};
    launch.block = {64, 1, 1};
    launch.params = params;
    for (const std::vector<float>* v : {&x, &y}) {
      launch.allocations.emplace_back(reinterpret_cast<std::uint64_t>(v->data()), 4 * v->size());
    }
  }
  std::vector<float> x;
  std::vector<float> y;
  float* x_pointer = x.data();
  float* y_pointer = y.data();
  void* params[2] = {&x_pointer, &y_pointer};
  Launch launch;
};

TEST(PtxEmulator, ComputesWhatThePtxSays) {
  Module module(reverse("  bar.sync 0;"));
  Buffers b(3);
  const Outcome outcome = module.run("reverse", b.launch);
  ASSERT_EQ(outcome.fault, Fault::none) << outcome.message;
  for (std::size_t i = 0; i < b.y.size(); ++i) {
    EXPECT_EQ(b.y[i], b.x[i / 64 * 64 + 63 - i % 64]) << i;
  }
}

TEST(PtxEmulator, AMissingBarrierIsARace) {
  Module module(reverse(""));
  Buffers b(1);
  const Outcome outcome = module.run("reverse", b.launch);
  EXPECT_EQ(outcome.fault, Fault::race);
  EXPECT_TRUE(outcome.message.starts_with("the results depend on the order in which threads run"))
      << outcome.message;
  // Threads run in reverse order first: thread 32 reads s[31] before thread 31 writes it.
  EXPECT_TRUE(outcome.message.ends_with(
      "first race on s+124: thread (31,0,0) of block (0,0,0) at line 29 overwrites what "
      "thread (32,0,0) of block (0,0,0) read at line 33"))
      << outcome.message;
}

TEST(PtxEmulator, ARaceOnAValueNobodyUsesIsHarmless) {
  // Every thread loads s[0] into a register it never reads, racing with thread 0's store.
  Module module(reverse("  ld.shared.f32 %unused, [%a4];\n  bar.sync 0;"));
  Buffers b(1);
  const Outcome outcome = module.run("reverse", b.launch);
  ASSERT_EQ(outcome.fault, Fault::none) << outcome.message;
  for (std::size_t i = 0; i < b.y.size(); ++i) EXPECT_EQ(b.y[i], b.x[63 - i]) << i;
}

TEST(PtxEmulator, AThreadReadingItsOwnWriteNeedsNoBarrier) {
  Module module(reverse("", "add.u64 %a6, %a0, 0;"));
  Buffers b(2);
  const Outcome outcome = module.run("reverse", b.launch);
  ASSERT_EQ(outcome.fault, Fault::none) << outcome.message;
  EXPECT_EQ(b.y, b.x);
}

TEST(PtxEmulator, SharedMemoryOutsideTheArraysIsAnIllegalAddress) {
  Module module(reverse("  bar.sync 0;", "sub.u64 %a6, 64, %a0;"));
  Buffers b(1);
  const Outcome outcome = module.run("reverse", b.launch);
  EXPECT_EQ(outcome.fault, Fault::illegal_address);
  EXPECT_EQ(outcome.message,
            "line 33: thread (0,0,0) of block (0,0,0) loads 4 bytes at shared offset 0x100, "
            "outside the block's 256 bytes");
}

TEST(PtxEmulator, GlobalMemoryOutsideEveryAllocationIsAnIllegalAddress) {
  Module module(reverse("  bar.sync 0;"));
  Buffers b(2);
  b.launch.grid.x = 3;  // a block past the end of x
  const Outcome outcome = module.run("reverse", b.launch);
  EXPECT_EQ(outcome.fault, Fault::illegal_address);
  // Blocks and threads run in reverse order first.
  EXPECT_NE(
      outcome.message.find("thread (63,0,0) of block (2,0,0) loads 4 bytes at global address"),
      std::string::npos)
      << outcome.message;
}

const std::string kVector = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry vector(
  .param .u64 param_x,
  .param .u64 param_y
)
{
  .reg .u64 %x;
  .reg .u64 %y;
  .reg .u64 %a<4>;
  .reg .f32 %v<4>;
  .reg .u32 %t<3>;
  .reg .pred %p<2>;
  ld.param.u64 %x, [param_x];
  ld.param.u64 %y, [param_y];
  mov.u32 %t0, %tid.x;
  cvt.u64.u32 %a0, %t0;
  mov.u32 %t1, %ctaid.x;
  cvt.u64.u32 %a3, %t1;
  mov.u32 %t2, %ntid.x;
  cvt.u64.u32 %a2, %t2;
  mad.lo.s64 %a3, %a3, %a2, %a0;
  mad.lo.s64 %a1, %a3, {STRIDE}, %x;
  ld.global.v4.f32 {%v0, %v1, %v2, %v3}, [%a1];
  add.rn.f32 %v0, %v0, %v3;
  fma.rn.f32 %v0, %v1, %v2, %v0;
  setp.lt.u64 %p0, %a0, 4;
  mad.lo.s64 %a2, %a0, 4, %y;
  @%p0 st.global.wb.f32 [%a2], %v0;
  @!%p0 st.global.wb.f32 [%a2], 0f3F800000;
  ret;
}
)";

std::string vector_kernel(const std::string& stride) {
  std::string ptx = kVector;
  ptx.replace(ptx.find("{STRIDE}"), 8, stride);
  return ptx;
}

TEST(PtxEmulator, VectorAccessesAndPredicates) {
  Module module(vector_kernel("16"));
  Buffers b(1);
  b.launch.block = {16, 1, 1};
  const Outcome outcome = module.run("vector", b.launch);
  ASSERT_EQ(outcome.fault, Fault::none) << outcome.message;
  for (int t = 0; t < 16; ++t) {
    const float* v = &b.x[4 * t];
    EXPECT_EQ(b.y[t], t < 4 ? v[1] * v[2] + (v[0] + v[3]) : 1.0f) << t;
  }
}

TEST(PtxEmulator, AVectorAccessMustBeAlignedToItsSize) {
  Module module(vector_kernel("8"));
  Buffers b(1);
  b.launch.block = {16, 1, 1};
  const Outcome outcome = module.run("vector", b.launch);
  EXPECT_EQ(outcome.fault, Fault::misaligned_address);
  EXPECT_NE(outcome.message.find("thread (15,0,0) of block (0,0,0) loads 16 bytes at"),
            std::string::npos)
      << outcome.message;
}

TEST(PtxEmulator, BlocksWritingDifferentValuesToTheSameElementRace) {
  Module module(vector_kernel("16"));
  Buffers b(1);
  b.launch.block = {4, 1, 1};
  b.launch.grid = {2, 1, 1};  // both blocks write y[0..3], from different elements of x
  const Outcome outcome = module.run("vector", b.launch);
  EXPECT_EQ(outcome.fault, Fault::race);
  EXPECT_NE(outcome.message.find("thread (3,0,0) of block (0,0,0) at line 30 overwrites what "
                                 "thread (3,0,0) of block (1,0,0) wrote at line 30"),
            std::string::npos)
      << outcome.message;
}

TEST(PtxEmulator, WritingTheValueAlreadyThereIsNoRace) {
  Module module(vector_kernel("0"));  // every thread reads x[0..3]: the blocks write alike
  Buffers b(1);
  b.launch.block = {4, 1, 1};
  b.launch.grid = {2, 1, 1};
  const Outcome outcome = module.run("vector", b.launch);
  EXPECT_EQ(outcome.fault, Fault::none) << outcome.message;
  EXPECT_EQ(b.y[3], b.x[1] * b.x[2] + (b.x[0] + b.x[3]));
}

TEST(PtxEmulator, AReadRacingWithAWriteIsARaceWhenItsValueIsUsed) {
  // Every thread reads s[0], which thread 0 writes, with no barrier between, and stores it.
  Module module(reverse("", "mov.u64 %a6, 0;"));
  Buffers b(1);
  const Outcome outcome = module.run("reverse", b.launch);
  EXPECT_EQ(outcome.fault, Fault::race);
  EXPECT_TRUE(
      outcome.message.ends_with("first race on s+0: thread (0,0,0) of block (0,0,0) at "
                                "line 29 overwrites what other threads read at line 33"))
      << outcome.message;
}

TEST(PtxEmulator, ABarrierSomeThreadsNeverReachIsReported) {
  Module module(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry early()
{
  .reg .u32 %t;
  .reg .pred %p;
  mov.u32 %t, %tid.x;
  setp.eq.u32 %p, %t, 3;
  @%p bra $L_end;
  bar.sync 0;
$L_end:
  ret;
}
)");
  Buffers b(1);
  b.launch.block = {8, 1, 1};
  const Outcome outcome = module.run("early", b.launch);
  EXPECT_EQ(outcome.fault, Fault::barrier);
  EXPECT_NE(outcome.message.find("line 11: bar.sync reached by 7 of the 8 threads"),
            std::string::npos)
      << outcome.message;
}

TEST(PtxEmulator, AThreadPastTheLastInstructionEnds) {
  // No `ret`, and a last instruction that some threads skip.
  Module module(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry last()
{
  .reg .u32 %t;
  .reg .pred %p;
  mov.u32 %t, %tid.x;
  setp.eq.u32 %p, %t, 0;
  @%p mov.u32 %t, 1;
}
)");
  Buffers b(1);
  b.launch.block = {4, 1, 1};
  EXPECT_EQ(module.run("last", b.launch).fault, Fault::none);
}

TEST(PtxEmulator, AKernelThatNeverEndsStopsAtTheInstructionLimit) {
  Module module(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry spin()
{
$L_top:
  bra $L_top;
}
)");
  Buffers b(1);
  b.launch.max_instructions = 1000;
  EXPECT_EQ(module.run("spin", b.launch).fault, Fault::too_long);
}

TEST(PtxEmulator, ABlockOtherThanTheKernelsIsRefused) {
  Module module(reverse("  bar.sync 0;"));
  Buffers b(1);
  b.launch.block = {32, 2, 1};
  const Outcome outcome = module.run("reverse", b.launch);
  EXPECT_EQ(outcome.fault, Fault::refused);
  EXPECT_EQ(outcome.message, "a block of 32x2x1 threads for .reqntid 64, 1, 1");
}

/// What the emulator says of `barrier_line` in the reverse kernel.
std::string refusal(const std::string& barrier_line) {
  try {
    Module module(reverse(barrier_line));
  } catch (const Unsupported& e) {
    return e.what();
  }
  return "no error";
}

TEST(PtxEmulator, PtxItDoesNotKnowIsRefusedWithItsLine) {
  EXPECT_EQ(refusal("  frobnicate.f32 %v, %v;"), "PTX line 30: instruction 'frobnicate.f32'");
  EXPECT_EQ(refusal("  mov.f32 %v, 0fZZ000000;"), "PTX line 30: 'ZZ000000' is not a number");
  EXPECT_EQ(refusal("  ld.param.f32 %v, [param_x];"),
            "PTX line 30: 'ld.param.f32' of a parameter of another size");
  EXPECT_EQ(refusal("  mov.u32 %tid.x, 0;"), "PTX line 30: '%tid.x' written by 'mov.u32'");
  EXPECT_EQ(refusal("  add.u64 %a6, %clock64, 1;"),
            "PTX line 30: '%clock64' read other than by mov");
  EXPECT_EQ(refusal("  mov.u32 %t2, %globaltimer;"), "PTX line 30: 'mov.u32' of a clock");
}

// Thread t loops t + 1 times between two reads of each clock, then writes what they moved by at
// out[2t] (%clock64) and out[2t + 1] (%globaltimer); a barrier lets the other threads run between.
TEST(PtxEmulator, ClocksCountTheInstructionsOfTheThreadReadingThem) {
  Module module(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry clocks(
  .param .u64 param_out)
{
  ld.param.u64 %out, [param_out];
  cvta.to.global.u64 %out, %out;
  mov.u32 %t, %tid.x;
  mov.u64 %c0, %clock64;
  mov.u64 %g0, %globaltimer;
  mov.u32 %i, 0;
LOOP:
  add.u32 %i, %i, 1;
  setp.le.u32 %p, %i, %t;
  @%p bra LOOP;
  bar.sync 0;
  mov.u64 %c1, %clock64;
  mov.u64 %g1, %globaltimer;
  sub.u64 %c1, %c1, %c0;
  sub.u64 %g1, %g1, %g0;
  cvt.u64.u32 %a, %t;
  mad.lo.u64 %a, %a, 16, %out;
  st.global.u64 [%a], %c1;
  st.global.u64 [%a+8], %g1;
  ret;
}
)");
  std::vector<std::uint64_t> out(4, 0);
  std::uint64_t* out_pointer = out.data();
  void* params[1] = {&out_pointer};
  Launch launch;
  launch.block = {2, 1, 1};
  launch.params = params;
  launch.allocations.emplace_back(reinterpret_cast<std::uint64_t>(out.data()), 8 * out.size());
  // Both runs (threads in reverse order, then in order) leave the same: no race.
  const Outcome outcome = module.run("clocks", launch);
  ASSERT_EQ(outcome.fault, Fault::none) << outcome.message;
  // From the first read to the second: a mov, a mov, 3 instructions a loop iteration, the
  // barrier, the second read.
  EXPECT_EQ(out, (std::vector<std::uint64_t>{7, 7, 10, 10}));
}

// Counting: kernels whose warps' instructions, sectors and wavefronts are worked out by hand.
// {BODY} follows a prologue that puts %tid.x in %a0, the addresses of x and y in %x and %y and
// that of the shared array s in %s: per warp, 2 param loads and 5 moves, and then a `ret`.
const std::string kCount = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry count(
  .param .u64 param_x,
  .param .u64 param_y)
{
  .shared .align 16 .b8 s[4096];
  ld.param.u64 %x, [param_x];
  cvta.to.global.u64 %x, %x;
  ld.param.u64 %y, [param_y];
  cvta.to.global.u64 %y, %y;
  mov.u32 %t0, %tid.x;
  cvt.u64.u32 %a0, %t0;
  mov.u64 %s, s;
{BODY}
  ret;
}
)";

/// kCount with `body`.
std::string count_kernel(const std::string& body) {
  std::string ptx = kCount;
  ptx.replace(ptx.find("{BODY}"), 6, body);
  return ptx;
}

/// x and y aligned as cuMemAlloc's allocations, and a counting launch over them.
struct Counting {
  static constexpr std::size_t kElements = 16384;
  struct Arrays {
    alignas(256) float x[kElements] = {};
    alignas(256) float y[kElements] = {};
  };
  Counting(Dim3 block, unsigned blocks) {
    launch.grid = {blocks, 1, 1};
    launch.block = block;
    launch.params = params;
    launch.count = true;
    for (const float* a : {arrays->x, arrays->y}) {
      launch.allocations.emplace_back(reinterpret_cast<std::uint64_t>(a), 4 * kElements);
    }
  }
  std::unique_ptr<Arrays> arrays = std::make_unique<Arrays>();
  float* x_pointer = arrays->x;
  float* y_pointer = arrays->y;
  void* params[2] = {&x_pointer, &y_pointer};
  Launch launch;
};

/// What `body` executes on `blocks` blocks of `block` threads.
Counts counts_of(const std::string& body, Dim3 block, unsigned blocks = 1) {
  Module module(count_kernel(body));
  Counting counting(block, blocks);
  const Outcome outcome = module.run("count", counting.launch);
  EXPECT_EQ(outcome.fault, Fault::none) << outcome.message;
  return outcome.counts;
}

using perf_model::InstrClass;

/// The warp instructions of class `c` in `counts`.
std::uint64_t issued(const std::array<std::uint64_t, perf_model::kInstrClasses>& counts,
                     InstrClass c) {
  return counts[static_cast<std::size_t>(c)];
}

// setp compares as PTX does: ordered (false for NaN) but `neu`, which holds for NaN as C's `!=`
// does. selp picks by the predicate, an integer instruction whatever the type it selects.
TEST(PtxEmulator, ComparisonsAndSelects) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::array<float, 4> x = {1, nan, -1, 0};
  const std::map<std::string, std::array<float, 4>> expected = {
      {"eq", {0, 0, 0, 1}}, {"ne", {1, 0, 1, 0}}, {"neu", {1, 1, 1, 0}}, {"lt", {0, 0, 1, 0}},
      {"le", {0, 0, 1, 1}}, {"gt", {1, 0, 0, 0}}, {"ge", {1, 0, 0, 1}}};
  for (const auto& [cmp, holds] : expected) {
    Module module(
        count_kernel(fmt::format("  mad.lo.s64 %a1, %a0, 4, %x;\n"
                                 "  ld.global.f32 %v0, [%a1];\n"
                                 "  setp.{}.f32 %p0, %v0, 0f00000000;\n"
                                 "  selp.f32 %v1, 0f3F800000, 0f00000000, %p0;  // sel\n"
                                 "  mad.lo.s64 %a2, %a0, 4, %y;\n"
                                 "  st.global.f32 [%a2], %v1;",
                                 cmp)));
    Counting counting({32, 1, 1}, 1);
    for (std::size_t i = 0; i < 32; ++i) counting.arrays->x[i] = x[i % 4];
    const Outcome outcome = module.run("count", counting.launch);
    ASSERT_EQ(outcome.fault, Fault::none) << outcome.message;
    for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(counting.arrays->y[i], holds[i % 4]) << cmp;
    EXPECT_EQ(
        issued(outcome.counts.by_instruction.at("sel").warp_instructions, InstrClass::integer), 1u);
  }
  EXPECT_THROW(Module(count_kernel("  setp.neu.s32 %p0, %r0, 0;")), Unsupported);
}

// sqrt.rn is correctly rounded in f32 and in f64, as the host's sqrt is; it counts as what ptxas
// makes of it, a special-function seed and Heron's step (perf_model/kernel_facts.cpp).
TEST(PtxEmulator, SqrtIsCorrectlyRounded) {
  Module module(
      count_kernel("  mad.lo.s64 %a1, %a0, 4, %x;\n"
                   "  ld.global.f32 %v0, [%a1];\n"
                   "  sqrt.rn.f32 %v1, %v0;  // root\n"
                   "  mad.lo.s64 %a2, %a0, 4, %y;\n"
                   "  st.global.f32 [%a2], %v1;\n"
                   "  cvt.f64.f32 %d0, %v0;\n"
                   "  sqrt.rn.f64 %d1, %d0;  // root64\n"
                   "  mad.lo.s64 %a3, %a0, 8, %y;\n"
                   "  add.u64 %a3, %a3, 256;\n"
                   "  st.global.f64 [%a3], %d1;"));
  const std::array<float, 8> x = {2, 3.3f, 1e-40f, 0, 1e30f, 0.01f, 7, 1.5e-10f};  // a denormal
  Counting counting({32, 1, 1}, 1);
  for (std::size_t i = 0; i < 32; ++i) counting.arrays->x[i] = x[i % 8];
  const Outcome outcome = module.run("count", counting.launch);
  ASSERT_EQ(outcome.fault, Fault::none) << outcome.message;
  for (std::size_t i = 0; i < 32; ++i) {
    EXPECT_EQ(counting.arrays->y[i], std::sqrt(x[i % 8])) << i;
    double root = 0;
    std::memcpy(&root, &counting.arrays->y[64 + 2 * i], sizeof root);
    EXPECT_EQ(root, std::sqrt(static_cast<double>(x[i % 8]))) << i;
  }
  const auto& f32 = outcome.counts.by_instruction.at("root").warp_instructions;
  EXPECT_EQ(issued(f32, InstrClass::special), 1u);
  EXPECT_EQ(issued(f32, InstrClass::fp32_mul), 2u);
  EXPECT_EQ(issued(f32, InstrClass::fp32_fma), 2u);
  const auto& f64 = outcome.counts.by_instruction.at("root64").warp_instructions;
  EXPECT_EQ(issued(f64, InstrClass::special), 1u);
  EXPECT_EQ(issued(f64, InstrClass::fp64), 2u);
  // Only the correctly rounded one.
  EXPECT_THROW(Module(count_kernel("  sqrt.approx.f32 %v1, %v0;")), Unsupported);
}

TEST(PtxEmulatorCounts, ACoalescedWarpLoadTakesFourSectors) {
  const Counts c = counts_of(
      "  mad.lo.s64 %a1, %a0, 4, %x;\n"
      "  ld.global.f32 %v0, [%a1];  // load0",
      {64, 1, 1});
  // Two warps of 32 lanes, each reading 128 aligned bytes.
  EXPECT_EQ(issued(c.warp_instructions, InstrClass::global_load), 2u);
  EXPECT_EQ(c.global_sectors, 8u);
  EXPECT_EQ(c.by_instruction.at("load0").sectors, 8u);
  EXPECT_EQ(c.by_instruction.at("load0").active_accesses, 2u);
  EXPECT_EQ(c.shared_wavefronts, 0u);
}

TEST(PtxEmulatorCounts, StridedLoadsTakeASectorPerLaneOrPerFourLanes) {
  // Lanes 128 bytes apart: 32 sectors; 8 bytes apart: 4 lanes a sector.
  EXPECT_EQ(counts_of("  mad.lo.s64 %a1, %a0, 128, %x;\n  ld.global.f32 %v0, [%a1];", {32, 1, 1})
                .global_sectors,
            32u);
  EXPECT_EQ(counts_of("  mad.lo.s64 %a1, %a0, 8, %x;\n  ld.global.f32 %v0, [%a1];", {32, 1, 1})
                .global_sectors,
            8u);
}

TEST(PtxEmulatorCounts, ABroadcastLoadTakesOneSector) {
  const Counts c = counts_of("  ld.global.f32 %v0, [%x+4];", {64, 1, 1});
  EXPECT_EQ(issued(c.warp_instructions, InstrClass::global_load), 2u);
  EXPECT_EQ(c.global_sectors, 2u);
}

TEST(PtxEmulatorCounts, AVectorLoadIsOneWarpInstructionOfItsWholeWidth) {
  const Counts v4 = counts_of(
      "  mad.lo.s64 %a1, %a0, 16, %x;\n"
      "  ld.global.v4.f32 {%v0, %v1, %v2, %v3}, [%a1];",
      {32, 1, 1});
  EXPECT_EQ(issued(v4.warp_instructions, InstrClass::global_load), 1u);
  EXPECT_EQ(v4.global_sectors, 16u);
  const Counts v2 = counts_of(
      "  mad.lo.s64 %a1, %a0, 8, %x;\n"
      "  ld.global.v2.f32 {%v0, %v1}, [%a1];",
      {32, 1, 1});
  EXPECT_EQ(issued(v2.warp_instructions, InstrClass::global_load), 1u);
  EXPECT_EQ(v2.global_sectors, 8u);
}

TEST(PtxEmulatorCounts, AGuardedOffLaneAccessesNothingButItsWarpIssues) {
  const Counts c = counts_of(
      "  mad.lo.s64 %a1, %a0, 4, %x;\n"
      "  setp.lt.u64 %p0, %a0, 8;\n"
      "  @%p0 ld.global.f32 %v0, [%a1];  // some\n"
      "  setp.gt.u64 %p1, %a0, 100;\n"
      "  @%p1 ld.global.f32 %v1, [%a1];  // none",
      {32, 1, 1});
  // Lanes 0 to 7 read 32 aligned bytes; no lane reads in the second load.
  EXPECT_EQ(c.by_instruction.at("some").sectors, 1u);
  EXPECT_EQ(c.by_instruction.at("some").active_accesses, 1u);
  const InstructionCounts& none = c.by_instruction.at("none");
  EXPECT_EQ(issued(none.warp_instructions, InstrClass::global_load), 1u);
  EXPECT_EQ(none.sectors, 0u);
  EXPECT_EQ(none.active_accesses, 0u);
  EXPECT_EQ(issued(c.warp_instructions, InstrClass::global_load), 2u);
  EXPECT_EQ(c.global_sectors, 1u);
}

TEST(PtxEmulatorCounts, TheLastWarpOfABlockMayBePartial) {
  const Counts c = counts_of(
      "  mad.lo.s64 %a1, %a0, 4, %x;\n"
      "  ld.global.f32 %v0, [%a1];",
      {48, 1, 1});
  // Warps of 32 and 16 lanes: 128 and 64 bytes.
  EXPECT_EQ(issued(c.warp_instructions, InstrClass::global_load), 2u);
  EXPECT_EQ(c.global_sectors, 6u);
  EXPECT_EQ(issued(c.warp_instructions, InstrClass::move), 2u * 5);
  EXPECT_EQ(issued(c.warp_instructions, InstrClass::integer), 2u);
}

TEST(PtxEmulatorCounts, WarpsAreConsecutiveThreadsXFastest) {
  // Blocks of 16x4: a warp holds two rows of x, which read the same 64 bytes.
  const Counts c = counts_of(
      "  mad.lo.s64 %a1, %a0, 4, %x;\n"
      "  ld.global.f32 %v0, [%a1];",
      {16, 4, 1});
  EXPECT_EQ(issued(c.warp_instructions, InstrClass::global_load), 2u);
  EXPECT_EQ(c.global_sectors, 4u);
}

/// The wavefronts of one warp's shared load at %s + `bytes` * lane.
std::uint64_t shared_wavefronts(const std::string& load, int bytes) {
  const Counts c =
      counts_of(fmt::format("  mad.lo.s64 %a1, %a0, {}, %s;\n  {}", bytes, load), {32, 1, 1});
  EXPECT_EQ(issued(c.warp_instructions, InstrClass::shared_load), 1u);
  return c.shared_wavefronts;
}

TEST(PtxEmulatorCounts, SharedWavefrontsAreTheBankConflicts) {
  const std::string scalar = "ld.shared.f32 %v0, [%a1];";
  EXPECT_EQ(shared_wavefronts(scalar, 4), 1u);     // a word per bank
  EXPECT_EQ(shared_wavefronts(scalar, 8), 2u);     // two words in each even bank
  EXPECT_EQ(shared_wavefronts(scalar, 128), 32u);  // 32 words in bank 0
  EXPECT_EQ(shared_wavefronts(scalar, 0), 1u);     // one word, read by all
  // 8 (16) bytes a lane: 2 (4) phases of 16 (8) lanes, conflict-free.
  EXPECT_EQ(shared_wavefronts("ld.shared.v2.f32 {%v0, %v1}, [%a1];", 8), 2u);
  EXPECT_EQ(shared_wavefronts("ld.shared.v4.f32 {%v0, %v1, %v2, %v3}, [%a1];", 16), 4u);
}

TEST(PtxEmulatorCounts, EveryInstructionOfALoopCountsEachTimeEachWarpIssuesIt) {
  const Counts c = counts_of(
      "  mov.u64 %a1, 0;\n"
      "$L_loop:\n"
      "  bar.sync 0;\n"
      "  fma.rn.f32 %v0, %v1, %v2, %v0;\n"
      "  add.rn.f32 %v0, %v0, %v1;\n"
      "  mul.rn.f32 %v1, %v1, %v2;\n"
      "  add.u64 %a1, %a1, 1;\n"
      "  setp.lt.u64 %p0, %a1, 10;\n"
      "  @%p0 bra $L_loop;\n"
      "  max.f32 %v3, %v0, %v1;\n"
      "  ex2.approx.f32 %v3, %v3;\n"
      "  add.rn.f64 %d0, %d0, %d0;\n"
      "  mad.lo.s64 %a2, %a0, 4, %s;\n"
      "  st.shared.f32 [%a2], %v3;\n"
      "  mad.lo.s64 %a3, %a0, 4, %y;\n"
      "  st.global.f32 [%a3], %v3;",
      {64, 1, 1}, 2);
  // 2 blocks of 2 warps.
  const std::uint64_t warps = 4;
  const std::array<std::pair<InstrClass, std::uint64_t>, perf_model::kInstrClasses> expected = {{
      {InstrClass::fp32_fma, 10},
      {InstrClass::fp32_add, 10},
      {InstrClass::fp32_mul, 10},
      {InstrClass::fp32_other, 1},
      {InstrClass::fp64, 1},
      {InstrClass::special, 1},
      {InstrClass::integer, 10 + 2},
      {InstrClass::move, 5 + 1},
      {InstrClass::control, 2 * 10 + 1},
      {InstrClass::param_load, 2},
      {InstrClass::global_load, 0},
      {InstrClass::global_store, 1},
      {InstrClass::shared_load, 0},
      {InstrClass::shared_store, 1},
      {InstrClass::barrier, 10},
  }};
  for (const auto& [k, per_warp] : expected) {
    EXPECT_EQ(issued(c.warp_instructions, k), warps * per_warp) << perf_model::to_string(k);
  }
  EXPECT_EQ(c.barriers_per_block, 10u);
  // Each warp stores 128 consecutive bytes of y and words of s.
  EXPECT_EQ(c.global_sectors, warps * 4);
  EXPECT_EQ(c.shared_wavefronts, warps * 1);
}

TEST(PtxEmulatorCounts, ByInstructionIsKeyedByTheNameInTheLinesComment) {
  const Counts c = counts_of(
      "  mad.lo.s64 %a1, %a0, 4, %x;\n"
      "  ld.global.nc.f32 %r_load0, [%a1];  // load0\n"
      "  fma.rn.f32 %r_fma3, %r_load0, %r_load0, %r_load0;  //  fma3 \n"
      "  mul.rn.f32 %r_fma3, %r_fma3, %r_fma3;  // fma3\n"
      "  mad.lo.s64 %a2, %a0, 4, %y;\n"
      "  st.global.cs.f32 [%a2], %r_fma3;  // store1",
      {64, 1, 1});
  ASSERT_EQ(c.by_instruction.size(), 3u);
  const InstructionCounts& load = c.by_instruction.at("load0");
  EXPECT_EQ(issued(load.warp_instructions, InstrClass::global_load), 2u);
  EXPECT_EQ(load.sectors, 8u);
  const InstructionCounts& fma = c.by_instruction.at("fma3");
  EXPECT_EQ(issued(fma.warp_instructions, InstrClass::fp32_fma), 2u);
  EXPECT_EQ(issued(fma.warp_instructions, InstrClass::fp32_mul), 2u);
  EXPECT_EQ(fma.sectors + fma.wavefronts + fma.active_accesses, 0u);
  const InstructionCounts& store = c.by_instruction.at("store1");
  EXPECT_EQ(issued(store.warp_instructions, InstrClass::global_store), 2u);
  EXPECT_EQ(store.sectors, 8u);
  EXPECT_EQ(store.active_accesses, 2u);
}

TEST(PtxEmulatorCounts, CountingLeavesTheResultsAsTheyWere) {
  Module module(reverse("  bar.sync 0;"));
  Buffers b(3);
  b.launch.count = true;
  const Outcome outcome = module.run("reverse", b.launch);
  ASSERT_EQ(outcome.fault, Fault::none) << outcome.message;
  for (std::size_t i = 0; i < b.y.size(); ++i) {
    EXPECT_EQ(b.y[i], b.x[i / 64 * 64 + 63 - i % 64]) << i;
  }
  EXPECT_EQ(outcome.counts.barriers_per_block, 1u);
  EXPECT_EQ(issued(outcome.counts.warp_instructions, InstrClass::barrier), 3u * 2);
}

TEST(PtxEmulatorCounts, NothingIsCountedUnlessAsked) {
  Module module(reverse("  bar.sync 0;"));
  Buffers b(1);
  const Outcome outcome = module.run("reverse", b.launch);
  ASSERT_EQ(outcome.fault, Fault::none) << outcome.message;
  EXPECT_EQ(outcome.counts.warp_instructions,
            (std::array<std::uint64_t, perf_model::kInstrClasses>{}));
  EXPECT_TRUE(outcome.counts.by_instruction.empty());
}

TEST(PtxEmulatorCounts, ARaceOnlyLockstepShowsIsReportedWhenCounting) {
  // Every thread adds 1 to y[0]: 32 in any order of whole threads, 1 when the lanes of a warp
  // all load before any stores.
  Module module(
      count_kernel("  ld.global.f32 %v0, [%y];\n"
                   "  add.rn.f32 %v0, %v0, 0f3F800000;\n"
                   "  st.global.f32 [%y], %v0;"));
  Counting counting({32, 1, 1}, 1);
  counting.launch.count = false;
  EXPECT_EQ(module.run("count", counting.launch).fault, Fault::none);
  EXPECT_EQ(counting.arrays->y[0], 32.0f);
  counting.arrays->y[0] = 0;
  counting.launch.count = true;
  const Outcome outcome = module.run("count", counting.launch);
  EXPECT_EQ(outcome.fault, Fault::race);
  EXPECT_TRUE(outcome.message.starts_with(
      "the results depend on the order in which threads run: 0x42000000 or 0x3f800000"))
      << outcome.message;
}

TEST(PtxEmulatorCounts, AWarpWhoseLanesDivergeIsRefused) {
  const std::string ptx = count_kernel(
      "  setp.lt.u64 %p0, %a0, 4;\n"
      "  @%p0 bra $L_skip;\n"
      "  add.u64 %a1, %a0, 1;\n"
      "$L_skip:");
  Module module(ptx);
  Counting counting({32, 1, 1}, 1);
  counting.launch.count = false;
  EXPECT_EQ(module.run("count", counting.launch).fault, Fault::none);
  counting.launch.count = true;
  const Outcome outcome = module.run("count", counting.launch);
  EXPECT_EQ(outcome.fault, Fault::refused);
  EXPECT_EQ(outcome.message,
            "line 17: warp 0 of block (0,0,0) diverges, thread (0,0,0) going to line 20 and "
            "thread (4,0,0) to line 18; counting runs the lanes of a warp in lockstep");
}

}  // namespace
}  // namespace sculpt::ptx_emulator
