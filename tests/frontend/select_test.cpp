// Comparisons, `&&`, `||`, `!` and selects `c ? a : b`: the checked model they make (conditions
// folded where constant, types from the branches), and backbones whose interpretation computes
// what the reference derived from the definition computes, mixed element types included.
#include <gtest/gtest.h>

#include <ostream>

#include "backbone/reference.h"
#include "tests/frontend/frontend_test_util.h"

namespace sculpt::frontend {
namespace {

using backbone::ElemType;
using testing::only;

TEST(FrontendSelects, AReluIsASelectOnAComparison) {
  const Definition def = only("def relu(float(N) X) -> (Y) { Y(i) = X(i) > 0 ? X(i) : 0 }");
  const Expr& rhs = def.statements[0].rhs;
  ASSERT_EQ(rhs.kind, Expr::Kind::kSelect);
  ASSERT_EQ(rhs.args.size(), 3u);
  EXPECT_EQ(rhs.args[0].kind, Expr::Kind::kGt);
  EXPECT_EQ(rhs.args[0].type, ElemType::kF32);
  EXPECT_EQ(rhs.args[1].kind, Expr::Kind::kRead);
  EXPECT_EQ(rhs.args[2].kind, Expr::Kind::kConstant);
  EXPECT_EQ(rhs.type, ElemType::kF32);
}

TEST(FrontendSelects, ConstantConditionsFold) {
  // `1 < 2 &&` leaves the other operand; a constant condition picks its branch.
  const Definition kept = only("def f(float(N) X) -> (Y) { Y(i) = 1 < 2 && X(i) > 0 ? X(i) : 0 }");
  EXPECT_EQ(kept.statements[0].rhs.args[0].kind, Expr::Kind::kGt);
  const Definition picked =
      only("def f(float(N) X) -> (Y) { Y(i) = 2 < 1 || !(3 == 3) && X(i) > 0 ? 1 : X(i) }");
  EXPECT_EQ(picked.statements[0].rhs.kind, Expr::Kind::kRead);
}

// A select takes the widest type of its branches; its condition compares in the widest type of
// its operands, whatever the select's.
TEST(FrontendSelects, TypesFollowTheBranches) {
  const Definition def = only(
      "def f(double(N) X, int32(N) I) -> (A, B) { A(i) = X(i) > 0 ? 1 : 0\n"
      "B(i) = I(i) < 2 ? X(i) : I(i) }");
  EXPECT_EQ(def.tensors[def.find_tensor("A")].type, ElemType::kF32);
  EXPECT_EQ(def.statements[0].rhs.args[0].type, ElemType::kF64);
  EXPECT_EQ(def.tensors[def.find_tensor("B")].type, ElemType::kF64);
  EXPECT_EQ(def.statements[1].rhs.args[0].type, ElemType::kI32);
}

struct Case {
  std::string name;
  std::string text;
  std::string sizes;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

class SelectBackbones : public ::testing::TestWithParam<Case> {};

// Bit for bit: selects move values, and comparisons compare in their type on both sides.
TEST_P(SelectBackbones, InterpretedAsTheDerivedReference) {
  const Case& c = GetParam();
  const DefinitionLookup lookup = lookup_definition(c.text, "t.tc", "", c.sizes);
  ASSERT_TRUE(lookup.ok()) << lookup.error;
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  for (std::uint64_t seed : {1, 2, 3}) {
    backbone::HostArgs expected = backbone::make_host_args(kernel, seed);
    backbone::HostArgs actual = expected;
    lookup.info->reference(lookup.sizes, expected);
    backbone::interpret(kernel, actual);
    const std::optional<backbone::Mismatch> mismatch =
        backbone::compare_outputs(kernel, expected, actual, 0);
    EXPECT_FALSE(mismatch) << mismatch->to_string();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Definitions, SelectBackbones,
    ::testing::Values(
        Case{"relu", "def relu(float(N) X) -> (Y) { Y(i) = X(i) > 0 ? X(i) : 0 }", "N=37"},
        Case{"threshold",
             "def threshold(float(M,N) A, float(M,N) B) -> (C) {\n"
             "  C(m,n) = A(m,n) >= B(m,n) && A(m,n) > 0.5 ? 1 : 0\n}",
             "M=5,N=7"},
        Case{"clamp",
             "def clamp(float(N) X, float lo, float hi) -> (Y) {\n"
             "  Y(i) = X(i) < lo ? lo : (X(i) > hi ? hi : X(i))\n}",
             "N=37"},
        // int32, double and index comparisons, `!`, `||` over `&&`, a select of mixed types.
        Case{"logic",
             "def logic(int32(N) X, double(N) D) -> (Y) {\n"
             "  Y(i) = !(X(i) <= 2) && X(i) != 5 && !(D(i) < 0) || X(i) == -1 || i == 5\n"
             "         ? D(i) : X(i) * 2\n}",
             "N=37"},
        // A reduction of a select: how many elements of each row exceed 0.1 (a float, not 0.1).
        Case{"count_above",
             "def count_above(float(M,N) A) -> (C) { C(m) +=! A(m,n) > 0.1 ? 1 : 0 }", "M=5,N=40"},
        // A select read by a later statement, through a temporary.
        Case{"abs_then_floor",
             "def abs_then_floor(float(N) X) -> (Y) {\n"
             "  T(i) = X(i) < 0 ? -X(i) : X(i)\n"
             "  Y(i) = T(i) <= 0.5 ? 0.5 : T(i)\n}",
             "N=37"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace sculpt::frontend
