// The PTX emulator that the fake CUDA driver runs candidates on: what it computes, and the
// faults and races it must report, on small kernels written by hand.
#include "tests/device/ptx_emulator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

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
}

}  // namespace
}  // namespace sculpt::ptx_emulator
