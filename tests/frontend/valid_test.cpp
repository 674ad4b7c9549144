// Definitions that check: what the front end infers of them (ranges, dimensions shared between
// statements, element types, roles) and how it describes them.
#include <gtest/gtest.h>

#include "tests/frontend/frontend_test_util.h"

namespace sculpt::frontend {
namespace {

using testing::only;
using testing::range_of;

TEST(FrontendRanges, MatmulTakesItsRangesFromTheSizes) {
  const Definition def =
      only("def matmul(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,k) * B(k,n) }");
  EXPECT_EQ(def.sizes, (std::vector<std::string>{"M", "K", "N"}));
  ASSERT_EQ(def.dims.size(), 3u);
  EXPECT_EQ(def.dims[0].name, "m");
  EXPECT_EQ(def.dims[1].name, "n");
  EXPECT_EQ(def.dims[2].name, "k");
  EXPECT_EQ(range_of(def, "m"), "0:M");
  EXPECT_EQ(range_of(def, "n"), "0:N");
  EXPECT_EQ(range_of(def, "k"), "0:K");
  EXPECT_TRUE(def.dims[0].parallel);
  EXPECT_FALSE(def.dims[2].parallel);
  ASSERT_EQ(def.statements.size(), 1u);
  EXPECT_EQ(def.statements[0].reduction, Reduction::kSum);
  EXPECT_TRUE(def.statements[0].init);
  EXPECT_EQ(def.text, "C(m,n) +=! A(m,k) * B(k,n)");
}

// The paper's rounds: K(x) bounds x first, then I(i + x) bounds i.
TEST(FrontendRanges, AConvolutionShrinksItsOutput) {
  const Definition def = only(
      "def conv1d(float(M) I, float(N) K) -> (O) {\n"
      "  O(i) +=! I(i + x) * K(x)  # a 1-D convolution\n"
      "}\n");
  EXPECT_EQ(range_of(def, "x"), "0:N");
  EXPECT_EQ(range_of(def, "i"), "0:M - N + 1");
}

TEST(FrontendRanges, A2DConvolutionWithChannels) {
  const Definition def = only(
      "def c2d(float(B,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {\n"
      "  O(b,f,y,x) +=! I(b,c,y+kh,x+kw) * Wt(f,c,kh,kw)\n"
      "}\n");
  EXPECT_EQ(range_of(def, "y"), "0:H - KH + 1");
  EXPECT_EQ(range_of(def, "x"), "0:W - KW + 1");
  EXPECT_EQ(range_of(def, "c"), "0:C");
}

// An index no input bounds alone takes a `where` range; the others follow from it.
TEST(FrontendRanges, MaxPoolingWithAWhere) {
  const Definition def = only(
      "def maxpool2x2(float(B,C,H,W) in) -> (out) {\n"
      "  out(b,c,i,j) max=! in(b, c, 2*i + kw, 2*j + kh) where kw in 0:2, kh in 0:2\n"
      "}\n");
  EXPECT_EQ(range_of(def, "kw"), "0:2");
  EXPECT_EQ(range_of(def, "i"), "0:H/2");
  EXPECT_EQ(def.statements[0].reduction, Reduction::kMax);
}

// A stencil: A(i) and A(i + 1) both bound i in the same round, and the ranges intersect.
TEST(FrontendRanges, SubscriptsOfOneRoundIntersect) {
  const Definition def = only("def diff(float(N) A) -> (D) { D(i) = A(i + 1) - A(i) }");
  EXPECT_EQ(range_of(def, "i"), "0:N - 1");
}

TEST(FrontendRanges, AnIndexMayStartPastZeroWhenReduced) {
  const Definition def =
      only("def tail(float(N) A) -> (S) { S(i) +=! A(k) where k in 1:N, i in 0:1 }");
  EXPECT_EQ(range_of(def, "k"), "1:N");
  EXPECT_EQ(range_of(def, "i"), "0:1");
}

// Statements share dimensions through the tensors they define and read: mlp2's hidden layer
// is a temporary, passed as a value.
TEST(FrontendDimensions, StatementsShareDimensionsThroughTensors) {
  const Definition def = only(
      "def mlp2(float(M,K) X, float(K,H) W1, float(H,N) W2) -> (Y) {\n"
      "  hidden(m,h) +=! X(m,k) * W1(k,h)\n"
      "  hidden(m,h) = fmax(hidden(m,h), 0)\n"
      "  Y(m,n) +=! hidden(m,h) * W2(h,n)\n"
      "}\n");
  ASSERT_EQ(def.dims.size(), 4u);
  EXPECT_EQ(def.dims[0].name, "m");
  EXPECT_EQ(def.dims[1].name, "h");
  EXPECT_EQ(def.dims[2].name, "k");
  EXPECT_EQ(def.dims[3].name, "n");
  EXPECT_TRUE(def.dims[1].parallel);  // on the left of the first statements
  const Tensor& hidden = def.tensors[def.find_tensor("hidden")];
  EXPECT_EQ(hidden.role, Tensor::Role::kTemporary);
  EXPECT_EQ(hidden.last_statement, 1);
  EXPECT_EQ(def.statements[2].indices[2].dim, 1);  // h of the last statement is hidden's h
}

// Independent statements keep dimensions of their own, named apart.
TEST(FrontendDimensions, IndependentStatementsKeepTheirOwn) {
  const Definition def =
      only("def two(float(N) A, float(M) B) -> (X, Y) { X(i) = A(i) * 2\n Y(i) = B(i) + 1 }");
  ASSERT_EQ(def.dims.size(), 2u);
  EXPECT_EQ(def.dims[0].name, "i");
  EXPECT_EQ(def.dims[1].name, "i_2");
  EXPECT_EQ(def.outputs.size(), 2u);
}

TEST(FrontendTypes, ElementTypesFollowTheInputs) {
  const Definition def = only(
      "def mixed(double(N) A, int32(N) B, float s) -> (X, Y) { X(i) = A(i) * B(i)\n"
      "Y(i) = B(i) + i }");
  EXPECT_EQ(def.tensors[def.find_tensor("X")].type, backbone::ElemType::kF64);
  EXPECT_EQ(def.tensors[def.find_tensor("Y")].type, backbone::ElemType::kI32);
  ASSERT_EQ(def.scalars.size(), 1u);
  EXPECT_EQ(def.params.size(), 3u);
  EXPECT_TRUE(def.params[2].scalar);
}

// sqrt computes in its operand's type (PTX has sqrt.rn for f32 and f64); of a constant, it folds.
TEST(FrontendTypes, SqrtTakesTheTypeOfItsOperand) {
  const Definition def = only(
      "def roots(float(N) A, double(N) B) -> (X, Y, Z) { X(i) = sqrt(A(i))\n"
      "Y(i) = sqrt(B(i))\n"
      "Z(i) = A(i) * sqrt(2 + 2) }");
  const Expr& x = def.statements[0].rhs;
  ASSERT_EQ(x.kind, Expr::Kind::kSqrt);
  EXPECT_EQ(x.type, backbone::ElemType::kF32);
  EXPECT_EQ(def.statements[1].rhs.kind, Expr::Kind::kSqrt);
  EXPECT_EQ(def.tensors[def.find_tensor("Y")].type, backbone::ElemType::kF64);
  const Expr& z = def.statements[2].rhs;
  ASSERT_EQ(z.kind, Expr::Kind::kMul);
  ASSERT_EQ(z.args[1].kind, Expr::Kind::kConstant);
  EXPECT_EQ(z.args[1].value, 2);
}

// A layer normalisation: temporaries reduced over a row, then read at their own indices.
TEST(FrontendDimensions, ALayerNormalisationSharesItsRows) {
  const Definition def = only(
      "def layernorm(float(R,C) X) -> (Y) {\n"
      "  mean(r) +=! X(r,c) / C\n"
      "  d(r,c) = X(r,c) - mean(r)\n"
      "  var(r) +=! d(r,c) * d(r,c) / C\n"
      "  Y(r,c) = d(r,c) / sqrt(var(r) + 1e-5)\n"
      "}");
  ASSERT_EQ(def.dims.size(), 3u);  // r, the c mean reduces over, and d's c (var's too)
  EXPECT_EQ(def.tensors[def.find_tensor("Y")].type, backbone::ElemType::kF32);
  const Expr& y = def.statements[3].rhs;
  ASSERT_EQ(y.kind, Expr::Kind::kDiv);
  EXPECT_EQ(y.args[1].kind, Expr::Kind::kSqrt);
}

// `+=` without `!` reduces into what the output holds: an in-out array.
TEST(FrontendTypes, AReductionIntoAnOutputReadsIt) {
  const Definition def = only("def acc(float(M,K) A) -> (C) { C(m) += A(m,k) }");
  EXPECT_TRUE(def.tensors[def.find_tensor("C")].reads_initial);
  EXPECT_FALSE(def.statements[0].init);
}

TEST(FrontendFiles, SeveralDefinitionsCommentsAndSemicolons) {
  Diagnostics diags;
  const std::vector<Definition> defs = load_definitions(
      "# two kernels\n"
      "def a(float(N) X) -> (Y) { Y(i) = X(i); }  # one\n"
      "def b(float(N) X) -> (Y) {\n  Y(i) = -X(i) / 2.5f\n  Y(i) = exp(Y(i))\n}\n",
      "t.tc", diags);
  EXPECT_FALSE(diags.has_errors()) << testing::printed(diags);
  ASSERT_EQ(defs.size(), 2u);
  EXPECT_EQ(defs[1].text, "Y(i) = -X(i) / 2.5f Y(i) = exp(Y(i))");
}

TEST(FrontendFiles, DescribesADefinition) {
  const Definition def =
      only("def conv1d(float(M) I, float(N) K) -> (O) { O(i) +=! I(i + x) * K(x) }");
  EXPECT_EQ(describe(def),
            "conv1d: O(i) +=! I(i + x) * K(x)\n"
            "sizes: M, N\n"
            "  I: input f32(M)\n"
            "  K: input f32(N)\n"
            "  O: output f32(M - N + 1)\n"
            "dimensions: i in 0:M - N + 1, x in 0:N (reduced)\n");
}

TEST(FrontendSizes, SizesAreGivenByName) {
  const char* text = "def mm(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,k) * B(k,n) }";
  DefinitionLookup lookup = lookup_definition(text, "t.tc", "", "N=3, M=2,K=4");
  ASSERT_TRUE(lookup.ok()) << lookup.error;
  EXPECT_EQ(lookup.sizes.to_string(), "M=2 K=4 N=3");
  ASSERT_TRUE(lookup.info);
  EXPECT_EQ(lookup.info->name, "mm");
  EXPECT_EQ(lookup_definition(text, "t.tc", "", "2x3x4").error,
            "the sizes of a definition are given by name: --size M=...,K=...,N=...");
  EXPECT_EQ(lookup_definition(text, "t.tc", "", "M=2,K=4").error,
            "missing size N (sizes of mm: M, K, N)");
  EXPECT_EQ(lookup_definition(text, "t.tc", "", "M=2,K=4,N=0").error,
            "size N must be a positive integer below 2^31, not '0'");
  EXPECT_EQ(lookup_definition(text, "t.tc", "", "M=2,K=4,N=1,Q=3").error,
            "unknown size 'Q' (sizes of mm: M, K, N)");
  EXPECT_EQ(lookup_definition(text, "t.tc", "", "M=2,K=4,M=1").error, "size M is given twice");
  EXPECT_EQ(lookup_definition(text, "t.tc", "other", "").error,
            "t.tc has no definition 'other' (it defines mm)");
}

TEST(FrontendSizes, AnEmptyRangeIsLocated) {
  const DefinitionLookup lookup = lookup_definition(
      "def conv1d(float(M) I, float(N) K) -> (O) {\n  O(i) +=! I(i + x) * K(x)\n}", "t.tc", "",
      "M=3,N=5");
  EXPECT_EQ(lookup.error, "t.tc:2:5: error: index 'i' ranges over 0:M - N + 1, empty for M=3, N=5");
}

}  // namespace
}  // namespace sculpt::frontend
