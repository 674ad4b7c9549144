// The bit-parallel triangle scan (spacegen/runtime/triangle.h) against the one-object-at-a-time
// reading of the same support tables, on random relations, domains and member sets of one word
// (rows cached between scans) and of several, for every argument order of the sides.
#include <gtest/gtest.h>

#include <random>
#include <tuple>
#include <vector>

#include "spacegen/runtime/triangle.h"

namespace sculpt::spacegen {
namespace {

constexpr std::size_t kValues = 5;
constexpr std::array<std::uint8_t, kValues> kInvolution = {1, 0, 3, 2, 4};
constexpr std::size_t kObjects = 150;

ValueSet flip(ValueSet d) {
  ValueSet out = 0;
  for (std::size_t u = 0; u < kValues; ++u) out |= ((d >> u) & 1) << kInvolution[u];
  return out;
}

ValueSet random_domain(std::mt19937& rng) {
  ValueSet d = 0;
  while (d == 0) d = rng() % (1 << kValues);
  return d;
}

constexpr std::size_t kPairs = kObjects * (kObjects - 1) / 2;

/// Lower-triangle storage of c(lo, hi), packed as spacegen lays out an antisymmetric choice.
struct Relation {
  std::vector<unsigned char> slots = std::vector<unsigned char>((kPairs * kValues + 7) / 8 + 8);
  ValueSet get(ObjectId a, ObjectId b) const {
    if (a > b) return flip(get(b, a));
    return load_packed(slots.data(), std::size_t{b} * (b - 1) / 2 + a, kValues);
  }
  /// Stores as a candidate's restrictions do, telling the cached rows.
  void set(ObjectId lo, ObjectId hi, ValueSet d) {
    store_packed(slots.data(), std::size_t{hi} * (hi - 1) / 2 + lo, kValues, d);
    note_triangle_store<kValues>(rows, 0, lo, hi, d, flip(d));
  }
  void randomize(std::mt19937& rng) {
    for (ObjectId hi = 1; hi < kObjects; ++hi) {
      for (ObjectId lo = 0; lo < hi; ++lo) set(lo, hi, random_domain(rng));
    }
  }
  RowVersion rows;
};

/// The support tables of a random set of allowed (edge, side 0, side 1) values, indexed by
/// (edge domain << kValues) | other side's domain, as the generator builds them.
struct Tables {
  std::vector<std::uint8_t> keep0 = std::vector<std::uint8_t>(1 << (2 * kValues));
  std::vector<std::uint8_t> keep1 = std::vector<std::uint8_t>(1 << (2 * kValues));
};

Tables random_tables(std::mt19937& rng) {
  std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> allowed;
  for (std::size_t e = 0; e < kValues; ++e) {
    for (std::size_t s0 = 0; s0 < kValues; ++s0) {
      for (std::size_t s1 = 0; s1 < kValues; ++s1) {
        if (rng() % 3 != 0) allowed.emplace_back(e, s0, s1);
      }
    }
  }
  Tables t;
  for (std::size_t index = 0; index < t.keep0.size(); ++index) {
    const std::size_t edge = index >> kValues;
    const std::size_t other = index & ((1 << kValues) - 1);
    for (auto [e, s0, s1] : allowed) {
      if (!((edge >> e) & 1)) continue;
      if ((other >> s1) & 1) t.keep0[index] |= static_cast<std::uint8_t>(1 << s0);
      if ((other >> s0) & 1) t.keep1[index] |= static_cast<std::uint8_t>(1 << s1);
    }
  }
  return t;
}

struct Narrowing {
  ObjectId z;
  ValueSet keep0;
  ValueSet keep1;
  friend bool operator==(const Narrowing&, const Narrowing&) = default;
};

/// Random member sets over `num_objects` objects.
std::vector<std::uint64_t> random_members(std::mt19937& rng, std::size_t num_objects) {
  std::vector<std::uint64_t> members((num_objects + 63) / 64);
  for (ObjectId z = 0; z < num_objects; ++z) {
    if (rng() % 4 != 0) members[z / 64] |= std::uint64_t{1} << (z % 64);
  }
  return members;
}

/// Scans the change of c(x, y) to `edge` (random) and expects what the scalar reading narrows.
void expect_scan_matches_scalar(std::mt19937& rng, const Tables& tables, const Triangle<kValues>& t,
                                const Relation& c, const std::vector<std::uint64_t>& members,
                                std::size_t num_objects) {
  const auto x = static_cast<ObjectId>(rng() % num_objects);
  auto y = static_cast<ObjectId>(rng() % num_objects);
  if (y == x) y = static_cast<ObjectId>((x + 1) % num_objects);
  const ValueSet edge = random_domain(rng);
  const bool flipped0 = t.sides[0].flipped;
  const bool flipped1 = t.sides[1].flipped;
  std::vector<Narrowing> expected;
  for (ObjectId z = 0; z < num_objects; ++z) {
    if (z == x || z == y || !((members[z / 64] >> (z % 64)) & 1)) continue;
    const ValueSet d0 = flipped0 ? c.get(z, x) : c.get(x, z);
    const ValueSet d1 = flipped1 ? c.get(z, y) : c.get(y, z);
    const ValueSet k0 = d0 & tables.keep0[(edge << kValues) | d1];
    const ValueSet k1 = d1 & tables.keep1[(edge << kValues) | d0];
    if (k0 != d0 || k1 != d1) expected.push_back({z, k0, k1});
  }
  std::vector<Narrowing> seen;
  const Status s = scan_triangle(t, c.rows, 0, c.slots.data(), members, x, y, edge,
                                 [&](ObjectId z, ValueSet k0, ValueSet k1) {
                                   seen.push_back({z, k0, k1});
                                   return Status::Ok;
                                 });
  EXPECT_EQ(s, Status::Ok);
  ASSERT_EQ(seen.size(), expected.size()) << "x " << x << ", y " << y;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i], expected[i]) << "narrowing " << i << " of z " << expected[i].z;
  }
}

