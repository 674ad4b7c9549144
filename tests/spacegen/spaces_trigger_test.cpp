// Triggers, objects added by lowerings (their choices, constraints, counters and integer
// universes) and quotient sets.
#include <gtest/gtest.h>

#include "generated/space_counter_new_objects/space.h"
#include "generated/space_integer_new_objects/space.h"
#include "generated/space_quotient/space.h"
#include "generated/space_quotient_constraint/space.h"
#include "generated/space_quotient_counted/space.h"
#include "generated/space_trigger/space.h"
#include "generated/space_trigger_global/space.h"
#include "generated/space_trigger_late/space.h"
#include "tests/spacegen/space_fixture.h"

namespace sculpt::spacegen::test {
namespace {

/// The trigger space on two dimensions (0 and 1) and no instruction yet.
std::unique_ptr<space_trigger::Candidate> trigger_root() {
  return make_candidate<space_trigger::Candidate>(unit_dims(2));
}

TEST(SpacegenTrigger, LoweringAddsAConstrainedInstruction) {
  auto c = trigger_root();
  using namespace space_trigger::values;
  auto before = c->clone();
  EXPECT_FALSE(c->is_member(space_trigger::set_id::Insts, 2));
  ASSERT_EQ(c->restrict_merge(1, 0, merge::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->backbone().lowerings, 1);
  EXPECT_TRUE(c->is_member(space_trigger::set_id::Insts, 2));
  EXPECT_EQ(c->get_color(2), color::GREEN);
  // The copy taken before shares nothing that the lowering changed.
  auto* b = static_cast<space_trigger::Candidate*>(before.get());
  EXPECT_EQ(b->backbone().lowerings, 0);
  EXPECT_FALSE(b->is_member(space_trigger::set_id::Insts, 2));
  // A trigger fires once per object tuple.
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->backbone().lowerings, 1);
}

// A host condition is evaluated once per object tuple, on objects lowerings add too: a second
// candidate that adds the same instruction reads the answer the first one computed.
TEST(SpacegenTrigger, HostConditionsOnNewObjectsAreEvaluatedOnce) {
  auto root = trigger_root();
  using namespace space_trigger::values;
  const int at_root = root->backbone().lowered_queries;
  for (int evaluations : {1, 0}) {
    auto c = root->clone();
    auto* t = static_cast<space_trigger::Candidate*>(c.get());
    ASSERT_EQ(t->restrict_merge(1, 0, merge::YES), Status::Ok);
    ASSERT_EQ(t->propagate(), Status::Ok);
    EXPECT_EQ(t->get_color(2), color::GREEN);
    EXPECT_EQ(t->backbone().lowered_queries, at_root + evaluations);
  }
}

// A constraint is posted on a new object's tuples only where it can narrow them while the new
// object's domains are full; otherwise it waits for one of them to be restricted: support
// tables (shade, posted; order transitivity, woken) and clauses (color, posted; glow, woken).
TEST(SpacegenTrigger, ConstraintsReachNewObjects) {
  auto c = trigger_root();
  using namespace space_trigger::values;
  ASSERT_EQ(c->restrict_tag(0, tag::ON), Status::Ok);
  ASSERT_EQ(c->restrict_order(0, 1, order::BEFORE), Status::Ok);
  ASSERT_EQ(c->restrict_merge(1, 0, merge::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  ASSERT_TRUE(c->is_member(space_trigger::set_id::Insts, 2));
  EXPECT_EQ(c->get_shade(2), shade::DARK);
  EXPECT_EQ(c->get_glow(2), glow::BRIGHT);
  EXPECT_EQ(c->get_order(0, 2), order::BEFORE | order::AFTER);
  ASSERT_EQ(c->restrict_order(1, 2, order::BEFORE), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_order(0, 2), order::BEFORE);
}

TEST(SpacegenTriggerGlobal, TriggerOnACounter) {
  auto c = make_candidate<space_trigger_global::Candidate>(unit_dims(3));
  using namespace space_trigger_global::values;
  ASSERT_EQ(c->restrict_on(0, on::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->backbone().lowerings, 0);
  ASSERT_EQ(c->restrict_on(2, on::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->backbone().lowerings, 1);
  EXPECT_TRUE(c->is_member(space_trigger_global::set_id::Insts, 3));
}

// The next open instance of a search can be one a lowering adds before those already decided.
TEST(SpacegenTriggerLate, FirstOpenInstanceSeesNewObjects) {
  auto c = make_candidate<space_trigger_late::Candidate>(unit_dims(3));
  using namespace space_trigger_late::values;
  for (ObjectId d = 0; d < 3; ++d) ASSERT_EQ(c->restrict_color(d, color::RED), Status::Ok);
  ASSERT_EQ(c->restrict_merge(0, 1, merge::NO), Status::Ok);
  ASSERT_EQ(c->restrict_merge(0, 2, merge::NO), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->first_open_instance(), (InstanceRef{space_trigger_late::choice_id::merge, {1, 2}}));
  ASSERT_EQ(c->restrict_merge(1, 2, merge::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->first_open_instance(), (InstanceRef{space_trigger_late::choice_id::color, {3}}));
  ASSERT_EQ(c->restrict_color(3, color::GREEN), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->first_open_instance(), std::nullopt);
}

TEST(SpacegenCounterNewObjects, CountersIncludeObjectsAddedLater) {
  Backbone fun;
  fun.add_dim({1});
  fun.add_dim({1});
  fun.add_dim({1});
  fun.add_inst();
  auto c = make_candidate<space_counter_new_objects::Candidate>(fun);
  using namespace space_counter_new_objects::values;
  EXPECT_EQ(c->get_insts(), (Interval{1, 1}));
  ASSERT_EQ(c->restrict_go(0, go::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_insts(), (Interval{2, 2}));
  ASSERT_EQ(c->restrict_go(1, go::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_insts(), (Interval{3, 3}));
  // A third lowering breaks the bound: the candidate dies with the counter as the cause.
  ASSERT_EQ(c->restrict_go(2, go::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Conflict);
  EXPECT_EQ(c->conflict()->choice, "insts");
}

TEST(SpacegenIntegerNewObjects, NewInstancesGetTheirUniverse) {
  auto c = make_candidate<space_integer_new_objects::Candidate>(unit_dims(1));
  using namespace space_integer_new_objects::values;
  ASSERT_EQ(c->restrict_go(0, go::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->values_width(1), (std::vector<std::int64_t>{2, 4}));
  InstanceRef ref{space_integer_new_objects::choice_id::width, {1}};
  EXPECT_EQ(c->domain(ref).size(), 2u);
  EXPECT_EQ(c->value_name(ref, c->domain(ref)[0]), "2");
}

/// Three dimensions, all THREAD, not yet propagated.
std::unique_ptr<space_quotient::Candidate> three_thread_dims() {
  auto c = make_candidate<space_quotient::Candidate>(unit_dims(3));
  for (ObjectId d = 0; d < 3; ++d) {
    EXPECT_EQ(c->restrict_kind(d, space_quotient::values::kind::THREAD), Status::Ok);
  }
  return c;
}

TEST(SpacegenQuotient, RepresentativesAndTheirCounter) {
  auto c = three_thread_dims();
  using namespace space_quotient::values;
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_is_thread_dim(0), is_thread_dim::TRUE);
  EXPECT_EQ(c->get_is_thread_dim(1), is_thread_dim::ALL);
  EXPECT_EQ(c->backbone().marked, std::vector<std::uint32_t>{0});  // add_to_set
  ASSERT_EQ(c->restrict_mapping(0, 1, mapping::NOT_MAPPED), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_is_thread_dim(1), is_thread_dim::TRUE);
  // Two classes already: the third dimension cannot start another one.
  EXPECT_EQ(c->get_is_thread_dim(2), is_thread_dim::FALSE);
  EXPECT_EQ(c->get_num_threads(), (Interval{2, 2}));
  ASSERT_EQ(c->restrict_mapping(2, 0, mapping::NOT_MAPPED), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_mapping(1, 2), mapping::MAPPED);
  EXPECT_EQ(c->backbone().marked, (std::vector<std::uint32_t>{0, 1}));
}

// Both equivalences of dimension 2 to the lower ones change before it is re-checked: the one
// re-check sees neither left, and fails on the representative the counter ruled out.
TEST(SpacegenQuotient, EquivalencesChangedTogetherAreCheckedOnTheirFinalDomains) {
  auto c = three_thread_dims();
  using namespace space_quotient::values;
  ASSERT_EQ(c->restrict_mapping(0, 1, mapping::NOT_MAPPED), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  ASSERT_EQ(c->get_is_thread_dim(2), is_thread_dim::FALSE);
  ASSERT_EQ(c->get_mapping(2, 0), mapping::ALL);
  auto d = std::make_unique<space_quotient::Candidate>(*c);
  ASSERT_EQ(c->restrict_mapping(2, 0, mapping::NOT_MAPPED), Status::Ok);
  ASSERT_EQ(c->restrict_mapping(2, 1, mapping::NOT_MAPPED), Status::Ok);
  EXPECT_EQ(c->propagate(), Status::Conflict);
  EXPECT_EQ(c->conflict()->origin, "quotient ThreadDims");
  // One at a time, the first re-check forces the last possible equivalence instead.
  ASSERT_EQ(d->restrict_mapping(2, 0, mapping::NOT_MAPPED), Status::Ok);
  ASSERT_EQ(d->propagate(), Status::Ok);
  EXPECT_EQ(d->get_mapping(2, 1), mapping::MAPPED);
}

TEST(SpacegenQuotient, NonMembersAreNotRepresentatives) {
  auto c = make_candidate<space_quotient::Candidate>(unit_dims(2));
  using namespace space_quotient::values;
  ASSERT_EQ(c->restrict_kind(0, kind::LOOP), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_is_thread_dim(0), is_thread_dim::FALSE);
  ASSERT_EQ(c->restrict_is_thread_dim(1, is_thread_dim::TRUE), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_kind(1), kind::THREAD);
}

// The check settles the representatives and the counter counts them, but what the check does
// to a representative wakes nothing: the check would find nothing more to do, and nothing else
// reads them. A representative the search restricts is propagated.
TEST(SpacegenQuotientCounted, TheCheckDoesNotWakeItself) {
  auto c = make_candidate<space_quotient_counted::Candidate>(unit_dims(2));
  using namespace space_quotient_counted::values;
  const std::uint64_t start = CandidateBase::wakeups_on_this_thread();
  ASSERT_EQ(c->restrict_kind(0, kind::THREAD), Status::Ok);
  ASSERT_EQ(c->restrict_kind(1, kind::LOOP), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_is_thread_dim(0), is_thread_dim::TRUE);
  EXPECT_EQ(c->get_is_thread_dim(1), is_thread_dim::FALSE);
  EXPECT_EQ(c->get_num_threads(), (Interval{1, 1}));
  // kind(0), kind(1) and the counter; neither representative.
  EXPECT_EQ(CandidateBase::wakeups_on_this_thread() - start, 3u);
  auto d = make_candidate<space_quotient_counted::Candidate>(unit_dims(2));
  ASSERT_EQ(d->restrict_is_thread_dim(1, is_thread_dim::TRUE), Status::Ok);
  ASSERT_EQ(d->propagate(), Status::Ok);
  EXPECT_EQ(d->get_kind(1), kind::THREAD);
  EXPECT_EQ(d->get_mapping(0, 1), mapping::ALL);
  ASSERT_EQ(d->restrict_kind(0, kind::THREAD), Status::Ok);
  ASSERT_EQ(d->propagate(), Status::Ok);
  EXPECT_EQ(d->get_mapping(0, 1), mapping::NOT_MAPPED);
}

TEST(SpacegenQuotientConstraint, ConstraintOverRepresentatives) {
  auto c = make_candidate<space_quotient_constraint::Candidate>(unit_dims(2));
  using namespace space_quotient_constraint::values;
  ASSERT_EQ(c->restrict_kind(0, kind::THREAD), Status::Ok);
  ASSERT_EQ(c->restrict_kind(1, kind::LOOP), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_level(0), level::HIGH);
  EXPECT_EQ(c->get_level(1), level::ALL);
}

}  // namespace
}  // namespace sculpt::spacegen::test
