#include "backbone/sizes.h"

#include <gtest/gtest.h>

namespace sculpt::backbone {
namespace {

const std::vector<SizeSpec> kMatmul = {{"m", 1024, 16}, {"n", 1024, 12}, {"k", 1024, 8}};

TEST(Sizes, ParsesOneFieldPerSize) {
  const SizeParse parse = parse_sizes("256x128x32", kMatmul);
  ASSERT_TRUE(parse.ok()) << parse.error;
  EXPECT_EQ(parse.sizes.at("m"), 256);
  EXPECT_EQ(parse.sizes.at("n"), 128);
  EXPECT_EQ(parse.sizes.at("k"), 32);
  EXPECT_EQ(parse.sizes.to_string(), "m=256 n=128 k=32");
  EXPECT_EQ(format_sizes(parse.sizes), "256x128x32");
}

TEST(Sizes, EmptyStringGivesDefaults) {
  const SizeParse parse = parse_sizes("", kMatmul);
  ASSERT_TRUE(parse.ok());
  EXPECT_EQ(parse.sizes, default_sizes(kMatmul));
  EXPECT_EQ(test_sizes(kMatmul).at("n"), 12);
}

TEST(Sizes, ScaledDownHalvesTheLargestFirst) {
  Sizes sizes;
  sizes.set("m", 1024);
  sizes.set("n", 1024);
  sizes.set("k", 1024);
  EXPECT_EQ(format_sizes(scaled_down(sizes, int64_t{1} << 24)), "256x256x256");
  Sizes tbmm;
  tbmm.set("b", 500);
  tbmm.set("n", 26);
  EXPECT_EQ(format_sizes(scaled_down(tbmm, 4000)), "125x26");
  EXPECT_EQ(format_sizes(scaled_down(tbmm, 20000)), "500x26");
  EXPECT_EQ(format_sizes(scaled_down(tbmm, 0)), "1x1");
}

TEST(Sizes, WrongArityIsAnError) {
  const SizeParse parse = parse_sizes("256x128", kMatmul);
  EXPECT_FALSE(parse.ok());
  EXPECT_FALSE(parse_sizes("x", kMatmul).ok());
  EXPECT_EQ(parse.error,
            "size '256x128' has 2 fields, the kernel takes 3 (expected mxnxk, e.g. "
            "1024x1024x1024)");
}

TEST(Sizes, MalformedFieldsAreErrors) {
  for (const char* text : {"256xx32", "256x12ax32", "256x-1x32", "256x0x32", "256x128x",
                           "99999999999x1x1", " 256x1x1"}) {
    const SizeParse parse = parse_sizes(text, kMatmul);
    EXPECT_FALSE(parse.ok()) << text;
    EXPECT_NE(parse.error.find("not a positive 32-bit integer"), std::string::npos) << parse.error;
  }
  const SizeParse parse = parse_sizes("256x12ax32", kMatmul);
  EXPECT_EQ(parse.error.substr(0, 45), "size '256x12ax32': field 2 (n) is '12a', not ");
}

// Each field fits in 32 bits, but their product must stay where 64-bit index arithmetic is safe.
TEST(Sizes, ProductPast2To52IsAnError) {
  EXPECT_TRUE(parse_sizes("65536x65536x1048576", kMatmul).ok());  // exactly 2^52
  EXPECT_FALSE(parse_sizes("65536x65536x1048577", kMatmul).ok());
  const SizeParse parse = parse_sizes("65536x65536x2000000", kMatmul);
  EXPECT_FALSE(parse.ok());
  EXPECT_EQ(parse.error,
            "size '65536x65536x2000000' spans 8.59e+15 points (the product of its fields); 64-bit "
            "index arithmetic leaves room for 2^52 (4.504e+15) at most");
  EXPECT_TRUE(parse.sizes.entries().empty());
}

}  // namespace
}  // namespace sculpt::backbone
