// The GPU space on the kernel zoo: the root of every kernel is alive, propagation knows the
// facts a GPU programmer knows (a reduction dimension is never parallel, fused dimensions share
// size and kind, the device's limits bind), and random descents reach full candidates that
// satisfy every constraint when all of them are checked again from scratch.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>

#include "gpu_space/space.h"
#include "perf_model/description.h"
#include "search/session/descent.h"
#include "tests/zoo/zoo_names.h"
#include "zoo/zoo.h"

namespace sculpt::gpu_space {
namespace {

namespace kind = values::dim_kind;

std::unique_ptr<Candidate> root_of(const std::string& name, bool test_sizes = true) {
  const backbone::KernelInfo& info = *zoo::find_kernel(name);
  const backbone::Sizes sizes =
      test_sizes ? backbone::test_sizes(info.sizes) : backbone::default_sizes(info.sizes);
  return make_root(info.build(sizes), perf_model::Description::named("sm_90").limits);
}

std::uint32_t stmt(const backbone::Kernel& kernel, const backbone::Dimension& d) {
  return kernel.stmt_id(d.id).value;
}

class ZooSpace : public testing::TestWithParam<std::string> {};

TEST_P(ZooSpace, RootIsAliveAtTestAndDefaultSizes) {
  for (bool test_sizes : {true, false}) {
    const auto root = root_of(GetParam(), test_sizes);
    ASSERT_FALSE(root->conflict()) << root->conflict()->to_string();
    EXPECT_FALSE(root->open_instances().empty());
  }
}

// Parallel only where isl allows: no dimension of a loop an instruction reduces over may become
// a thread or block dimension, or a vector one (lanes would race on the accumulator).
TEST_P(ZooSpace, ReductionDimensionsStaySequential) {
  const auto root = root_of(GetParam());
  const backbone::Kernel& kernel = root->backbone().kernel();
  int reduction_dims = 0;
  for (const backbone::Instruction* inst : kernel.instructions()) {
    for (backbone::LoopId loop : inst->reduction_loops()) {
      for (backbone::DimId d : kernel.loop(loop).dims()) {
        const spacegen::ValueSet kinds = root->get_dim_kind(stmt(kernel, kernel.dim(d)));
        EXPECT_EQ(kinds & (kind::THREAD | kind::BLOCK | kind::VECTOR), 0u)
            << kernel.dim(d).name << " of " << inst->name;
        ++reduction_dims;
      }
    }
  }
  RecordProperty("reduction_dims", reduction_dims);
}

// Fusing two dimensions (order MERGED) makes them one loop: same size, same kind.
TEST(GpuSpace, FusedDimensionsShareSizeAndKind) {
  auto candidate = root_of("matmul");
  const backbone::Kernel& kernel = candidate->backbone().kernel();
  const backbone::Dimension* a = nullptr;
  const backbone::Dimension* b = nullptr;
  for (const backbone::Dimension* x : kernel.static_dims()) {
    for (const backbone::Dimension* y : kernel.static_dims()) {
      if (x->loop != y->loop && x->logical == y->logical && x->level == y->level &&
          (candidate->get_order(stmt(kernel, *x), stmt(kernel, *y)) & values::order::MERGED) &&
          x->possible_sizes.size() > 1 && a == nullptr) {
        a = x;
        b = y;
      }
    }
  }
  ASSERT_NE(a, nullptr) << "matmul has no pair of fusable tile dimensions";
  ASSERT_EQ(candidate->restrict_order(stmt(kernel, *a), stmt(kernel, *b), values::order::MERGED),
            spacegen::Status::Ok);
  ASSERT_EQ(candidate->propagate(), spacegen::Status::Ok);
  const std::int64_t size = candidate->values_size(stmt(kernel, *a)).back();
  ASSERT_EQ(candidate->restrict_size(stmt(kernel, *a), {size, size}), spacegen::Status::Ok);
  ASSERT_EQ(candidate->restrict_dim_kind(stmt(kernel, *a), kind::UNROLL), spacegen::Status::Ok);
  ASSERT_EQ(candidate->propagate(), spacegen::Status::Ok);
  EXPECT_EQ(candidate->get_size(stmt(kernel, *b)).lo, size);
  EXPECT_EQ(candidate->get_size(stmt(kernel, *b)).hi, size);
  EXPECT_EQ(candidate->get_dim_kind(stmt(kernel, *b)), kind::UNROLL);
}

// A block of more threads than the device allows is refused as soon as the sizes say so.
TEST(GpuSpace, ThreadsPerBlockAreBoundedByTheDevice) {
  const backbone::KernelInfo& info = *zoo::find_kernel("matmul");
  DeviceDescription device = perf_model::Description::named("sm_90").limits;
  device.max_threads_per_block = 64;
  auto candidate = make_root(info.build(backbone::default_sizes(info.sizes)), device);
  ASSERT_FALSE(candidate->conflict());
  const backbone::Kernel& kernel = candidate->backbone().kernel();
  std::vector<const backbone::Dimension*> tiles;
  // The two outer tile dims of the output's two logical dims, as 16 x 16 threads.
  for (const backbone::LogicalDim* logical : kernel.logical_dims()) {
    for (const backbone::Dimension* d : kernel.tile_dims(logical->id)) {
      if (tiles.size() < 2 && d->level == 0 &&
          candidate->get_dim_kind(stmt(kernel, *d)) & kind::THREAD) {
        if (std::ranges::none_of(tiles, [&](auto* t) { return t->logical == d->logical; })) {
          tiles.push_back(d);
        }
      }
    }
  }
  ASSERT_EQ(tiles.size(), 2u);
  // Thread levels x and y (object ids 0 and 1).
  for (spacegen::ObjectId level = 0; level < 2; ++level) {
    ASSERT_EQ(candidate->restrict_thread_mapping(stmt(kernel, *tiles[level]), level,
                                                 gpu_space::values::thread_mapping::MAPPED),
              spacegen::Status::Ok);
  }
  // The product bounds a level once every level's use is known (an undecided level may still
  // count for nothing, a size of 0 times the others).
  ASSERT_EQ(candidate->restrict_level_used(1, gpu_space::values::level_used::YES),
            spacegen::Status::Ok);
  ASSERT_EQ(candidate->restrict_level_used(2, gpu_space::values::level_used::NO),
            spacegen::Status::Ok);
  ASSERT_EQ(candidate->propagate(), spacegen::Status::Ok);
  EXPECT_EQ(candidate->get_dim_kind(stmt(kernel, *tiles[1])), kind::THREAD);
  EXPECT_EQ(candidate->restrict_size(stmt(kernel, *tiles[0]), {16, 16}), spacegen::Status::Ok);
  ASSERT_EQ(candidate->propagate(), spacegen::Status::Ok);
  // 16 threads on x leave at most 4 to y.
  EXPECT_LE(candidate->get_size(stmt(kernel, *tiles[1])).hi, 4);
}

int descents_per_kernel() {
  const char* count = std::getenv("SCULPT_DESCENTS");
  return count != nullptr ? std::atoi(count) : 10000;
}

// Random descents end in a full candidate or a detected dead end, and every full candidate
// passes every constraint posted again on its final assignment (which catches a propagator that
// an incremental wake-up forgot).
TEST_P(ZooSpace, RandomDescentsReachValidCandidates) {
  const auto root = root_of(GetParam());
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()));
  const int descents = descents_per_kernel();
  int dead_ends = 0;
  std::size_t decisions = 0;
  for (int i = 0; i < descents; ++i) {
    search::Descent descent = search::random_descent(*root, rng);
    decisions += descent.actions.size();
    if (!descent.candidate) {
      ++dead_ends;
      continue;
    }
    ASSERT_FALSE(descent.candidate->first_open_instance());
    auto rechecked = descent.candidate->clone();
    ASSERT_EQ(static_cast<Candidate&>(*rechecked).initialize(), spacegen::Status::Ok)
        << rechecked->conflict()->to_string();
    EXPECT_EQ(rechecked->to_string(), descent.candidate->to_string());
  }
  const double rate = 100.0 * dead_ends / descents;
  std::cout << GetParam() << ": " << descents << " descents, " << dead_ends << " dead ends ("
            << rate << "%), " << static_cast<double>(decisions) / descents
            << " decisions per descent\n";
  RecordProperty("dead_end_percent", std::to_string(rate));
  EXPECT_LT(rate, 20.0) << "the space's propagation misses too many conflicts";
}

