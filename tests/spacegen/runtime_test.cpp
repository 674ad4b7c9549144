// The spacegen runtime on its own: integer domains, three-valued comparisons, counter
// arithmetic and the layout's instance numbering.
#include <gtest/gtest.h>

#include "spacegen/runtime/counter.h"
#include "spacegen/runtime/layout.h"

namespace sculpt::spacegen {
namespace {

TEST(SpacegenRuntime, IntDomainBoundsAndRestrictions) {
  std::vector<std::int64_t> universe;
  for (std::int64_t v = 0; v < 130; ++v) universe.push_back(v * 2);
  std::vector<std::uint64_t> words(3, ~std::uint64_t{0});
  words[2] = (std::uint64_t{1} << 2) - 1;  // 130 values
  IntDomainRef d(words.data(), universe);
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
  std::vector<std::uint64_t> other_words = {0b111};
  IntDomainRef other(other_words.data(), other_universe);
  EXPECT_TRUE(d.keep_values_of(other));
  EXPECT_EQ(d.bounds(), (Interval{12, 150}));
  EXPECT_TRUE(d.restrict_range({13, 149}));
  EXPECT_TRUE(d.empty());
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
  // lo 8 = 4 (rest) * 2 (this term); counted, this term may be at most 16 / 4.
  TermSlack slack = term_slack(CounterOp::Mul, s, Truth::True, {2, 8});
  EXPECT_EQ(slack.value.hi, 4);
  CounterState sum{10, 20, 15, kInfinity};
  // Without a term of [0, 6] the rest reaches at most 14 < 15: the term is forced.
  EXPECT_TRUE(term_slack(CounterOp::Sum, sum, Truth::Unknown, {6, 6}).force);
  EXPECT_EQ(sat_mul(kInfinity, 4), kInfinity);
  EXPECT_EQ(sat_add(kInfinity, kInfinity), kInfinity);
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

}  // namespace
}  // namespace sculpt::spacegen
