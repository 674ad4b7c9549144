// The names parameters take in C and CUDA C: a user's name stays where it is free, and becomes
// another, distinct from every name of the code, where it is a word of the languages, a name of
// their headers or one the generated code gives something else.
#include "codegen/identifiers.h"

#include <gtest/gtest.h>

namespace sculpt::codegen {
namespace {

LoweredKernel kernel_with_params(const std::vector<std::string>& names) {
  LoweredKernel k;
  k.name = "k";
  for (const std::string& name : names) k.params.push_back(Param{name});
  k.dims.push_back(LoopDim{"i0", LoopKind::kLoop, 4});
  k.dims.push_back(LoopDim{"j1", LoopKind::kBlock, 2, 0});
  k.registers.push_back(RegisterArray{"r_load0"});
  k.memories.push_back(Memory{Memory::Kind::kShared, "tmp0"});
  return k;
}

TEST(ParameterIdentifiers, FreeNamesStay) {
  EXPECT_EQ(parameter_identifiers(kernel_with_params({"A", "B", "N", "x_in"}), "candidate"),
            (std::vector<std::string>{"A", "B", "N", "x_in"}));
}

TEST(ParameterIdentifiers, WordsAndHeaderNamesOfTheLanguagesGetAnUnderscore) {
  EXPECT_EQ(
      parameter_identifiers(
          kernel_with_params({"return", "int", "class", "INFINITY", "fmaf", "threadIdx"}),
          "candidate"),
      (std::vector<std::string>{"return_", "int_", "class_", "INFINITY_", "fmaf_", "threadIdx_"}));
}

TEST(ParameterIdentifiers, NamesOfTheGeneratedCodeAreNotTaken) {
  EXPECT_EQ(
      parameter_identifiers(kernel_with_params({"tid", "tx", "block", "r_load0", "tmp0", "i_i0",
                                                "b_j1", "candidate", "candidate_block", "params"}),
                            "candidate"),
      (std::vector<std::string>{"tid_", "tx_", "block_", "r_load0_", "tmp0_", "i_i0_", "b_j1_",
                                "candidate_", "candidate_block_", "params_"}));
}

TEST(ParameterIdentifiers, TheyStayDistinct) {
  // "return_" is free until "return" takes it; the second one then moves on.
  EXPECT_EQ(parameter_identifiers(kernel_with_params({"return", "return_", "tid_", "tid"}), "f"),
            (std::vector<std::string>{"return_", "return__", "tid_", "tid__"}));
}

TEST(ParameterIdentifiers, ALeadingUnderscoreIsPrefixed) {
  // C reserves names that begin with an underscore and a capital, or two underscores.
  EXPECT_EQ(parameter_identifiers(kernel_with_params({"_X", "__y", "_z"}), "f"),
            (std::vector<std::string>{"p_X", "p__y", "p_z"}));
}

TEST(ReservedIdentifiers, KnowsTheLanguagesAndTheirHeaders) {
  for (const char* name : {"while", "restrict", "NULL", "M_PI", "int64_t", "blockIdx", "linux"}) {
    EXPECT_TRUE(is_reserved_identifier(name)) << name;
  }
  for (const char* name : {"A", "X", "weights", "alpha"}) {
    EXPECT_FALSE(is_reserved_identifier(name)) << name;
  }
}

}  // namespace
}  // namespace sculpt::codegen
