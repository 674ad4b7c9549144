// Brute-force property test of the generated propagation (Gecode style): on random tiny
// backbones, enumerate every full assignment of spaces/property_rules.space, decide which are
// solutions with a plain C++ mirror of its constraints, and check that
//  - after any random sequence of restrictions, no value of a solution consistent with the
//    restrictions was removed, and a conflict is reported only when no such solution exists;
//  - after each restriction, posting every constraint again changes nothing (a fixpoint);
//  - a full assignment is accepted exactly when it is a solution;
// for the space numbered over statement ids (property.space) and the one numbered over the
// `all_ids` of Dims (property_all_ids.space), and that both give the same domains after the same
// restrictions. Failures print the seed. SCULPT_PROPERTY_ROUNDS sets the number of random
// backbones.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "generated/space_property/space.h"
#include "generated/space_property_all_ids/space.h"
#include "tests/spacegen/space_fixture.h"

#ifndef SCULPT_PROPERTY_ROUNDS
#define SCULPT_PROPERTY_ROUNDS 40
#endif
// The slow variant builds this file again under another suite name.
#ifndef SCULPT_PROPERTY_SUITE
#define SCULPT_PROPERTY_SUITE SpacegenProperty
#endif

namespace sculpt::spacegen::test {
namespace {

namespace ids = space_property::choice_id;
// Both spaces declare the same choices in the same order.
static_assert(ids::kind == space_property_all_ids::choice_id::kind &&
              ids::size == space_property_all_ids::choice_id::size &&
              ids::order == space_property_all_ids::choice_id::order &&
              ids::fused == space_property_all_ids::choice_id::fused);

constexpr int kBefore = 0, kAfter = 1, kMerged = 2;
constexpr int kA = 0, kC = 2, kB = 1;
constexpr int kYes = 1;

int inverse_order(int v) { return v == kBefore ? kAfter : v == kAfter ? kBefore : v; }

struct Assignment {
  int n = 0;
  int kind[3] = {};
  int size[3] = {};  // position in the dimension's universe
  int order[3][3] = {};
  int fused[3][3] = {};
};

struct World {
  Backbone fun;
  std::vector<std::vector<std::int64_t>> universe;  // sorted sizes of each dimension
  std::vector<int> dim_of;                          // statement id -> dimension index
};

bool is_solution(const World& w, const Assignment& s) {
  auto size = [&](int d) { return w.universe[d][s.size[d]]; };
  for (int a = 0; a < s.n; ++a) {
    for (int b = 0; b < s.n; ++b) {
      if (a == b) continue;
      for (int c = 0; c < s.n; ++c) {
        if (c == a || c == b) continue;
        if (s.order[a][b] == kBefore && s.order[b][c] == kBefore && s.order[a][c] != kBefore) {
          return false;
        }
      }
      if (s.kind[a] == kC && s.order[a][b] == kMerged) return false;
      if (s.order[a][b] == kMerged && size(a) != size(b)) return false;
      if (s.fused[a][b] == kYes && s.order[a][b] != kMerged) return false;
      if (s.fused[a][b] == kYes && s.kind[a] != s.kind[b]) return false;
    }
  }
  int crossed = 0;
  for (int a = 0; a < s.n; ++a) {
    for (int b = 0; b < s.n; ++b) {
      crossed += a != b && s.order[a][b] == kBefore && s.order[b][a] == kAfter;
    }
  }
  if (crossed > 2) return false;
  std::int64_t threads = 1;
  int busy = 0;
  std::int64_t widest = 0;
  for (int d = 0; d < s.n; ++d) {
    if (size(d) > 2 && s.kind[d] != kA) return false;
    if (s.kind[d] == kB) threads *= size(d);
    busy += s.kind[d] != kA;
    if (s.kind[d] != kC) widest = std::max(widest, size(d));
  }
  return threads <= 4 && busy >= 1 && widest >= 2 && widest <= 3;
}

/// Every full assignment of the world, in a fixed order.
std::vector<Assignment> all_assignments(const World& w) {
  int n = static_cast<int>(w.universe.size());
  std::vector<std::pair<int, int>> pairs;
  for (int b = 0; b < n; ++b) {
    for (int a = 0; a < b; ++a) pairs.emplace_back(a, b);
  }
  std::vector<Assignment> out;
  std::vector<int> radix;
  for (int d = 0; d < n; ++d) radix.push_back(3);
  for (int d = 0; d < n; ++d) radix.push_back(static_cast<int>(w.universe[d].size()));
  for (std::size_t p = 0; p < pairs.size(); ++p) radix.push_back(3);
  for (std::size_t p = 0; p < pairs.size(); ++p) radix.push_back(2);
  std::vector<int> digit(radix.size(), 0);
  while (true) {
    Assignment s;
    s.n = n;
    std::size_t k = 0;
    for (int d = 0; d < n; ++d) s.kind[d] = digit[k++];
    for (int d = 0; d < n; ++d) s.size[d] = digit[k++];
    for (auto [a, b] : pairs) {
      s.order[a][b] = digit[k++];
      s.order[b][a] = inverse_order(s.order[a][b]);
    }
    for (auto [a, b] : pairs) s.fused[a][b] = s.fused[b][a] = digit[k++];
    out.push_back(s);
    std::size_t i = 0;
    while (i < digit.size() && ++digit[i] == radix[i]) digit[i++] = 0;
    if (i == digit.size()) break;
  }
  return out;
}

/// The value index the assignment gives an instance (as CandidateBase::domain numbers them).
std::uint32_t value_of(const World& w, const Assignment& s, const InstanceRef& ref) {
  auto o = [&](std::size_t i) { return w.dim_of[ref.objects[i]]; };
  switch (ref.choice) {
    case ids::kind:
      return static_cast<std::uint32_t>(s.kind[o(0)]);
    case ids::size:
      return static_cast<std::uint32_t>(s.size[o(0)]);
    case ids::order:
      return static_cast<std::uint32_t>(s.order[o(0)][o(1)]);
    case ids::fused:
      return static_cast<std::uint32_t>(s.fused[o(0)][o(1)]);
    default:
      ADD_FAILURE() << "unexpected choice " << ref.choice;
      return 0;
  }
}

/// Dimensions between instructions, so that their ids are not their slots in Dims.
World random_world(std::mt19937& rng) {
  World w;
  int n = std::uniform_int_distribution<int>(2, 3)(rng);
  const std::vector<std::int64_t> sizes = {1, 2, 4};
  for (int d = 0; d < n; ++d) {
    if (rng() % 2) {
      w.fun.add_inst();
      w.dim_of.push_back(-1);
    }
    std::vector<std::int64_t> u;
    for (std::int64_t v : sizes) {
      if (rng() % 3 != 0) u.push_back(v);
    }
    if (u.empty()) u.push_back(sizes[rng() % sizes.size()]);
    w.fun.add_dim(u);
    w.dim_of.push_back(d);
    w.universe.push_back(u);
  }
  return w;
}

struct Restriction {
  InstanceRef ref;
  std::vector<std::uint32_t> values;
};

bool consistent(const World& w, const Assignment& s, const std::vector<Restriction>& rs) {
  for (const Restriction& r : rs) {
    std::uint32_t v = value_of(w, s, r.ref);
    if (std::find(r.values.begin(), r.values.end(), v) == r.values.end()) return false;
  }
  return true;
}

/// Applies a full assignment instance by instance; Ok when every restriction propagated.
Status apply_full(CandidateBase& c, const World& w, const Assignment& s) {
  for (const InstanceRef& ref : c.live_instances()) {
    if (c.restrict(ref, {value_of(w, s, ref)}) == Status::Conflict) return Status::Conflict;
  }
  return Status::Ok;
}

/// A random strict, non-empty subset of a domain of several values.
std::vector<std::uint32_t> random_restriction(const std::vector<std::uint32_t>& domain,
                                              std::mt19937& rng) {
  std::vector<std::uint32_t> keep;
  while (keep.empty() || keep.size() == domain.size()) {
    keep.clear();
    for (std::uint32_t v : domain) {
      if (rng() % 2) keep.push_back(v);
    }
  }
  return keep;
}

template <typename Space>
class SCULPT_PROPERTY_SUITE : public ::testing::Test {};
using Spaces = ::testing::Types<space_property::Candidate, space_property_all_ids::Candidate>;
TYPED_TEST_SUITE(SCULPT_PROPERTY_SUITE, Spaces);

TYPED_TEST(SCULPT_PROPERTY_SUITE, PropagationIsSoundAndCompleteOnFullAssignments) {
  using Candidate = TypeParam;
  for (unsigned seed = 1; seed <= SCULPT_PROPERTY_ROUNDS; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    World w = random_world(rng);
    std::vector<Assignment> everything = all_assignments(w);
    std::vector<Assignment> solutions;
    std::vector<Assignment> others;
    for (const Assignment& s : everything) {
      (is_solution(w, s) ? solutions : others).push_back(s);
    }
    Status init = Status::Ok;
    auto root = make_candidate<Candidate>(w.fun, &init);
    // Propagation is not complete (a world without solution may survive the root: a dead end
    // that full assignments then reveal), but it must be sound.
    if (init == Status::Conflict) {
      ASSERT_TRUE(solutions.empty())
          << "the root failed while solutions exist: " << root->conflict()->to_string();
      continue;
    }

    // Soundness under random restrictions.
    for (int sequence = 0; sequence < 20; ++sequence) {
      auto c = root->clone();
      std::vector<Restriction> applied;
      for (int step = 0; step < 6; ++step) {
        std::vector<InstanceRef> open = c->open_instances();
        if (open.empty()) break;
        InstanceRef ref = open[rng() % open.size()];
        std::vector<std::uint32_t> keep = random_restriction(c->domain(ref), rng);
        applied.push_back({ref, keep});
        Status status = c->restrict(ref, keep);
        std::size_t alive = 0;
        for (const Assignment& s : solutions) {
          if (!consistent(w, s, applied)) continue;
          ++alive;
          if (status == Status::Conflict) break;
          for (const InstanceRef& live : c->live_instances()) {
            auto d = c->domain(live);
            ASSERT_NE(std::find(d.begin(), d.end(), value_of(w, s, live)), d.end())
                << "propagation removed a value of a solution from "
                << c->table().choices[live.choice].name << " after step " << step;
          }
        }
        if (status == Status::Conflict) {
          ASSERT_EQ(alive, 0u) << "conflict reported while a solution remains: "
                               << c->conflict()->to_string();
          break;
        }
        // Incremental propagation stops where posting every constraint again stops.
        auto reposted = c->clone();
        ASSERT_EQ(static_cast<Candidate&>(*reposted).initialize(), Status::Ok)
            << "posting again found a conflict: " << reposted->conflict()->to_string();
        ASSERT_EQ(reposted->to_string(), c->to_string()) << "not a fixpoint after step " << step;
      }
    }

    // Full assignments: accepted exactly when they are solutions.
    for (std::size_t i = 0; i < solutions.size() && i < 50; ++i) {
      auto c = root->clone();
      const Assignment& s = solutions[(i * 7919) % solutions.size()];
      ASSERT_EQ(apply_full(*c, w, s), Status::Ok)
          << "a solution was rejected: " << c->conflict()->to_string();
    }
    for (int i = 0; i < 100 && !others.empty(); ++i) {
      auto c = root->clone();
      const Assignment& s = others[rng() % others.size()];
      ASSERT_EQ(apply_full(*c, w, s), Status::Conflict) << "a violated assignment was accepted";
    }
  }
}

// The numbering of instances changes nothing but the size of the decision vector.
TEST(SCULPT_PROPERTY_SUITE, AllIdsGiveTheSameDomains) {
  for (unsigned seed = 1; seed <= SCULPT_PROPERTY_ROUNDS; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    World w = random_world(rng);
    Status by_id_init = Status::Ok;
    Status by_slot_init = Status::Ok;
    auto by_id = make_candidate<space_property::Candidate>(w.fun, &by_id_init);
    auto by_slot = make_candidate<space_property_all_ids::Candidate>(w.fun, &by_slot_init);
    ASSERT_EQ(by_id_init, by_slot_init);
    ASSERT_EQ(by_id->to_string(), by_slot->to_string());
    EXPECT_LT(by_slot->block_bytes(), by_id->block_bytes());
    if (by_id_init == Status::Conflict) continue;
    for (int sequence = 0; sequence < 20; ++sequence) {
      std::unique_ptr<CandidateBase> a = by_id->clone();
      std::unique_ptr<CandidateBase> b = by_slot->clone();
      for (int step = 0; step < 6; ++step) {
        std::vector<InstanceRef> open = a->open_instances();
        ASSERT_EQ(open, b->open_instances());
        if (open.empty()) break;
        InstanceRef ref = open[rng() % open.size()];
        std::vector<std::uint32_t> keep = random_restriction(a->domain(ref), rng);
        Status status = a->restrict(ref, keep);
        ASSERT_EQ(status, b->restrict(ref, keep));
        if (status == Status::Conflict) {
          EXPECT_EQ(a->conflict()->to_string(), b->conflict()->to_string());
          break;
        }
        ASSERT_EQ(a->to_string(), b->to_string());
      }
    }
  }
}

}  // namespace
}  // namespace sculpt::spacegen::test
