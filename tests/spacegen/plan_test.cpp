// The generator's analysis on its own: plans of small spaces, built from text through the
// front end, checked field by field (support tables, wake classes, settled clauses, woken
// patterns, wake-ups, triangles).
#include "spacegen/plan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "spacedsl/frontend.h"

namespace sculpt::spacegen {
namespace {

/// The model of `text`, which may include the test spaces' `sets.space`.
spacedsl::Model model_of(const std::string& text) {
  spacedsl::Diagnostics diags;
  std::optional<spacedsl::Model> model = spacedsl::load_space_from_string(
      text, "plan_test.space", std::filesystem::path(SCULPT_TEST_DATA_DIR) / "spaces", diags);
  EXPECT_TRUE(model.has_value());
  return model ? *model : spacedsl::Model{};
}

const char* const kColorShape = R"(include "sets.space"
choice enum color($s in Statements):
  value RED:
  value GREEN:
  value BLUE:
end
choice enum shape($s in Statements):
  value ROUND:
  value SQUARE:
end
)";

TEST(SpacegenPlan, TwoInstanceSupportTableKeepsWhatTheOtherDomainSupports) {
  const spacedsl::Model model = model_of(std::string(kColorShape) + R"(
require forall $s in Statements:
  color($s) is RED || shape($s) is ROUND
  color($s) is GREEN || shape($s) is SQUARE
)");
  const Plan plan = build_plan(model);
  ASSERT_EQ(plan.supports.size(), 1u);
  ASSERT_TRUE(plan.supports[0].has_value());
  const SupportTable& table = *plan.supports[0];
  // The assignments allowed: (RED, SQUARE) and (GREEN, ROUND); BLUE has no support.
  // color given the domain of shape (bit 0 ROUND, bit 1 SQUARE): none, GREEN, RED, both.
  EXPECT_EQ(table.keep[0], (std::vector<std::uint64_t>{0, 2, 1, 3}));
  // shape given the domain of color: BLUE adds nothing.
  EXPECT_EQ(table.keep[1], (std::vector<std::uint64_t>{0, 2, 1, 3, 0, 2, 1, 3}));
  // Losing or keeping BLUE never changes what shape keeps: one class with and without it.
  EXPECT_EQ(table.wake_classes[0], (std::vector<std::uint8_t>{0, 1, 2, 3, 0, 1, 2, 3}));
  // Every domain of shape is its own class.
  EXPECT_TRUE(table.wake_classes[1].empty());
  EXPECT_EQ(plan.woken_patterns[0], (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(plan.constraints[0].settled, (std::vector<bool>{false, false}));
  // Generated names say where the constraint is written.
  EXPECT_EQ(plan.constraint_names, (std::vector<std::string>{"plan_test_12"}));
}

TEST(SpacegenPlan, ClausesOfOneEnumIsAndStaticCodeAreSettledWhenPosted) {
  const spacedsl::Model model = model_of(std::string(kColorShape) + R"(
require forall $s in Statements:
  color($s) is RED || "!$s->flag"
  color($s) is GREEN || FALSE || "$s->flag"
  color($s) is RED || shape($s) is ROUND || "$s->flag"
)");
  const Plan plan = build_plan(model);
  EXPECT_FALSE(plan.supports[0].has_value());
  EXPECT_EQ(plan.constraints[0].settled, (std::vector<bool>{true, true, false}));
  // color($s) wakes the third clause only; shape($s) too.
  ASSERT_EQ(plan.patterns[0].size(), 2u);
  EXPECT_EQ(plan.woken_patterns[0], (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(plan.woken_clauses[0][0], (std::vector<std::size_t>{2}));
  EXPECT_EQ(plan.woken_clauses[0][1], (std::vector<std::size_t>{2}));
  // The host conditions name one variable: each is a static filter.
  EXPECT_EQ(plan.filters.size(), 3u);
}

TEST(SpacegenPlan, AnIsConditionWakesOnlyWhenItBecomesFalse) {
  const spacedsl::Model model = model_of(std::string(kColorShape) + R"(
require forall $s in Statements:
  color($s) is RED || shape($s) is ROUND || "$s->flag"
)");
  const Plan plan = build_plan(model);
  const ModelQueries q(model);
  Wake wake = wake_of(q, plan.constraints[0], plan.patterns[0][0], false, false);
  EXPECT_EQ(wake.settled, (std::vector<ValueSet>{1}));  // RED
  wake.falsified = true;
  const spacedsl::ChoiceId color = plan.patterns[0][0].choice;
  EXPECT_TRUE(fires(q, plan, color, wake, 0b111, 0b110));   // loses RED
  EXPECT_FALSE(fires(q, plan, color, wake, 0b111, 0b101));  // loses GREEN
  EXPECT_FALSE(fires(q, plan, color, wake, 0b111, 0b001));  // becomes RED: satisfied
}

TEST(SpacegenPlan, TransitivityIsASymmetricTriangle) {
  const spacedsl::Model model = model_of(R"(include "sets.space"
choice enum order($a in Statements, $b in Statements):
  value BEFORE:
  value AFTER:
  value MERGED:
  antisymmetric:
    BEFORE -> AFTER
end
require forall $a in Statements:
  forall $b in Statements:
    forall $c in Statements:
      order($a, $c) is BEFORE || order($a, $b) is not BEFORE || order($b, $c) is not BEFORE
)");
  const Plan plan = build_plan(model);
  ASSERT_TRUE(plan.supports[0].has_value());
  EXPECT_TRUE(plan.supports[0]->symmetric);
  // One pattern of the choice wakes (the others are its permutations).
  EXPECT_EQ(plan.woken_patterns[0], (std::vector<std::size_t>{0}));
  // Full domains over a new object narrow nothing: the table is not posted on new objects.
  EXPECT_TRUE(plan.posted_vars[0].empty());
  // order($a, $c) woken: the sides are order($a, $b) and order($b, $c), read from $b.
  ASSERT_TRUE(plan.triangles[0][0].has_value());
  const TriangleShape& shape = *plan.triangles[0][0];
  EXPECT_EQ(shape.third, 1u);
  EXPECT_EQ(shape.sides, (std::array<std::size_t, 2>{1, 2}));
  EXPECT_EQ(shape.flipped, (std::array<bool, 2>{false, true}));
  EXPECT_TRUE(plan.scanned_as_triangle[plan.patterns[0][0].choice]);
}

TEST(SpacegenPlan, QuotientVariablesAreDesugaredIntoRepresentativeConditions) {
  const spacedsl::Model model = model_of(R"(include "quotient_constraint.space"
choice counter reps():
  forall $d in Reps:
    sum "1" when:
end
)");
  const Plan plan = build_plan(model);
  const spacedsl::ChoiceId repr = model.quotients[0].repr_choice;
  const spacedsl::ValueSet is_true = ModelQueries(model).value_bit(repr, "TRUE");
  // A constraint over Reps holds for the representatives: `repr($d) is FALSE ||` its clause.
  ASSERT_EQ(plan.constraints[0].clauses[0].size(), 2u);
  const spacedsl::Condition& in_constraint = plan.constraints[0].clauses[0][1];
  EXPECT_EQ(in_constraint.lhs.choice, repr);
  EXPECT_EQ(in_constraint.values, ~is_true & 0b11);
  // A counter over Reps counts them: `repr($d) is TRUE` joins its conditions.
  ASSERT_EQ(plan.counters.size(), 1u);
  ASSERT_EQ(plan.counters[0].clauses[0].size(), 1u);
  EXPECT_EQ(plan.counters[0].clauses[0][0].lhs.choice, repr);
  EXPECT_EQ(plan.counters[0].clauses[0][0].values, is_true);
}

}  // namespace
}  // namespace sculpt::spacegen
