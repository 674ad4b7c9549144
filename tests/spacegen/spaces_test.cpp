// One test (or a few) per tiny space of tests/spacegen/spaces: the domains after
// propagation on the test backbone.
#include <gtest/gtest.h>

#include "generated/space_enum_is/space.h"
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

}  // namespace
}  // namespace sculpt::spacegen::test
