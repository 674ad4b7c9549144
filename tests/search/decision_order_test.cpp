// The decision order (search/session/decision_order.h): what it accepts and refuses, its default on
// the GPU space, and that it never changes which candidates are valid: a tiny space enumerated in
// full has the same candidates in every order, and every random candidate of the GPU space
// found in the default order is rebuilt, decision by decision, in the declaration order.
#include "search/session/decision_order.h"
#include "search/session/device_defaults.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "generated/space_property/space.h"
#include "gpu_space/space.h"
#include "perf_model/description.h"
#include "search/session/descent.h"
#include "tests/spacegen/space_fixture.h"
#include "zoo/zoo.h"

namespace sculpt::search {
namespace {

std::unique_ptr<gpu_space::Candidate> matmul_root() {
  const zoo::ZooLookup lookup = zoo::lookup_kernel("matmul", "64x64x64");
  return gpu_space::make_root(lookup.info->build(lookup.sizes),
                              perf_model::Description::named("sm_90").limits);
}

TEST(DecisionOrder, TheDefaultDecidesTheShapeOfTilesFirstAndEveryChoiceOnce) {
  const auto root = matmul_root();
  const DecisionOrder order =
      DecisionOrder::standard(root->table(), defaults_for(device::Kind::cuda).order);
  EXPECT_EQ(order.to_string(root->table()),
            "tile_product,size,dim_kind,thread_mapping,level_used,dim_mapping,temp_slot,"
            "mem_space,order,cache,is_block_dim,is_iteration_dim")
      << "then the quotients' representatives, in declaration order";
  EXPECT_EQ(order.next(*root)->choice, order.choices().front());
  EXPECT_EQ(DecisionOrder::standard(root->table(), defaults_for(device::Kind::cpu).order)
                .to_string(root->table()),
            "dim_mapping,mem_space,thread_mapping,dim_kind,order,tile_product,size,level_used,"
            "temp_slot,cache,is_block_dim,is_iteration_dim")
      << "the CPU's own";
  std::string error;
  const auto parsed = DecisionOrder::parse(root->table(), "cache, order", &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->to_string(root->table()),
            "cache,order,tile_product,size,dim_kind,thread_mapping,level_used,dim_mapping,"
            "mem_space,is_block_dim,is_iteration_dim,temp_slot")
      << "the others follow in declaration order";
}

TEST(DecisionOrder, RefusesWhatTheSpaceDoesNotDecide) {
  const auto root = matmul_root();
  std::string error;
  EXPECT_FALSE(DecisionOrder::parse(root->table(), "size,colour", &error));
  EXPECT_NE(error.find("'colour' is not a choice of the space"), std::string::npos) << error;
  EXPECT_NE(error.find("dim_kind"), std::string::npos) << "lists the decisions: " << error;
  EXPECT_FALSE(DecisionOrder::parse(root->table(), "block_threads", &error));
  EXPECT_NE(error.find("'block_threads' is a counter"), std::string::npos) << error;
  EXPECT_FALSE(DecisionOrder::parse(root->table(), "size,dim_kind,size", &error));
  EXPECT_NE(error.find("'size' is named twice"), std::string::npos) << error;
}

// Every fully specified candidate below `node` in `order`, as text.
void leaves(const spacegen::CandidateBase& node, const DecisionOrder& order,
            std::set<std::string>& out) {
  const auto choice = order.next(node);
  if (!choice) {
    out.insert(node.to_string());
    return;
  }
  for (const auto& child : valid_children(node, *choice)) leaves(*child, order, out);
}

TEST(DecisionOrder, EveryOrderFindsTheSameCandidatesOfATinySpace) {
  spacegen::test::Backbone fun;
  fun.add_dim({1, 2});
  fun.add_dim({1, 2, 4});
  fun.add_dim({2, 4});
  const auto root = spacegen::test::make_candidate<space_property::Candidate>(fun);
  std::string error;
  std::set<std::string> declared, standard, reversed;
  leaves(*root, DecisionOrder::declaration(root->table()), declared);
  leaves(*root, DecisionOrder::standard(root->table(), defaults_for(device::Kind::cuda).order),
         standard);
  const auto reverse = DecisionOrder::parse(root->table(), "size,fused,order,kind", &error);
  ASSERT_TRUE(reverse) << error;
  leaves(*root, *reverse, reversed);
  EXPECT_GT(declared.size(), 10u);
  EXPECT_EQ(declared, standard);
  EXPECT_EQ(declared, reversed);
}

TEST(DecisionOrder, CandidatesOfTheGpuSpaceFoundInOneOrderAreRebuiltInAnother) {
  const auto root = matmul_root();
  const DecisionOrder standard =
      DecisionOrder::standard(root->table(), defaults_for(device::Kind::cuda).order);
  const DecisionOrder declared = DecisionOrder::declaration(root->table());
  std::mt19937_64 rng(3);
  int found = 0;
  for (int i = 0; i < 30; ++i) {
    const Descent descent = random_descent(*root, rng, &standard);
    if (!descent.candidate) continue;
    ++found;
    auto node = root->clone();
    while (const auto choice = declared.next(*node)) {
      const std::vector<std::uint32_t> value = descent.candidate->domain(*choice);
      ASSERT_EQ(value.size(), 1u);
      ASSERT_EQ(node->restrict(*choice, value), spacegen::Status::Ok)
          << node->conflict()->to_string();
    }
    EXPECT_EQ(node->to_string(), descent.candidate->to_string());
  }
  EXPECT_GT(found, 20);
}

}  // namespace
}  // namespace sculpt::search
