// `all_ids`: choices over a set with `all_ids` (or a subset of one) get slots only for the
// listed objects; everything else behaves as when instances are numbered over ids (see also
// property_test.cpp, which compares both numberings).
#include <gtest/gtest.h>

#include "generated/space_all_ids/space.h"
#include "tests/spacegen/space_fixture.h"

namespace sculpt::spacegen::test {
namespace {

using space_all_ids::Candidate;
namespace ids = space_all_ids::choice_id;
using namespace space_all_ids::values;

/// Statements 0 (a dimension), 1 (a flagged instruction), 2 (a flagged dimension) and 3 (an
/// instruction), room for 16 statements and `reserved` instructions to come.
Backbone backbone(std::uint32_t reserved) {
  Backbone fun;
  fun.add_dim({1, 2});
  fun.add_inst(/*flag=*/true);
  fun.add_dim({2, 4}, ~0u, /*flag=*/true);
  fun.add_inst();
  fun.reserved_insts = reserved;
  return fun;
}

TEST(SpacegenAllIds, ChoicesGetSlotsOnlyForListedObjects) {
  auto c = make_candidate<Candidate>(backbone(2));
  const Layout& layout = c->layout();
  // Instructions 1 and 3; slots for 4 and 5 come when a lowering adds them.
  EXPECT_EQ(layout.choices[ids::color].count, 2u);
  EXPECT_EQ(layout.choices[ids::link].count, 4u);   // 2 instructions x 2 dimensions
  EXPECT_EQ(layout.choices[ids::merge].count, 1u);  // the pair (0, 2)
  EXPECT_EQ(layout.choices[ids::width].count, 2u);
  EXPECT_EQ(layout.choices[ids::hot].count, 2u);  // FlagDims has the slots of Dims
  EXPECT_EQ(layout.slot(space_all_ids::set_id::Dims, 2), 1u);
  EXPECT_EQ(layout.slot(space_all_ids::set_id::Insts, 3), 1u);
  EXPECT_FALSE(layout.potential(space_all_ids::set_id::Insts, 6));
  EXPECT_EQ(c->to_string(),
            "color(1) = {RED, GREEN}\n"
            "color(3) = {RED, GREEN}\n"
            "link(1, 0) = {NO, YES}\n"
            "link(1, 2) = {NO, YES}\n"
            "link(3, 0) = {NO}\n"
            "link(3, 2) = {NO}\n"
            "merge(0, 2) = {NO, YES}\n"
            "hot(2) = {YES}\n"
            "width(0) = {1, 2}\n"
            "width(2) = {2, 4}\n");
  ASSERT_EQ(c->restrict_link(1, 0, link::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_color(1), color::RED);
  EXPECT_EQ(c->get_width(0), (Interval{2, 2}));
}

TEST(SpacegenAllIds, LoweringAddsAReservedInstruction) {
  auto c = make_candidate<Candidate>(backbone(1));
  EXPECT_FALSE(c->is_member(space_all_ids::set_id::Insts, 4));
  ASSERT_EQ(c->restrict_link(1, 0, link::YES), Status::Ok);
  ASSERT_EQ(c->restrict_merge(2, 0, merge::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->backbone().lowerings, 1);
  EXPECT_TRUE(c->is_member(space_all_ids::set_id::Insts, 4));
  // The block grew a slot of Insts; the domains decided before moved with it.
  EXPECT_EQ(c->layout().choices[ids::color].count, 3u);
  EXPECT_EQ(c->get_link(1, 0), link::YES);
  EXPECT_EQ(c->get_color(1), color::RED);
  EXPECT_EQ(c->get_width(0), (Interval{2, 2}));
  EXPECT_EQ(c->get_color(4), color::GREEN);
  EXPECT_EQ(c->get_link(4, 2), link::NO);  // the new instruction is not flagged
  // The trigger fired once for its pair.
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->backbone().lowerings, 1);
}

TEST(SpacegenAllIdsDeathTest, AnUnlistedNewObjectStopsWithAMessage) {
  auto c = make_candidate<Candidate>(backbone(0));
  ASSERT_EQ(c->restrict_merge(0, 2, merge::YES), Status::Ok);
  EXPECT_DEATH((void)c->propagate(),
               "a lowering added an object of Insts beyond its capacity or outside its all_ids");
}

}  // namespace
}  // namespace sculpt::spacegen::test
