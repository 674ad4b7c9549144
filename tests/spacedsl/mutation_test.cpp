// The mutants of a model (spacedsl/mutation.h): which are listed, and what applying one changes.
#include "spacedsl/mutation.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/spacedsl/space_test_util.h"

namespace sculpt::spacedsl {
namespace {

constexpr std::string_view kSpace = R"space(
set Dims:
  type = "int"
  id_type = "int"
  iterator = "$fun.dims()"
  item_getter = "$id"
  id_getter = "$item"
  capacity = "8"
end

choice enum kind($d in Dims):
  value A:
  value B:
  value C:
end

choice integer size($d in Dims): "$d->sizes" end
)space";

constexpr std::string_view kRequires = R"space(

require forall $d in Dims:
  kind($d) is A || size($d) < "4"
  size($d) >= "2"

require forall $a in Dims:
  forall $b in Dims:
    size($a) == size($b) || kind($b) is not A
)space";

Model model(std::string_view requires_text = kRequires) {
  Diagnostics diags;
  std::optional<Model> m = load_space_from_string(std::string(kSpace) + std::string(requires_text),
                                                  "mutants.space", ".", diags);
  EXPECT_TRUE(m) << testing::printed(diags);
  return std::move(*m);
}

TEST(SpacedslMutation, ListsEveryKind) {
  const std::vector<std::string> expected = {
      "drop 0",           "drop 0.1",         "drop 0.1.1",       "widen 0.1.1 B", "widen 0.1.1 C",
      "drop 0.1.2",       "compare 0.1.2 <=", "compare 0.1.2 !=", "or 0.1 2.1",    "drop 0.2",
      "shift 0.2.1",      "or 0.2 1.1",       "or 0.2 1.2",       "drop 1",        "drop 1.1.1",
      "compare 1.1.1 <=", "compare 1.1.1 >=", "drop 1.1.2",
  };
  EXPECT_EQ(list_mutants(model()), expected);
}

TEST(SpacedslMutation, LeavesOutMutantsThatChangeNothingOrDuplicateAnother) {
  const Model m = model(R"space(
require forall $d in Dims:
  kind($d) is A || size($d) < "4"
  kind($d) is A || FALSE
  kind($d) is B || TRUE
)space");
  const std::vector<std::string> expected = {
      "drop 0",     "drop 0.1",         "drop 0.1.1",       "widen 0.1.1 B", "widen 0.1.1 C",
      "drop 0.1.2", "compare 0.1.2 <=", "compare 0.1.2 !=", "or 0.1 3.1",    "drop 0.2",
      "drop 0.2.1", "widen 0.2.1 B",    "widen 0.2.1 C",    "or 0.2 1.2",    "or 0.2 3.1",
      "drop 0.3",   "drop 0.3.2",
  };
  EXPECT_EQ(list_mutants(m), expected);
}

TEST(SpacedslMutation, AppliesOneMutant) {
  Model m = model();
  const Model original = m;
  EXPECT_TRUE(apply_mutant(m, "  \n"));
  EXPECT_EQ(m.constraints.size(), original.constraints.size());

  EXPECT_TRUE(apply_mutant(m, "widen 0.1.1 C\n"));
  const ValueSet widened = m.constraints[0].clauses[0].conditions[0].values;
  EXPECT_EQ(widened, original.constraints[0].clauses[0].conditions[0].values | 0b100);

  m = original;
  EXPECT_TRUE(apply_mutant(m, "compare 1.1.1 >="));
  const Condition& c = m.constraints[1].clauses[0].conditions[0];
  EXPECT_EQ(c.kind, Condition::Kind::CompareChoices);
  EXPECT_EQ(c.op, CompareOp::Ge);

  m = original;
  EXPECT_TRUE(apply_mutant(m, "shift 0.2.1"));
  EXPECT_EQ(m.constraints[0].clauses[1].conditions[0].code, "(2) - 1");

  m = original;
  EXPECT_TRUE(apply_mutant(m, "or 0.2 1.2"));
  EXPECT_EQ(m.constraints[0].clauses[1].conditions.size(), 2u);
  EXPECT_EQ(m.constraints[0].clauses[1].conditions[1].op, CompareOp::Lt);

  m = original;
  EXPECT_TRUE(apply_mutant(m, "drop 1.1.2"));
  EXPECT_EQ(m.constraints[1].clauses[0].conditions.size(), 1u);
  EXPECT_TRUE(apply_mutant(m, "drop 0"));
  EXPECT_EQ(m.constraints.size(), 1u);
}

TEST(SpacedslMutation, RefusesAnUnknownMutant) {
  Model m = model();
  for (const char* name : {"drop 2", "drop 1.1", "widen 0.1.1 A", "shift 0.1.2", "grow 0"}) {
    EXPECT_FALSE(apply_mutant(m, name)) << name;
  }
  EXPECT_EQ(m.constraints.size(), 2u);
}

}  // namespace
}  // namespace sculpt::spacedsl
