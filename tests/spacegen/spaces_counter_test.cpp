// Integer choices and counters of each kind: the domains and intervals after propagation.
#include <gtest/gtest.h>

#include "generated/space_counter_args/space.h"
#include "generated/space_counter_compare/space.h"
#include "generated/space_counter_force/space.h"
#include "generated/space_counter_max/space.h"
#include "generated/space_counter_mul/space.h"
#include "generated/space_counter_nested/space.h"
#include "generated/space_counter_sum/space.h"
#include "generated/space_counter_wide/space.h"
#include "generated/space_half_counter/space.h"
#include "generated/space_int_counter_value/space.h"
#include "generated/space_integer_code/space.h"
#include "generated/space_integer_equal/space.h"
#include "generated/space_parametric/space.h"
#include "tests/spacegen/space_fixture.h"

namespace sculpt::spacegen::test {
namespace {

using Values = std::vector<std::int64_t>;

TEST(SpacegenIntegerCode, ComparisonsWithHostCodeCutTheUniverse) {
  Backbone fun;
  fun.add_dim({8, 1, 2, 3, 4});
  auto c = make_candidate<space_integer_code::Candidate>(fun);
  using namespace space_integer_code::values;
  EXPECT_EQ(c->values_size(0), (Values{1, 2, 4, 8}));
  EXPECT_EQ(c->get_size(0), (Interval{1, 8}));
  ASSERT_EQ(c->restrict_kind(0, kind::VECTOR), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->values_size(0), (Values{1, 2, 4}));
  ASSERT_EQ(c->restrict_size(0, Interval{8, 8}), Status::Conflict);
}

TEST(SpacegenIntegerCode, LargeUniverses) {
  Backbone fun;
  std::vector<std::int64_t> sizes;
  for (std::int64_t v = 1; v <= 300; ++v) sizes.push_back(v);
  fun.add_dim(sizes);
  auto c = make_candidate<space_integer_code::Candidate>(fun);
  EXPECT_EQ(c->values_size(0).size(), 299u);
  ASSERT_EQ(c->restrict_size(0, Interval{250, 1000}), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_size(0), (Interval{250, 300}));
  EXPECT_EQ(c->get_kind(0), space_integer_code::values::kind::LOOP);
}

TEST(SpacegenIntegerEqual, EqualityAndOrderBetweenIntegers) {
  Backbone fun;
  fun.add_dim({1, 2, 4, 8});
  fun.add_dim({2, 4, 16});
  auto c = make_candidate<space_integer_equal::Candidate>(fun);
  using namespace space_integer_equal::values;
  auto same = c->clone();
  auto* s = static_cast<space_integer_equal::Candidate*>(same.get());
  ASSERT_EQ(s->restrict_link(1, 0, link::SAME), Status::Ok);
  ASSERT_EQ(s->propagate(), Status::Ok);
  EXPECT_EQ(s->values_size(0), (Values{2, 4}));
  EXPECT_EQ(s->values_size(1), (Values{2, 4}));
  ASSERT_EQ(c->restrict_link(0, 1, link::SMALLER), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->values_size(0), (Values{1, 2, 4, 8}));
  ASSERT_EQ(c->restrict_size(1, Interval{2, 2}), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->values_size(0), (Values{1}));
}

TEST(SpacegenParametric, TilesOfOneLogicalDimensionShareTheirSize) {
  Backbone fun;
  fun.add_logical();
  fun.add_logical();
  fun.add_dim({1, 2, 4}, 0);
  fun.add_dim({2, 4, 8}, 0);
  fun.add_dim({1, 2}, 1);
  auto c = make_candidate<space_parametric::Candidate>(fun);
  EXPECT_EQ(c->values_size(0), (Values{2, 4}));
  EXPECT_EQ(c->values_size(1), (Values{2, 4}));
  EXPECT_EQ(c->values_size(2), (Values{1, 2}));
  ASSERT_EQ(c->restrict_size(1, Interval{4, 4}), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->values_size(0), (Values{4}));
}

TEST(SpacegenCounterSum, BoundForbidsIncrements) {
  Backbone fun;
  fun.add_mem(60);
  fun.add_mem(50);
  fun.add_mem(30);
  auto c = make_candidate<space_counter_sum::Candidate>(fun);
  using namespace space_counter_sum::values;
  EXPECT_EQ(c->get_shared_mem(), (Interval{0, 100}));
  ASSERT_EQ(c->restrict_mem_space(0, mem_space::SHARED), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_mem_space(1), mem_space::GLOBAL);
  EXPECT_EQ(c->get_mem_space(2), mem_space::ALL);
  EXPECT_EQ(c->get_shared_mem(), (Interval{60, 90}));
  ASSERT_EQ(c->restrict_mem_space(2, mem_space::GLOBAL), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_shared_mem(), (Interval{60, 60}));
}

TEST(SpacegenCounterForce, LowerBoundForcesIncrements) {
  Backbone fun;
  fun.add_mem(4);
  fun.add_mem(3);
  fun.add_mem(5);
  fun.add_mem(1);
  auto c = make_candidate<space_counter_force::Candidate>(fun);
  using namespace space_counter_force::values;
  EXPECT_EQ(c->get_used(0), used::YES);
  EXPECT_EQ(c->get_used(1), used::ALL);
  EXPECT_EQ(c->get_used(2), used::YES);
  EXPECT_EQ(c->get_used(3), used::ALL);
  ASSERT_EQ(c->restrict_used(3, used::NO), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_used(1), used::YES);
  EXPECT_EQ(c->get_total(), (Interval{12, 12}));
}

TEST(SpacegenCounterMul, ProductBoundRestrictsCountedSizes) {
  Backbone fun;
  fun.add_dim({1, 2, 4, 8});
  fun.add_dim({1, 2, 4, 8});
  auto c = make_candidate<space_counter_mul::Candidate>(fun);
  using namespace space_counter_mul::values;
  EXPECT_EQ(c->get_threads(), (Interval{1, 16}));
  ASSERT_EQ(c->restrict_kind(0, kind::THREAD), Status::Ok);
  ASSERT_EQ(c->restrict_kind(1, kind::THREAD), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  ASSERT_EQ(c->restrict_size(0, Interval{8, 8}), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->values_size(1), (Values{1, 2}));
  EXPECT_EQ(c->get_threads(), (Interval{8, 16}));
}

TEST(SpacegenCounterMul, LargeSizeForbidsCounting) {
  Backbone fun;
  fun.add_dim({32});
  auto c = make_candidate<space_counter_mul::Candidate>(fun);
  EXPECT_EQ(c->get_kind(0), space_counter_mul::values::kind::LOOP);
}

// A term whose change leaves the counter as it was wakes it only when the bounds now cut that
// term: the counter's readers and its other terms have nothing new to learn.
TEST(SpacegenCounterMul, UnchangedCounterWakesOnlyForATermToCut) {
  Backbone fun;
  fun.add_dim({1, 2});
  fun.add_dim({1, 2});
  auto c = make_candidate<space_counter_mul::Candidate>(fun);
  using namespace space_counter_mul::values;
  const std::uint64_t start = CandidateBase::wakeups_on_this_thread();
  // Counted, size(0) still brings [1, 2]: the product stays [1, 4], well under 16.
  ASSERT_EQ(c->restrict_kind(0, kind::THREAD), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_threads(), (Interval{1, 4}));
  EXPECT_EQ(CandidateBase::wakeups_on_this_thread() - start, 1u);  // kind(0) alone
}

TEST(SpacegenCounterMul, UnchangedCounterStillCutsTheTermNowCounted) {
  Backbone fun;
  fun.add_dim({1, 2, 4, 8, 16});
  fun.add_dim({2});
  auto c = make_candidate<space_counter_mul::Candidate>(fun);
  using namespace space_counter_mul::values;
  ASSERT_EQ(c->restrict_kind(1, kind::THREAD), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->values_size(0), (Values{1, 2, 4, 8, 16}));
  // Counted or not, size(0) brings [1, 16] to the product; counted, it may bring 8 at most.
  ASSERT_EQ(c->restrict_kind(0, kind::THREAD), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->values_size(0), (Values{1, 2, 4, 8}));
}

TEST(SpacegenCounterMax, LargestCountedValueCappedByTheBound) {
  Backbone fun;
  fun.add_dim({2, 4});
  fun.add_dim({1, 8, 16});
  fun.add_dim({32});
  fun.add_mem(1);
  fun.add_mem(1);
  auto c = make_candidate<space_counter_max::Candidate>(fun);
  using namespace space_counter_max::values;
  // Counting the 32-wide dimension would break the bound.
  EXPECT_EQ(c->get_kind(2), kind::LOOP);
  EXPECT_EQ(c->get_widest(), (Interval{0, 8}));
  ASSERT_EQ(c->restrict_kind(1, kind::THREAD), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->values_size(1), (Values{1, 8}));
  EXPECT_EQ(c->get_widest(), (Interval{1, 8}));
  ASSERT_EQ(c->restrict_kind(0, kind::THREAD), Status::Ok);
  ASSERT_EQ(c->restrict_size(1, Interval{8, 8}), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_widest(), (Interval{8, 8}));
  EXPECT_EQ(c->get_squared(), (Interval{64, 64}));
  // Without the widest term the maximum comes down to the next one.
  auto other = make_candidate<space_counter_max::Candidate>(fun);
  ASSERT_EQ(other->restrict_kind(0, kind::THREAD), Status::Ok);
  ASSERT_EQ(other->restrict_size(0, Interval{4, 4}), Status::Ok);
  ASSERT_EQ(other->restrict_kind(1, kind::LOOP), Status::Ok);
  ASSERT_EQ(other->propagate(), Status::Ok);
  EXPECT_EQ(other->get_widest(), (Interval{4, 4}));
}

TEST(SpacegenHalfCounter, KeepsTheLowerEndAgainstAnUpperBound) {
  Backbone fun;
  fun.add_dim({1});
  fun.add_dim({1});
  fun.add_dim({1});
  auto c = make_candidate<space_half_counter::Candidate>(fun);
  using namespace space_half_counter::values;
  // `lo` and the upper bound: a half counter has no `hi`, and nothing bounds it from below.
  EXPECT_EQ(c->layout().choices[space_half_counter::choice_id::unroll].stride, 8u);
  ASSERT_EQ(c->restrict_unrolled(1, unrolled::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_unrolled(2), unrolled::NO);
  EXPECT_EQ(c->get_unrolled(0), unrolled::ALL);
  EXPECT_EQ(c->get_unroll().lo, 2);
  ASSERT_EQ(c->restrict_unrolled(0, unrolled::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_unroll().lo, 3);
}

TEST(SpacegenCounterArgs, OneCounterPerLogicalDimension) {
  Backbone fun;
  fun.add_logical();
  fun.add_logical();
  fun.add_dim({1}, 0);
  fun.add_dim({1}, 0);
  fun.add_dim({1}, 1);
  auto c = make_candidate<space_counter_args::Candidate>(fun);
  using namespace space_counter_args::values;
  EXPECT_EQ(c->get_tiles(0), (Interval{0, 1}));
  ASSERT_EQ(c->restrict_active(0, active::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_active(1), active::NO);
  EXPECT_EQ(c->get_active(2), active::ALL);
  EXPECT_EQ(c->get_tiles(0), (Interval{1, 1}));
  EXPECT_EQ(c->get_tiles(1), (Interval{0, 1}));
}

TEST(SpacegenCounterNested, CounterOfACounter) {
  Backbone fun;
  fun.add_dim({1});
  fun.add_dim({1});
  fun.add_mem(1);
  fun.add_mem(1);
  auto c = make_candidate<space_counter_nested::Candidate>(fun);
  using namespace space_counter_nested::values;
  // Unbounded: `lo` and `hi` only.
  EXPECT_EQ(c->layout().choices[space_counter_nested::choice_id::inner].stride, 8u);
  EXPECT_EQ(c->layout().choices[space_counter_nested::choice_id::outer].stride, 8u);
  EXPECT_EQ(c->get_inner(), (Interval{0, 4}));
  EXPECT_EQ(c->get_outer(), (Interval{0, 8}));
  ASSERT_EQ(c->restrict_on(0, on::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_inner(), (Interval{2, 4}));
  EXPECT_EQ(c->get_outer(), (Interval{4, 8}));
  ASSERT_EQ(c->restrict_on(1, on::NO), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->get_outer(), (Interval{4, 4}));
}

// Products past 32 bits and a bound past them stay exact: 2^20 * 2^16 leaves room for at most
// 2^4 of the last size under 2^40, so 2^8 goes. A copy keeps its own values.
TEST(SpacegenCounterWide, ValuesPast32BitsStayExact) {
  Backbone fun;
  fun.add_dim({1, std::int64_t{1} << 20});
  fun.add_dim({1, std::int64_t{1} << 16});
  fun.add_dim({1, std::int64_t{1} << 8});
  auto c = make_candidate<space_counter_wide::Candidate>(fun);
  EXPECT_EQ(c->get_volume(), (Interval{1, std::int64_t{1} << 40}));
  ASSERT_EQ(c->restrict_size(0, Interval{1 << 20, 1 << 20}), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  auto copy = c->clone();
  ASSERT_EQ(c->restrict_size(1, Interval{1 << 16, 1 << 16}), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->values_size(2), (Values{1}));
  EXPECT_EQ(c->get_volume(), (Interval{std::int64_t{1} << 36, std::int64_t{1} << 36}));
  auto& other = static_cast<space_counter_wide::Candidate&>(*copy);
  EXPECT_EQ(other.get_volume(), (Interval{1 << 20, std::int64_t{1} << 40}));
  ASSERT_EQ(other.restrict_size(1, Interval{1, 1}), Status::Ok);
  ASSERT_EQ(other.propagate(), Status::Ok);
  EXPECT_EQ(other.get_volume(), (Interval{1 << 20, std::int64_t{1} << 28}));
  EXPECT_EQ(c->get_volume(), (Interval{std::int64_t{1} << 36, std::int64_t{1} << 36}));
}

TEST(SpacegenCounterCompare, CounterAgainstIntegerChoice) {
  Backbone fun;
  fun.add_dim({1, 2, 3});
  fun.add_mem(1);
  fun.add_mem(1);
  auto c = make_candidate<space_counter_compare::Candidate>(fun);
  using namespace space_counter_compare::values;
  auto d = c->clone();
  ASSERT_EQ(c->restrict_on(0, on::YES), Status::Ok);
  ASSERT_EQ(c->restrict_on(1, on::YES), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->values_size(0), (Values{2, 3}));
  auto* e = static_cast<space_counter_compare::Candidate*>(d.get());
  ASSERT_EQ(e->restrict_on(0, on::YES), Status::Ok);
  ASSERT_EQ(e->restrict_size(0, Interval{1, 1}), Status::Ok);
  ASSERT_EQ(e->propagate(), Status::Ok);
  EXPECT_EQ(e->get_on(1), on::NO);
}

TEST(SpacegenIntCounterValue, SumOfIntegersWithBothBounds) {
  Backbone fun;
  fun.add_dim({1, 2, 3});
  fun.add_dim({1, 2, 3, 4});
  auto c = make_candidate<space_int_counter_value::Candidate>(fun);
  EXPECT_EQ(c->values_size(0), (Values{1, 2, 3}));
  EXPECT_EQ(c->values_size(1), (Values{2, 3, 4}));
  ASSERT_EQ(c->restrict_size(0, Interval{3, 3}), Status::Ok);
  ASSERT_EQ(c->propagate(), Status::Ok);
  EXPECT_EQ(c->values_size(1), (Values{2}));
  EXPECT_EQ(c->get_total(), (Interval{5, 5}));
}

}  // namespace
}  // namespace sculpt::spacegen::test
