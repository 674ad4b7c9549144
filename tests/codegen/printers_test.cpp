// What each printer writes for an operator that differs by type: sqrt, correctly rounded in
// every language (C's sqrtf and sqrt, PTX's sqrt.rn), as the reference computes it. Random
// candidates of a definition that takes it in float and in double.
#include <gtest/gtest.h>

#include <random>

#include "codegen/c_printer.h"
#include "codegen/cuda_printer.h"
#include "codegen/lower.h"
#include "codegen/ptx_printer.h"
#include "frontend/definition.h"
#include "perf_model/description.h"
#include "search/session/descent.h"

namespace sculpt::codegen {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Printers, SqrtIsCorrectlyRoundedInItsType) {
  const frontend::DefinitionLookup lookup = frontend::lookup_definition(
      "def roots(float(N) A, double(N) B) -> (X, Y) { X(i) = sqrt(A(i))\n Y(i) = sqrt(B(i)) }",
      "t.tc", "", "N=64");
  ASSERT_TRUE(lookup.ok()) << lookup.error;
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  const auto root = gpu_space::make_root(kernel, perf_model::Description::named("sm_90").limits);
  ASSERT_FALSE(root->conflict()) << root->conflict()->to_string();
  std::mt19937_64 rng(5);
  for (int i = 0; i < 5; ++i) {
    const search::Descent descent = search::random_descent(*root, rng);
    ASSERT_TRUE(descent.candidate);
    const LoweredKernel lowered =
        lower(static_cast<const gpu_space::Candidate&>(*descent.candidate));
    for (const std::string& c : {print_c(lowered, "candidate"), print_cuda(lowered, "candidate")}) {
      EXPECT_TRUE(has(c, "sqrtf(")) << c;
      EXPECT_TRUE(has(c, " = sqrt(")) << c;
    }
    const std::string ptx = print_ptx(lowered, "candidate");
    EXPECT_TRUE(has(ptx, "sqrt.rn.f32 ")) << ptx;
    EXPECT_TRUE(has(ptx, "sqrt.rn.f64 ")) << ptx;
  }
}

}  // namespace
}  // namespace sculpt::codegen
