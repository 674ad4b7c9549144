// The spacegen runtime on its own: integer domains, three-valued comparisons, counter
// arithmetic and the layout's instance numbering.
#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "spacegen/runtime/counter.h"
#include "spacegen/runtime/layout.h"

namespace sculpt::spacegen {
namespace {

TEST(SpacegenRuntime, IntDomainBoundsAndRestrictions) {
  std::vector<std::int64_t> universe;
  for (std::int64_t v = 0; v < 130; ++v) universe.push_back(v * 2);
  std::vector<std::uint64_t> words(3, ~std::uint64_t{0});
  words[2] = (std::uint64_t{1} << 2) - 1;  // 130 values
  IntDomainRef d(reinterpret_cast<unsigned char*>(words.data()), universe);
  EXPECT_EQ(d.bounds(), (Interval{0, 258}));
  EXPECT_TRUE(d.restrict_range({10, 200}));
  EXPECT_FALSE(d.restrict_range({10, 200}));
  EXPECT_EQ(d.bounds(), (Interval{10, 200}));
  EXPECT_TRUE(d.contains_value(128));
  EXPECT_FALSE(d.contains_value(129));
  EXPECT_TRUE(d.remove_value(10));
  EXPECT_FALSE(d.remove_value(11));
  EXPECT_EQ(d.bounds().lo, 12);
  std::vector<std::int64_t> other_universe = {12, 13, 150};
  unsigned char other_bits = 0b111;
  IntDomainRef other(&other_bits, other_universe);
  EXPECT_TRUE(d.keep_values_of(other));
  EXPECT_EQ(d.bounds(), (Interval{12, 150}));
  EXPECT_TRUE(d.restrict_range({13, 149}));
  EXPECT_TRUE(d.empty());
}

TEST(SpacegenRuntime, NarrowIntDomainsStayInTheirBytes) {
  const std::vector<std::int64_t> universe = {1, 2, 4, 8, 16};
  unsigned char bytes[3] = {0xff, 0b11111, 0xff};  // the domain is the middle byte
  IntDomainRef d(bytes + 1, universe);
  EXPECT_EQ(d.bounds(), (Interval{1, 16}));
  const std::uint64_t mask[] = {0b11110110};
  EXPECT_TRUE(d.keep_indices(mask));
  EXPECT_EQ(d.bounds(), (Interval{2, 16}));
  EXPECT_TRUE(d.restrict_range({3, 20}));
  EXPECT_TRUE(d.remove_value(16));
  EXPECT_EQ(d.bounds(), (Interval{4, 4}));
  EXPECT_EQ(bytes[0], 0xff);
  EXPECT_EQ(bytes[2], 0xff);
}

TEST(SpacegenRuntime, ThreeValuedComparisons) {
  EXPECT_EQ(truth_compare({1, 3}, CompareOp::Lt, {4, 5}), Truth::True);
  EXPECT_EQ(truth_compare({1, 4}, CompareOp::Lt, {4, 5}), Truth::Unknown);
  EXPECT_EQ(truth_compare({5, 6}, CompareOp::Le, {4, 5}), Truth::Unknown);
  EXPECT_EQ(truth_compare({6, 7}, CompareOp::Le, {4, 5}), Truth::False);
  EXPECT_EQ(truth_compare({2, 2}, CompareOp::Eq, {2, 2}), Truth::True);
  EXPECT_EQ(truth_compare({2, 2}, CompareOp::Ne, {3, 4}), Truth::True);
  EXPECT_EQ(truth_is(0b011, 0b001), Truth::Unknown);
  EXPECT_EQ(truth_is(0b001, 0b011), Truth::True);
  EXPECT_EQ(truth_is(0b100, 0b011), Truth::False);
  // What wakes a propagator reading `domain is 0b011`: the truth settling (counters, quotient
  // checks), or only becoming false (clauses).
  EXPECT_TRUE(truth_settled(0b111, 0b011, 0b011));
  EXPECT_FALSE(truth_falsified(0b111, 0b011, 0b011));
  EXPECT_TRUE(truth_falsified(0b111, 0b100, 0b011));
  EXPECT_FALSE(truth_settled(0b111, 0b101, 0b011));
  EXPECT_FALSE(truth_falsified(0b111, 0b101, 0b011));
  EXPECT_TRUE(truth_settled(0b111, 0b100, 0b011));
  EXPECT_EQ(truth_enum_equal(0b010, 0b010), Truth::True);
  EXPECT_EQ(truth_enum_equal(0b011, 0b010), Truth::Unknown);
  EXPECT_EQ(allowed_range(CompareOp::Lt, {4, 9}), (Interval{-kInfinity, 8}));
  EXPECT_EQ(mirror(CompareOp::Le), CompareOp::Ge);
  EXPECT_EQ(negate(CompareOp::Le), CompareOp::Gt);
}

TEST(SpacegenRuntime, CounterTermsAndSlack) {
  EXPECT_EQ(contribution(CounterOp::Sum, Truth::Unknown, {3, 5}), (Interval{0, 5}));
  EXPECT_EQ(contribution(CounterOp::Mul, Truth::Unknown, {2, 8}), (Interval{1, 8}));
  EXPECT_EQ(contribution(CounterOp::Mul, Truth::False, {2, 8}), (Interval{1, 1}));
  CounterState s{4, 64, -kInfinity, 16};
  ASSERT_TRUE(replace_term(CounterOp::Mul, false, s, {1, 8}, {2, 8}));
  EXPECT_EQ(s.lo, 8);
  EXPECT_EQ(s.hi, 64);
  EXPECT_FALSE(replace_term(CounterOp::Mul, false, s, {0, 8}, {2, 8}));
  // A maximum of [4, 16]: a term below it changes nothing, one at it may only grow.
  CounterState max{4, 16, -kInfinity, kInfinity};
  ASSERT_TRUE(replace_term(CounterOp::Max, false, max, {2, 8}, {3, 8}));
  EXPECT_EQ(max.value(), (Interval{4, 16}));
  ASSERT_TRUE(replace_term(CounterOp::Max, false, max, {4, 16}, {5, 16}));
  EXPECT_EQ(max.value(), (Interval{5, 16}));
  EXPECT_FALSE(replace_term(CounterOp::Max, false, max, {5, 16}, {5, 8})) << "the rest is unknown";
  EXPECT_EQ(max.value(), (Interval{5, 16})) << "left as it was";
  ASSERT_TRUE(replace_term(CounterOp::Max, true, max, {5, 16}, {5, 8})) << "a half counter";
  // lo 8 = 4 (rest) * 2 (this term); counted, this term may be at most 16 / 4.
  TermSlack slack = term_slack(CounterOp::Mul, s, Truth::True, {2, 8});
  EXPECT_EQ(slack.value.hi, 4);
  CounterState sum{10, 20, 15, kInfinity};
  // Without a term of [0, 6] the rest reaches at most 14 < 15: the term is forced.
  EXPECT_TRUE(term_slack(CounterOp::Sum, sum, Truth::Unknown, {6, 6}).force);
  EXPECT_EQ(sat_mul(kInfinity, 4), kInfinity);
  EXPECT_EQ(sat_add(kInfinity, kInfinity), kInfinity);
}

TEST(SpacegenRuntime, CountersStoreOnlyTheirFields) {
  EXPECT_EQ(counter_bytes(kCounterHi | kCounterMin | kCounterMax), 16u);
  EXPECT_EQ(counter_bytes(kCounterMax), 8u);
  unsigned char slot[16] = {};
  const auto no_wide = [](unsigned) -> std::int64_t {
    ADD_FAILURE() << "no field is wide";
    return 0;
  };
  const auto keep_none = [](unsigned, const std::optional<std::int64_t>& v) {
    EXPECT_FALSE(v) << "no field is wide";
  };
  const CounterState half_bounded{3, kInfinity, -kInfinity, 9};
  write_counter(slot, kCounterMax, half_bounded, keep_none);
  CounterState read = read_counter(slot, kCounterMax, no_wide);
  EXPECT_EQ(read.value(), (Interval{3, 9}));
  EXPECT_EQ(read.hi, kInfinity);
  EXPECT_EQ(read.min_bound, -kInfinity);
  const CounterState unbounded{-2, 5, -kInfinity, kInfinity};
  write_counter(slot, kCounterHi, unbounded, keep_none);
  read = read_counter(slot, kCounterHi, no_wide);
  EXPECT_EQ(read.value(), (Interval{-2, 5}));
  EXPECT_EQ(read.max_bound, kInfinity);
}

// Values without a 32-bit code go aside, and come back; saturated values keep their codes.
TEST(SpacegenRuntime, WideCounterFieldsGoAside) {
  unsigned char slot[16] = {};
  std::map<unsigned, std::int64_t> aside;
  const auto keep = [&](unsigned field, const std::optional<std::int64_t>& v) {
    if (v) {
      aside[field] = *v;
    } else {
      aside.erase(field);
    }
  };
  const auto fetch = [&](unsigned field) { return aside.at(field); };
  const std::int64_t big = std::int64_t{1} << 40;
  const CounterState wide{-big, big, -kInfinity, kInfinity};
  write_counter(slot, kCounterHi | kCounterMin, wide, keep);
  EXPECT_EQ(aside.size(), 2u);
  CounterState read = read_counter(slot, kCounterHi | kCounterMin, fetch);
  EXPECT_EQ(read.value(), (Interval{-big, big}));
  EXPECT_EQ(read.min_bound, -kInfinity);
  const CounterState narrow{std::numeric_limits<std::int32_t>::min() + 2,
                            std::numeric_limits<std::int32_t>::max() - 1, 0, kInfinity};
  write_counter(slot, kCounterHi | kCounterMin, narrow, keep);
  EXPECT_TRUE(aside.empty());
  read = read_counter(slot, kCounterHi | kCounterMin, fetch);
  EXPECT_EQ(read.lo, narrow.lo);
  EXPECT_EQ(read.hi, narrow.hi);
  EXPECT_EQ(read.min_bound, 0);
  EXPECT_EQ(counter_code(std::numeric_limits<std::int32_t>::max()), kWideCode);
  EXPECT_EQ(counter_code(kInfinity), kPlusInfinityCode);
}

TEST(SpacegenRuntime, LayoutIndexAndDecodeRoundTrip) {
  SpaceTable table;
  table.sets = {{"S", false}, {"T", false}};
  table.choices.push_back({"pair",
                           ChoiceKind::Enum,
                           {0, 0},
                           Symmetry::Antisymmetric,
                           {"A", "B", "C"},
                           {1, 0, 2},
                           false});
  table.choices.push_back({"grid", ChoiceKind::Enum, {0, 1, 1}, Symmetry::None, {"X"}, {}, false});
  LayoutBuilder builder(table);
  builder.set_capacity(0, 7);
  builder.set_capacity(1, 3);
  builder.add_member(0, 6);
  builder.add_member(1, 2);
  builder.place_choices();
  Layout layout = builder.finish();
  EXPECT_EQ(layout.choices[0].count, 21u);
  EXPECT_EQ(layout.choices[1].count, 63u);
  for (std::uint32_t c = 0; c < 2; ++c) {
    for (std::size_t i = 0; i < layout.choices[c].count; ++i) {
      ObjectId ids[kMaxArity] = {};
      layout.decode(c, i, ids);
      EXPECT_EQ(layout.index(c, ids), i);
      if (c == 0) {
        EXPECT_LT(ids[0], ids[1]);
      }
    }
  }
}

TEST(SpacegenRuntime, AllIdsNumberInstancesOverTheirSlots) {
  SpaceTable table;
  table.sets = {{"S", false}, {"T", false}};
  table.choices.push_back(
      {"pair", ChoiceKind::Enum, {1, 1}, Symmetry::Symmetric, {"A"}, {}, false});
  table.choices.push_back({"grid", ChoiceKind::Enum, {0, 1}, Symmetry::None, {"X"}, {}, false});
  LayoutBuilder builder(table);
  builder.set_capacity(0, 7);
  builder.set_capacity(1, 7);
  builder.set_all_ids(1, {6, 1, 3, 1}, std::nullopt);
  builder.add_member(0, 6);
  builder.add_member(1, 6);
  EXPECT_DEATH(builder.add_member(1, 2), "object 2 of set T is not in its all_ids");
  builder.place_choices();
  Layout layout = builder.finish();
  EXPECT_EQ(layout.choices[0].count, 3u);
  EXPECT_EQ(layout.choices[1].count, 21u);
  EXPECT_EQ(layout.slot(1, 6), 2u);
  EXPECT_FALSE(layout.potential(1, 2));
  for (std::uint32_t c = 0; c < 2; ++c) {
    for (std::size_t i = 0; i < layout.choices[c].count; ++i) {
      ObjectId ids[kMaxArity] = {};
      layout.decode(c, i, ids);
      EXPECT_EQ(layout.index(c, ids), i);
      EXPECT_TRUE(layout.potential(1, ids[1])) << ids[1];
    }
  }
}

// A static filter's table keeps each tuple's value over the slots of its sets, and the tuples
// that hold as bitsets over ids, one per object of the other argument, for the loops that skip
// them; records made by the layout's builder and by later queries land in the same table.
TEST(SpacegenRuntime, FilterTablesIndexHoldingTuplesByEitherArgument) {
  SpaceTable table;
  table.sets = {{"S", false}, {"T", false}};
  LayoutBuilder builder(table);
  builder.set_capacity(0, 70);
  builder.set_capacity(1, 70);
  builder.set_all_ids(1, {3, 65, 69}, std::nullopt);
  builder.place_choices();
  builder.declare_filter(0, {0, 1});
  builder.record_filter(0, {66, 65}, true);
  builder.record_filter(0, {2, 65}, false);
  builder.declare_filter(1, {0});
  builder.record_filter(1, {67, 0}, true);
  Layout layout = builder.finish();
  FilterTable& pairs = layout.family->filters[0];
  const ObjectId later[] = {5, 3};
  pairs.record(layout, later, true);
  auto bits = [](std::span<const std::atomic<std::uint64_t>> row) {
    std::vector<ObjectId> ids;
    for (std::size_t w = 0; w < row.size(); ++w) {
      for (ObjectId b = 0; b < 64; ++b) {
        if ((row[w].load() >> b) & 1) ids.push_back(static_cast<ObjectId>(64 * w + b));
      }
    }
    return ids;
  };
  EXPECT_EQ(bits(pairs.holding(layout, 0, 65)), std::vector<ObjectId>{66});
  EXPECT_EQ(bits(pairs.holding(layout, 0, 3)), std::vector<ObjectId>{5});
  EXPECT_EQ(bits(pairs.holding(layout, 0, 69)), std::vector<ObjectId>{});
  EXPECT_EQ(bits(pairs.holding(layout, 1, 66)), std::vector<ObjectId>{65});
  EXPECT_EQ(bits(pairs.holding(layout, 1, 2)), std::vector<ObjectId>{});
  // Values sit at slot(a0) * slots(T) + slot(a1): T's slots are the ranks of its all_ids.
  EXPECT_EQ(layout.static_filters[0][66 * 3 + 1].load(), 2);
  EXPECT_EQ(layout.static_filters[0][2 * 3 + 1].load(), 1);
  EXPECT_EQ(layout.static_filters[0][5 * 3 + 0].load(), 2);
  EXPECT_EQ(layout.static_filters[0][5 * 3 + 2].load(), 0);
  EXPECT_EQ(bits(layout.family->filters[1].holding(layout, 0, 0)), std::vector<ObjectId>{67});
  EXPECT_EQ(layout.static_filters[1][67].load(), 2);
}

TEST(SpacegenRuntime, IntegerSlotsAreAsNarrowAsTheWidestUniverse) {
  SpaceTable table;
  table.sets = {{"S", false}};
  for (const char* name : {"a", "b", "c", "d"}) {
    table.choices.push_back({name, ChoiceKind::Integer, {0}, Symmetry::None, {}, {}, false});
  }
  LayoutBuilder builder(table);
  builder.set_capacity(0, 2);
  builder.add_member(0, 1);
  builder.place_choices();
  const std::size_t widest[] = {8, 9, 32, 65};
  for (std::uint32_t c = 0; c < 4; ++c) {
    std::vector<std::int64_t> values;
    for (std::size_t v = 0; v < widest[c]; ++v) values.push_back(static_cast<std::int64_t>(v));
    builder.set_universe(c, 1, values);
    builder.set_universe(c, 0, {1});
  }
  Layout layout = builder.finish();
  EXPECT_EQ(layout.choices[0].stride, 1u);
  EXPECT_EQ(layout.choices[1].stride, 2u);
  EXPECT_EQ(layout.choices[2].stride, 4u);
  EXPECT_EQ(layout.choices[3].stride, 16u);
  EXPECT_EQ(layout.choices[2].offset % 4, 0u);
}

// Only the slots up to the highest member's are stored; growing keeps every instance's
// place in order (triangular indices unchanged, row-major ones remapped) and the universes.
TEST(SpacegenRuntime, LayoutGrowsWithTheMembers) {
  SpaceTable table;
  table.sets = {{"S", false}, {"T", false}};
  table.choices.push_back(
      {"pair", ChoiceKind::Enum, {0, 0}, Symmetry::Antisymmetric, {"A", "B"}, {1, 0}, false});
  table.choices.push_back({"grid", ChoiceKind::Integer, {0, 1}, Symmetry::None, {}, {}, false});
  table.num_triggers = 1;
  LayoutBuilder builder(table);
  builder.set_capacity(0, 8);
  builder.set_capacity(1, 4);
  for (ObjectId id : {0u, 2u}) builder.add_member(0, id);
  builder.add_member(1, 1);
  builder.place_choices();
  const ObjectId probe[] = {2, 1};
  builder.set_universe(1, builder.index(1, probe), {3, 5});
  builder.add_trigger(0, {0});
  auto root = std::make_shared<const Layout>(builder.finish());
  EXPECT_EQ(root->choices[0].count, 3u);  // pairs over slots 0..2
  EXPECT_EQ(root->choices[1].count, 6u);  // 3 x 2
  auto grown = root->grown({5, 3});
  EXPECT_EQ(root->grown({5, 3}), grown);  // one layout per vector of stored slots
  EXPECT_EQ(grown->choices[0].count, 10u);
  EXPECT_EQ(grown->choices[1].count, 15u);
  EXPECT_EQ(grown->trigger_offset.size(), 1u);
  for (std::uint32_t c = 0; c < 2; ++c) {
    for (std::size_t i = 0; i < root->choices[c].count; ++i) {
      ObjectId ids[kMaxArity] = {};
      root->decode(c, i, ids);
      EXPECT_EQ(root->index_in(*grown, c, i), grown->index(c, ids));
    }
  }
  const std::span<const std::int64_t> universe = grown->universe(1, grown->index(1, probe));
  EXPECT_EQ(std::vector<std::int64_t>(universe.begin(), universe.end()),
            (std::vector<std::int64_t>{3, 5}));
}

}  // namespace
}  // namespace sculpt::spacegen
