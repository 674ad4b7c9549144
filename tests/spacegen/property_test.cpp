// The numbering of instances changes nothing but the size of the decision vector: the space of
// spaces/property_rules.space numbered over statement ids (property.space) and over the
// `all_ids` of Dims (property_all_ids.space) give the same domains after the same random
// restrictions, on random tiny backbones. Propagation itself is checked against the reference
// evaluator on both (oracle_test.cpp). Failures print the seed. SCULPT_PROPERTY_ROUNDS sets the
// number of random backbones.
#include <gtest/gtest.h>

#include <random>

#include "generated/space_property/space.h"
#include "generated/space_property_all_ids/space.h"
#include "tests/spacegen/oracle_harness.h"
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

/// Dimensions between instructions, so that their ids are not their slots in Dims.
Backbone random_backbone(std::mt19937& rng) {
  Backbone fun;
  int n = std::uniform_int_distribution<int>(2, 3)(rng);
  const std::vector<std::int64_t> sizes = {1, 2, 4};
  for (int d = 0; d < n; ++d) {
    if (rng() % 2) fun.add_inst();
    std::vector<std::int64_t> u;
    for (std::int64_t v : sizes) {
      if (rng() % 3 != 0) u.push_back(v);
    }
    if (u.empty()) u.push_back(sizes[rng() % sizes.size()]);
    fun.add_dim(u);
  }
  return fun;
}

TEST(SCULPT_PROPERTY_SUITE, AllIdsGiveTheSameDomains) {
  for (unsigned seed = 1; seed <= SCULPT_PROPERTY_ROUNDS; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    Backbone fun = random_backbone(rng);
    Status by_id_init = Status::Ok;
    Status by_slot_init = Status::Ok;
    auto by_id = make_candidate<space_property::Candidate>(fun, &by_id_init);
    auto by_slot = make_candidate<space_property_all_ids::Candidate>(fun, &by_slot_init);
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
