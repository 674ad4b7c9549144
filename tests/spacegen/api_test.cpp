// The type-erased view the search uses: open instances, restriction by value index, actions
// in their stable JSON form and their replay, copies, hashes, the readable dump and the count of
// wake-ups.
#include <gtest/gtest.h>

#include "generated/space_transitivity/space.h"
#include "tests/spacegen/space_fixture.h"

namespace sculpt::spacegen::test {
namespace {

using space_transitivity::Candidate;
namespace order = space_transitivity::values::order;

std::unique_ptr<Candidate> three_instructions() {
  Backbone fun;
  for (int i = 0; i < 3; ++i) fun.add_inst();
  return make_candidate<Candidate>(fun);
}

TEST(SpacegenApi, OpenInstancesAndRestrictionThroughTheInvolution) {
  auto c = three_instructions();
  std::vector<InstanceRef> open = c->open_instances();
  ASSERT_EQ(open.size(), 3u);  // one stored instance per pair
  EXPECT_EQ(c->open_instance_count(), 3u);
  EXPECT_EQ(open[0], (InstanceRef{space_transitivity::choice_id::order, {0, 1}}));
  InstanceRef reversed{space_transitivity::choice_id::order, {1, 0}};
  EXPECT_EQ(c->domain(reversed).size(), 3u);
  ASSERT_EQ(c->restrict(reversed, {1}), Status::Ok);  // order(1, 0) is AFTER
  EXPECT_EQ(c->get_order(0, 1), order::BEFORE);
  EXPECT_EQ(c->value_name(reversed, c->domain(reversed)[0]), "AFTER");
  EXPECT_EQ(c->open_instances().size(), 2u);
  EXPECT_EQ(c->open_instance_count(), 2u);
  EXPECT_EQ(c->live_instance_count(), 3u);  // the fixed one stays live
}

// A wake-up is a changed instance whose propagators run: the unit the benchmarks count.
TEST(SpacegenApi, WakeUpsCountTheChangedInstancesPropagated) {
  auto c = three_instructions();
  const std::uint64_t start = CandidateBase::wakeups_on_this_thread();
  ASSERT_EQ(c->restrict({space_transitivity::choice_id::order, {0, 1}}, {0}), Status::Ok);
  EXPECT_EQ(CandidateBase::wakeups_on_this_thread() - start, 1u);  // order(0, 1) alone
  // order(1, 2) is BEFORE, so order(0, 2) becomes BEFORE too: two instances changed.
  ASSERT_EQ(c->restrict({space_transitivity::choice_id::order, {1, 2}}, {0}), Status::Ok);
  EXPECT_EQ(c->get_order(0, 2), order::BEFORE);
  EXPECT_EQ(CandidateBase::wakeups_on_this_thread() - start, 3u);
  // A restriction that changes nothing wakes nothing.
  ASSERT_EQ(c->restrict({space_transitivity::choice_id::order, {0, 2}}, {0}), Status::Ok);
  EXPECT_EQ(CandidateBase::wakeups_on_this_thread() - start, 3u);
}

TEST(SpacegenApi, ActionsRoundTripAndReplay) {
  auto c = three_instructions();
  auto fresh = c->clone();
  InstanceRef ref{space_transitivity::choice_id::order, {2, 1}};
  Action action = c->make_action(ref, {0});
  EXPECT_EQ(to_json(action), R"({"choice":"order","objects":[2,1],"value":"BEFORE"})");
  Action two = c->make_action({space_transitivity::choice_id::order, {0, 2}}, {0, 2});
  EXPECT_EQ(to_json(two), R"({"choice":"order","objects":[0,2],"values":["BEFORE","MERGED"]})");
  std::string error;
  auto parsed = action_from_json(to_json(action), &error);
  ASSERT_TRUE(parsed.has_value()) << error;
  EXPECT_EQ(*parsed, action);
  ASSERT_EQ(c->apply({action, two}), Status::Ok);
  ASSERT_EQ(fresh->apply({*action_from_json(to_json(action), &error),
                          *action_from_json(to_json(two), &error)}),
            Status::Ok);
  EXPECT_EQ(c->hash(), fresh->hash());
  EXPECT_EQ(c->to_string(), fresh->to_string());
  EXPECT_NE(c->to_string().find("order(1, 2) = {AFTER}"), std::string::npos) << c->to_string();
}

TEST(SpacegenApi, BadActionsAreReportedNotThrown) {
  auto c = three_instructions();
  std::string error;
  EXPECT_FALSE(action_from_json("{\"choice\":1}", &error).has_value());
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(action_from_json("not json", &error).has_value());
  // An id past 32 bits is refused, not cut to another object's.
  EXPECT_FALSE(
      action_from_json(R"({"choice":"order","objects":[4294967296,1],"value":"BEFORE"})", &error)
          .has_value());
  EXPECT_EQ(error, "object ids must be non-negative 32-bit integers");
  EXPECT_EQ(c->apply({Action{"order", {0, 1}, {"SIDEWAYS"}}}), Status::Conflict);
  EXPECT_EQ(c->conflict()->origin, "replay");
  EXPECT_EQ(c->conflict()->to_string(),
            "order(0, 1) cannot be replayed: unknown value SIDEWAYS of order");
  auto d = three_instructions();
  EXPECT_EQ(d->apply({Action{"order", {0, 7}, {"BEFORE"}}}), Status::Conflict);
  EXPECT_EQ(d->conflict()->to_string(),
            "order(0, 7) cannot be replayed: no live instance of order over these objects");
  auto e = three_instructions();
  EXPECT_EQ(e->apply({Action{"colour", {0}, {"RED"}}}), Status::Conflict);
  EXPECT_EQ(e->conflict()->to_string(), "colour(0) cannot be replayed: unknown choice colour");
}

TEST(SpacegenApi, CopiesAreIndependentAndHashesDiffer) {
  auto c = three_instructions();
  auto copy = c->clone();
  EXPECT_EQ(c->hash(), copy->hash());
  ASSERT_EQ(c->restrict_order(0, 1, order::MERGED), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_NE(c->hash(), copy->hash());
  EXPECT_EQ(static_cast<Candidate*>(copy.get())->get_order(0, 1), order::ALL);
  EXPECT_EQ(c->block_bytes(), copy->block_bytes());
}

}  // namespace
}  // namespace sculpt::spacegen::test
