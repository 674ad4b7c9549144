// `sculpt kernels` through the explorer's command registry: listing, describing, and the user
// errors (unknown kernel, malformed size) that must exit with the usage code and one message.
#include <gtest/gtest.h>

#include <cstdio>

#include "tests/explorer/run_sculpt.h"

namespace sculpt::explorer {
namespace {

TEST(KernelsCommand, ListsEveryKernelWithDefaults) {
  const Outcome outcome = run_sculpt({"kernels"});
  EXPECT_EQ(outcome.code, kExitOk);
  EXPECT_NE(outcome.out.find("tbmm               bxnxmxk  500x26x72x26"), std::string::npos)
      << outcome.out;
  EXPECT_NE(outcome.out.find("matmul             mxnxk    1024x1024x1024"), std::string::npos);
  EXPECT_TRUE(outcome.err.empty());
}

TEST(KernelsCommand, DescribesAKernelAtAGivenSize) {
  const Outcome outcome = run_sculpt({"kernels", "matmul", "--size", "64x32x16", "--dependences"});
  EXPECT_EQ(outcome.code, kExitOk);
  EXPECT_NE(outcome.out.find("A        array  f32[64 x 16] input, 1024 elements"),
            std::string::npos)
      << outcome.out;
  EXPECT_NE(outcome.out.find("(k): reduction"), std::string::npos) << outcome.out;
}

TEST(KernelsCommand, UnknownKernelIsAUsageError) {
  const Outcome outcome = run_sculpt({"kernels", "matmull"});
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_TRUE(outcome.out.empty());
  EXPECT_EQ(outcome.err.rfind("sculpt kernels: unknown kernel 'matmull' (known: axpy matmul", 0),
            0u)
      << outcome.err;
}

TEST(KernelsCommand, MalformedSizeIsAUsageError) {
  const Outcome outcome = run_sculpt({"kernels", "mv", "--size", "12x"});
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_EQ(outcome.err,
            "sculpt kernels: size '12x': field 2 (n) is '', not a positive 32-bit "
            "integer (expected mxn, e.g. 4096x4096)\n");
}

}  // namespace
}  // namespace sculpt::explorer