// The first line of `expected` that `actual` does not have at the same place (empty when equal).
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream e(expected);
  std::istringstream a(actual);
  std::string le;
  std::string la;
  while (std::getline(e, le)) {
    if (!std::getline(a, la)) return "missing: " + le;
    if (le != la) return "expected " + le + ", got " + la;
  }
  return std::getline(a, la) ? "extra: " + la : "";
}

// Searches descend from one shared root on several threads: the caches that candidates share
// (grown layouts, host conditions of new objects, the next open instance) must not change what
// a descent finds. Each thread's descents match the same seeds' descents on one thread.
TEST_P(ZooSpace, ConcurrentDescentsFromOneRootMatchSequentialOnes) {
  constexpr int kThreads = 4;
  constexpr int kDescents = 5;
  const auto root = root_of(GetParam());
  // The description of each descent: its decisions and the candidate (or conflict) it ends in.
  auto describe = [&](int thread) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(thread));
    std::string out;
    for (int i = 0; i < kDescents; ++i) {
      const search::Descent descent = search::random_descent(*root, rng);
      for (const spacegen::Action& action : descent.actions) out += to_json(action) + "\n";
      out += descent.candidate ? descent.candidate->to_string() : descent.dead_end->to_string();
    }
    return out;
  };
  std::vector<std::string> concurrent(kThreads);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] { concurrent[t] = describe(t); });
  }
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(first_difference(describe(t), concurrent[t]), "") << "thread " << t;
  }
}

// Incremental propagation stops where posting everything again stops: after each decision of a
// few random descents, the candidate is a fixpoint of every propagator. Wake-ups skip the
// propagators that cannot learn anything from a change; one skipped wrongly leaves a domain
// wider than this check makes it, even where the descent still ends in a valid candidate.
TEST_P(ZooSpace, EachDecisionReachesTheFixpointOfEveryPropagator) {
  const auto root = root_of(GetParam());
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()) + 1);
  for (int i = 0; i < 3; ++i) {
    const search::Descent descent = search::random_descent(*root, rng);
    auto node = root->clone();
    for (const spacegen::Action& action : descent.actions) {
      ASSERT_EQ(node->apply({action}), spacegen::Status::Ok);
      auto reposted = node->clone();
      ASSERT_EQ(static_cast<Candidate&>(*reposted).initialize(), spacegen::Status::Ok)
          << reposted->conflict()->to_string();
      ASSERT_EQ(first_difference(reposted->to_string(), node->to_string()), "")
          << "after " << to_json(action);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooSpace, testing::ValuesIn(zoo::zoo_names()),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace sculpt::gpu_space