// Sets of up to 64 objects read the rows cached for the relation's version; larger ones
// gather them at every scan.
TEST(SpacegenTriangle, ScanNarrowsWhatTheScalarReadingNarrows) {
  std::mt19937 rng(7);
  for (const std::size_t num_objects : {kObjects, std::size_t{60}}) {
    for (int round = 0; round < 200; ++round) {
      SCOPED_TRACE(std::to_string(num_objects) + " objects, round " + std::to_string(round));
      const Tables tables = random_tables(rng);
      const Triangle<kValues> t{kInvolution,
                                {{{tables.keep0.data(), kValues, 0, round % 2 == 1},
                                  {tables.keep1.data(), kValues, 0, round % 4 >= 2}}}};
      Relation c;
      c.randomize(rng);
      expect_scan_matches_scalar(rng, tables, t, c, random_members(rng, num_objects), num_objects);
    }
  }
}

/// The triangle of `tables`, its second side read as c(z, y).
Triangle<kValues> triangle_of(const Tables& tables) {
  return {kInvolution,
          {{{tables.keep0.data(), kValues, 0, false}, {tables.keep1.data(), kValues, 0, true}}}};
}

/// Stores random domains into random pairs of the first `num_objects` objects.
void store_randomly(std::mt19937& rng, Relation& c, std::size_t num_objects, int stores) {
  for (int store = 0; store < stores; ++store) {
    const auto hi = static_cast<ObjectId>(1 + rng() % (num_objects - 1));
    const auto lo = static_cast<ObjectId>(rng() % hi);
    c.set(lo, hi, random_domain(rng));
  }
}

/// Random tables and a random relation over a word of objects, whose scans read cached rows.
struct CachedScans {
  static constexpr std::size_t kFew = 60;
  explicit CachedScans(std::mt19937::result_type seed)
      : rng(seed), tables(random_tables(rng)), t(triangle_of(tables)) {
    relation.randomize(rng);
    members = random_members(rng, kFew);
  }
  CachedScans(const CachedScans&) = delete;  // t points into tables
  CachedScans& operator=(const CachedScans&) = delete;
  /// A random scan of `c` (this relation or a copy) narrows what the scalar reading narrows.
  void expect_matches_scalar(const Relation& c) {
    expect_scan_matches_scalar(rng, tables, t, c, members, kFew);
  }

  std::mt19937 rng;
  Tables tables;
  Triangle<kValues> t;
  Relation relation;
  std::vector<std::uint64_t> members;
};

// Between scans, stores to the relation reach the cached rows through note_triangle_store.
TEST(SpacegenTriangle, CachedRowsFollowTheStoresTheyAreTold) {
  CachedScans scans(11);
  for (int round = 0; round < 300; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    scans.expect_matches_scalar(scans.relation);
    store_randomly(scans.rng, scans.relation, CachedScans::kFew, 20);
  }
}

// A copy reads the rows cached for the original until it stores; then the original, scanned
// again, reads its own domains, not the copy's (as a search's next try from the same parent
// must, after a failed one).
TEST(SpacegenTriangle, CachedRowsServeCopiesUntilOneStores) {
  CachedScans scans(13);
  const Relation& parent = scans.relation;
  for (int round = 0; round < 100; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    scans.expect_matches_scalar(parent);
    Relation child = parent;
    EXPECT_EQ(child.rows.value, parent.rows.value);
    scans.expect_matches_scalar(child);
    store_randomly(scans.rng, child, CachedScans::kFew, 20);
    scans.expect_matches_scalar(child);
  }
}

TEST(SpacegenTriangle, ScanStopsAtTheFirstConflict) {
  std::mt19937 rng(3);
  Tables tables;  // supports nothing: every object narrows
  const Triangle<kValues> t = triangle_of(tables);
  Relation c;
  c.randomize(rng);
  std::vector<std::uint64_t> members((kObjects + 63) / 64, ~std::uint64_t{0});
  members.back() = (std::uint64_t{1} << (kObjects % 64)) - 1;
  std::vector<ObjectId> seen;
  const Status s = scan_triangle(t, c.rows, 0, c.slots.data(), members, 3, 70, 0b1,
                                 [&](ObjectId z, ValueSet k0, ValueSet k1) {
                                   EXPECT_EQ(k0, 0u);
                                   EXPECT_EQ(k1, 0u);
                                   seen.push_back(z);
                                   return seen.size() == 2 ? Status::Conflict : Status::Ok;
                                 });
  EXPECT_EQ(s, Status::Conflict);
  EXPECT_EQ(seen, (std::vector<ObjectId>{0, 1}));
}

}  // namespace
}  // namespace sculpt::spacegen
