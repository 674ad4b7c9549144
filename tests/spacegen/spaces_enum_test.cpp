// Enum conditions, aliases, `==`/`!=`, symmetry, antisymmetry, host-code filters and
// conflicts: the domains after propagation on the test backbone.
#include <gtest/gtest.h>

#include "generated/space_alias/space.h"
#include "generated/space_antisymmetric/space.h"
#include "generated/space_choice_equal/space.h"
#include "generated/space_conflict/space.h"
#include "generated/space_enum_is/space.h"
#include "generated/space_enum_wide/space.h"
#include "generated/space_equal_pairs/space.h"
#include "generated/space_implication/space.h"
#include "generated/space_static_code/space.h"
#include "generated/space_supports/space.h"
#include "generated/space_symmetric/space.h"
#include "generated/space_transitivity/space.h"
#include "tests/spacegen/space_fixture.h"

namespace sculpt::spacegen::test {
namespace {

TEST(SpacegenEnumIs, InstructionsLoseBlueAndRedForcesRound) {
  Backbone fun;
  fun.add_inst();
  fun.add_dim({1, 2});
  auto c = make_candidate<space_enum_is::Candidate>(fun);
  using namespace space_enum_is::values;
  EXPECT_EQ(c->get_color(0), color::RED | color::GREEN);
  EXPECT_EQ(c->get_color(1), color::ALL);
  ASSERT_EQ(c->restrict_shape(1, shape::SQUARE), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_color(1), color::GREEN | color::BLUE);
  ASSERT_EQ(c->restrict_color(0, color::RED), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_shape(0), shape::ROUND);
}

// A clause is woken when one of its conditions becomes false, also when the domain got there in
// two restrictions before propagating; a condition that becomes true satisfies it.
TEST(SpacegenEnumIs, ClausesWakeWhenAConditionBecomesFalse) {
  auto c = make_candidate<space_enum_is::Candidate>(unit_dims(2));
  using namespace space_enum_is::values;
  ASSERT_EQ(c->restrict_color(0, color::GREEN), Status::Ok);  // `is not RED` becomes true
  ASSERT_EQ(c->restrict_color(1, color::RED | color::GREEN), Status::Ok);
  ASSERT_EQ(c->restrict_color(1, color::RED), Status::Ok);  // then false
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_shape(0), shape::ALL);
  EXPECT_EQ(c->get_shape(1), shape::ROUND);
}

// Ten values take two bytes a domain, two values two bits; both read and restrict alike,
// through the generated accessors and the type-erased view.
TEST(SpacegenEnumWide, WholeBytesBesidePackedBits) {
  Backbone fun;
  fun.add_inst();
  fun.add_dim({1, 2});
  fun.add_inst();
  auto c = make_candidate<space_enum_wide::Candidate>(fun);
  using namespace space_enum_wide::values;
  const ChoiceLayout& wide = c->layout().choices[space_enum_wide::choice_id::digit];
  const ChoiceLayout& packed = c->layout().choices[space_enum_wide::choice_id::parity];
  EXPECT_EQ(wide.bits, 0u);
  EXPECT_EQ(wide.stride, 2u);
  EXPECT_EQ(packed.bits, 2u);
  ASSERT_EQ(c->restrict_digit(2, digit::D9), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_parity(2), parity::ODD);
  EXPECT_EQ(c->get_parity(1), parity::ALL);
  ASSERT_EQ(c->restrict_parity(1, parity::ODD), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_digit(1), digit::ALL & ~digit::D8);
  const InstanceRef digit1{space_enum_wide::choice_id::digit, {1}};
  ASSERT_EQ(c->restrict(digit1, {8, 9}), Status::Ok);
  EXPECT_EQ(c->domain(digit1), (std::vector<std::uint32_t>{9}));
  EXPECT_EQ(c->domain({space_enum_wide::choice_id::parity, {0}}),
            (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(c->get_digit(0), digit::ALL);
}

TEST(SpacegenAlias, ValueRequiresAndAliasRequires) {
  Backbone fun;
  fun.add_dim({1}, ~0u, /*flag=*/false);
  fun.add_dim({1}, ~0u, /*flag=*/true);
  auto c = make_candidate<space_alias::Candidate>(fun);
  using namespace space_alias::values;
  EXPECT_EQ(c->get_kind(0), kind::LOOP | kind::PARALLEL);  // UNROLL needs the flag
  EXPECT_EQ(c->get_kind(1), kind::ALL);
  ASSERT_EQ(c->restrict_mode(0, mode::SLOW), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_kind(0), kind::LOOP);
  ASSERT_EQ(c->restrict_kind(1, kind::THREAD), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_mode(1), mode::FAST);
}

TEST(SpacegenImplication, LastConditionIsForced) {
  auto c = make_candidate<space_implication::Candidate>(unit_dims(2));
  using namespace space_implication::values;
  ASSERT_EQ(c->restrict_a(0, a::Y | a::Z), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_b(0), b::Q);
  ASSERT_EQ(c->restrict_b(1, b::P), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_a(1), a::X);
}

TEST(SpacegenChoiceEqual, EqualAndNotEqual) {
  auto c = make_candidate<space_choice_equal::Candidate>(unit_dims(1));
  using namespace space_choice_equal::values;
  ASSERT_EQ(c->restrict_left(0, left::A | left::C), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_right(0), right::A | right::C);
  EXPECT_EQ(c->get_other(0), other::ALL);
  ASSERT_EQ(c->restrict_right(0, right::C), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_left(0), left::C);
  EXPECT_EQ(c->get_other(0), other::A | other::B);
}

TEST(SpacegenEqualPairs, EqualityBetweenObjectsFilteredByHostCode) {
  Backbone fun;
  fun.add_dim({1}, ~0u, true);
  fun.add_dim({1}, ~0u, true);
  fun.add_dim({1}, ~0u, false);
  auto c = make_candidate<space_equal_pairs::Candidate>(fun);
  using namespace space_equal_pairs::values;
  ASSERT_EQ(c->restrict_mode(0, mode::FAST), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_mode(1), mode::FAST);
  EXPECT_EQ(c->get_mode(2), mode::ALL);
}

TEST(SpacegenAntisymmetric, ReverseReadsThroughTheInvolution) {
  Backbone fun;
  fun.add_inst();
  fun.add_dim({1});
  fun.add_dim({1});
  auto c = make_candidate<space_antisymmetric::Candidate>(fun);
  using namespace space_antisymmetric::values;
  EXPECT_EQ(c->get_order(0, 1), order::BEFORE | order::AFTER);
  EXPECT_EQ(c->get_order(1, 0), order::BEFORE | order::AFTER);
  EXPECT_EQ(c->get_order(1, 2), order::ALL);
  ASSERT_EQ(c->restrict_order(2, 1, order::INNER), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_order(1, 2), order::OUTER);
  EXPECT_EQ(c->get_order(2, 1), order::INNER);
  ASSERT_EQ(c->restrict_order(1, 0, order::AFTER), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_order(0, 1), order::BEFORE);
  // Half of the pairs are stored, over the statements present: 3 pairs of one byte.
  EXPECT_EQ(c->layout().choices[space_antisymmetric::choice_id::order].count, 3u);
}

TEST(SpacegenTransitivity, OrderIsTransitive) {
  Backbone fun;
  for (int i = 0; i < 4; ++i) fun.add_inst();
  auto c = make_candidate<space_transitivity::Candidate>(fun);
  using namespace space_transitivity::values;
  ASSERT_EQ(c->restrict_order(0, 1, order::BEFORE), Status::Ok);
  ASSERT_EQ(c->restrict_order(2, 1, order::AFTER), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_order(0, 2), order::BEFORE);
  EXPECT_EQ(c->get_order(2, 0), order::AFTER);
  EXPECT_EQ(c->get_order(0, 3), order::ALL);
  ASSERT_EQ(c->restrict_order(3, 0, order::AFTER), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_order(3, 2), order::ALL);
  ASSERT_EQ(c->restrict_order(2, 3, order::BEFORE), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_order(0, 3), order::BEFORE);
  EXPECT_EQ(c->get_order(1, 3), order::BEFORE);
}

TEST(SpacegenSupports, AValueNoAssignmentSupportsIsRemoved) {
  Backbone fun;
  fun.add_inst();
  fun.add_inst();
  auto c = make_candidate<space_supports::Candidate>(fun);
  using namespace space_supports::values;
  EXPECT_EQ(c->get_color(0), color::RED | color::GREEN);
  EXPECT_EQ(c->get_shape(0), shape::ALL);
  ASSERT_EQ(c->restrict_shape(0, shape::ROUND), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_color(0), color::GREEN);
  EXPECT_EQ(c->get_color(1), color::RED | color::GREEN);
  EXPECT_EQ(c->restrict_color(1, color::BLUE), Status::Conflict);
  ASSERT_TRUE(c->conflict().has_value());
  EXPECT_EQ(c->conflict()->choice, "color");
}

TEST(SpacegenTransitivity, CycleIsAConflict) {
  Backbone fun;
  for (int i = 0; i < 3; ++i) fun.add_inst();
  auto c = make_candidate<space_transitivity::Candidate>(fun);
  using namespace space_transitivity::values;
  ASSERT_EQ(c->restrict_order(0, 1, order::BEFORE), Status::Ok);
  ASSERT_EQ(c->restrict_order(1, 2, order::BEFORE), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->restrict_order(2, 0, order::BEFORE), Status::Conflict);
  ASSERT_TRUE(c->conflict().has_value());
  EXPECT_EQ(c->conflict()->choice, "order");
}

TEST(SpacegenSymmetric, BothOrdersReadTheSameInstance) {
  auto c = make_candidate<space_symmetric::Candidate>(unit_dims(3));
  using namespace space_symmetric::values;
  ASSERT_EQ(c->restrict_fused(1, 0, fused::TRUE), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_fused(0, 1), fused::TRUE);
  ASSERT_EQ(c->restrict_kind(1, kind::THREAD), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_kind(0), kind::THREAD);
  EXPECT_EQ(c->get_kind(2), kind::ALL);
  ASSERT_EQ(c->restrict_kind(2, kind::LOOP), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_fused(2, 0), fused::FALSE);
  EXPECT_EQ(c->get_fused(1, 2), fused::FALSE);
}

TEST(SpacegenStaticCode, HostConditionsAndConstants) {
  Backbone fun;
  fun.add_inst(/*flag=*/true);
  fun.add_inst(/*flag=*/false);
  auto c = make_candidate<space_static_code::Candidate>(fun);
  using namespace space_static_code::values;
  EXPECT_EQ(c->get_color(0), color::RED);
  EXPECT_EQ(c->get_color(1), color::GREEN);
}

TEST(SpacegenConflict, ConflictNamesConstraintAndInstance) {
  Backbone fun;
  fun.add_inst(/*flag=*/true);
  fun.add_dim({1}, ~0u, /*flag=*/true);
  Status status = Status::Ok;
  auto c = make_candidate<space_conflict::Candidate>(fun, &status);
  ASSERT_EQ(status, Status::Conflict);
  ASSERT_TRUE(c->conflict().has_value());
  const Conflict& conflict = *c->conflict();
  EXPECT_EQ(conflict.choice, "color");
  EXPECT_EQ(conflict.objects, std::vector<ObjectId>{1});
  EXPECT_NE(conflict.origin.find("Dimensions are green"), std::string::npos) << conflict.origin;
  EXPECT_NE(conflict.location.find("conflict.space:"), std::string::npos) << conflict.location;
  EXPECT_EQ(conflict.clause, 1u);
  // A dead candidate stays dead.
  EXPECT_EQ(c->propagate(), Status::Conflict);
}

}  // namespace
}  // namespace sculpt::spacegen::test
