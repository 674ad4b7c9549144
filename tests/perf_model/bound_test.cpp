// The lower bound: known figures of known candidates (the floors of a kernel's root, the exact
// counts of hand-fixed recipes), layers that only add terms, and the property the search relies
// on: along random descents, no candidate's bound is above the bound of the full candidate it
// leads to (SCULPT_DESCENTS descents per zoo kernel at its test sizes).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <tuple>

#include "perf_model/model.h"
#include "search/session/descent.h"
#include "tests/recipes/hand_candidate.h"
#include "tests/recipes/recipes.h"
#include "tests/zoo/zoo_names.h"
#include "zoo/zoo.h"

namespace sculpt::perf_model {
namespace {

const Description& sm90() {
  static const Description d = Description::named("sm_90");
  return d;
}

backbone::Kernel zoo_kernel(const std::string& name, const std::string& sizes) {
  const zoo::ZooLookup lookup = zoo::lookup_kernel(name, sizes);
  SCULPT_CHECK(lookup.ok()) << lookup.error;
  return lookup.info->build(lookup.sizes);
}

const Term& term(const Bound& b, const std::string& resource, Level level) {
  for (const Term& t : b.terms) {
    if (t.resource == resource && t.level == level) return t;
  }
  ADD_FAILURE() << "no term " << resource << " at " << to_string(level) << " in\n" << b.explain();
  static const Term none;
  return none;
}

const InstructionCounts& counts(const Bound& b, const std::string& name) {
  for (const InstructionCounts& c : b.counts.instructions) {
    if (c.name == name) return c;
  }
  ADD_FAILURE() << "no counts for " << name;
  static const InstructionCounts none;
  return none;
}

double charged(const InstructionCounts& c, InstrClass k) {
  return c.charged[static_cast<std::size_t>(k)];
}

TEST(Bound, MatmulRootIsAtLeastThePeakFp32Time) {
  const backbone::Kernel kernel = zoo_kernel("matmul", "1024x1024x1024");
  const auto root = gpu_space::make_root(kernel, sm90().limits);
  const Bound b = bound(*root, sm90());
  // 1024^3 FMAs, 32 to a warp instruction, 4 per clock on 132 SMs at 1.98 GHz.
  const double fp32_ns = 1024.0 * 1024 * 1024 / 32 / (4 * 132 * 1.98e9) * 1e9;
  EXPECT_NEAR(term(b, "fp32", Level::device).ns, fp32_ns, fp32_ns * 1e-9);
  EXPECT_GE(b.ns, fp32_ns);
  // cuBLAS takes 55.5 us on the H100: the root cannot be above it.
  EXPECT_LT(b.ns, 55.5e3);
}

TEST(Bound, AxpyRootIsAtLeastItsDramTraffic) {
  const backbone::Kernel kernel = zoo_kernel("axpy", "67108864");
  const auto root = gpu_space::make_root(kernel, sm90().limits);
  const Bound b = bound(*root, sm90());
  // x and y read, z written: each past what L2 keeps.
  const double array = 4.0 * (1 << 26);
  const double l2 = sm90().gpu->l2_bytes.value;
  const double dram_ns = ((2 * array - l2) + (array - l2)) / 3.35e12 * 1e9;
  EXPECT_NEAR(term(b, "dram", Level::device).ns, dram_ns, dram_ns * 1e-9);
  EXPECT_EQ(b.bottleneck().resource, "dram");
  EXPECT_LT(b.ns, 265e3);  // cuBLAS on the H100
}

Bound recipe_bound(const std::string& recipe, bool use_small_sizes = false) {
  for (const recipes::Recipe& r : recipes::benchmark_recipes()) {
    if (r.name != recipe) continue;
    recipes::HandCandidate hand(zoo_kernel(r.kernel, use_small_sizes ? r.small_sizes : r.sizes));
    r.decide(hand);
    return Model(hand.kernel(), sm90()).bound(hand.complete(), Layers::all, Counting::executed);
  }
  ADD_FAILURE() << "no recipe " << recipe;
  return {};
}

TEST(Bound, VectorAxpyRecipeCountsAreExact) {
  // 2^26 elements: 65536 blocks of 256 threads, each on 4 consecutive floats.
  const Bound b = recipe_bound("axpy_2^26");
  const double warps = 65536.0 * 8;
  for (const char* access : {"load0", "load1", "store3"}) {
    const InstructionCounts& c = counts(b, access);
    EXPECT_TRUE(c.exact) << access;
    // One .v4 access a warp: 32 lanes of 16 bytes, 16 sectors.
    EXPECT_EQ(c.executed, warps) << access;
    EXPECT_EQ(c.charged_sectors, warps * 16) << access;
    EXPECT_EQ(c.executed_sectors, warps * 16) << access;
  }
  EXPECT_EQ(charged(counts(b, "load0"), InstrClass::global_load), warps);
  EXPECT_EQ(charged(counts(b, "store3"), InstrClass::global_store), warps);
  // The fma is unrolled over the vector: four a thread.
  EXPECT_EQ(charged(counts(b, "fma2"), InstrClass::fp32_fma), warps * 4);
  EXPECT_EQ(b.bottleneck().resource, "dram");
}

TEST(Bound, TiledMatmulRecipeCountsAreExact) {
  // 64 blocks of 16 x 16 threads, 8 x 8 accumulators each, k in steps of 8 through shared tiles.
  const Bound b = recipe_bound("sgemm_1024x1024x1024");
  EXPECT_EQ(b.counts.blocks, 64);
  EXPECT_EQ(b.counts.threads_per_block, 256);
  EXPECT_EQ(charged(counts(b, "fma3"), InstrClass::fp32_fma), 1024.0 * 1024 * 1024 / 32);
  // A barrier before each k step's tiles are read, and one before they are written again.
  EXPECT_GE(b.counts.barriers_per_block, 1024 / 8);
  // Only 64 of the 132 SMs have a block: each runs 1/64 of the FMAs.
  const double per_sm_ns = 1024.0 * 1024 * 1024 / 32 / 64 / (4 * 1.98e9) * 1e9;
  EXPECT_NEAR(term(b, "fp32", Level::sm).ns, per_sm_ns, per_sm_ns * 1e-9);
  EXPECT_GE(b.ns, per_sm_ns);
}

/// The zoo axpy on 65536 elements: 64 blocks of 256 threads, each thread on 4 elements in a
/// loop (LOOP, not unrolled) that holds both loads, the fma and the store.
Bound looped_axpy(spacegen::ValueSet load_cache) {
  namespace v = gpu_space::values;
  recipes::HandCandidate hand(zoo_kernel("axpy", "65536"));
  hand.kind("n2", v::dim_kind::BLOCK).size("n2_t0", 256).size("n2_t1", 4);
  hand.kind("n2_t0", v::dim_kind::THREAD).level("n2_t0", 0).kind("n2_t1", v::dim_kind::LOOP);
  for (const char* src : {"n0", "n0_t0", "n0_t1", "n1", "n1_t0", "n1_t1", "n2", "n2_t0", "n2_t1"})
    hand.mapping(src, v::dim_mapping::MERGED);
  hand.cache("load0", load_cache).cache("load1", load_cache);
  return Model(hand.kernel(), sm90()).bound(hand.complete());
}

TEST(Bound, ASequentialLoopRunsItsChainOncePerIteration) {
  namespace v = gpu_space::values;
  // One wave of 64 blocks. Each of the 4 iterations waits for its loads (an L1 hit at least),
  // then for the fma, before the store issues and the next iteration starts.
  const GpuRates& r = *sm90().gpu;
  const double l1_iteration = r.global_latency.value + r.fp32_latency.value + 1;
  EXPECT_NEAR(term(looped_axpy(v::cache::CACHE_ALL), "latency", Level::block).ns,
              4 * l1_iteration / 1.98, 1e-6);
  // Loads that bypass L1 wait for L2.
  const double l2_iteration = r.l2_latency.value + r.fp32_latency.value + 1;
  EXPECT_NEAR(term(looped_axpy(v::cache::CACHE_GLOBAL), "latency", Level::block).ns,
              4 * l2_iteration / 1.98, 1e-6);
}

TEST(Bound, ManySmallBlocksWaitForTheirDispatch) {
  // 2^26 elements in blocks of one thread on one element each: 2^26 blocks, whatever they do.
  namespace v = gpu_space::values;
  recipes::HandCandidate hand(zoo_kernel("axpy", "67108864"));
  hand.kind("n2", v::dim_kind::BLOCK).size("n2_t0", 1).size("n2_t1", 1);
  const Bound b = Model(hand.kernel(), sm90()).bound(hand.complete());
  EXPECT_EQ(b.counts.blocks, 1 << 26);
  const double ns = (1 << 26) / sm90().gpu->block_rate.value * 1e9;
  EXPECT_NEAR(term(b, "blocks", Level::device).ns, ns, ns * 1e-9);
  EXPECT_EQ(b.bottleneck().resource, "blocks");
}

TEST(Bound, OnTheCpuEveryThreadOfALevelComputesAValueItDoesNotIndex) {
  // axpy on 4096 elements, 32 blocks of 32 x 4 threads: the fma runs on x, 4 elements a thread in
  // a loop, while the store's last 4 elements go to y through a temporary; so the C runs each
  // fma on the 4 threads of y, and stores one of the copies.
  namespace v = gpu_space::values;
  const Description cpu = Description::named("cpu");
  recipes::HandCandidate hand(zoo_kernel("axpy", "4096"), cpu.limits);
  hand.kind("n2", v::dim_kind::BLOCK).size("n2_t0", 32).size("n2_t1", 4);
  hand.kind("n2_t0", v::dim_kind::THREAD).level("n2_t0", 0).kind("n2_t1", v::dim_kind::LOOP);
  hand.mapping("n2", v::dim_mapping::MERGED).mapping("n2_t0", v::dim_mapping::MERGED);
  hand.mapping("n2_t1", v::dim_mapping::MEMORY);
  hand.kind("n3_t1", v::dim_kind::THREAD).level("n3_t1", 1);
  const Bound b = Model(hand.kernel(), cpu).bound(hand.complete());
  EXPECT_EQ(b.counts.blocks, 32);
  // The busiest core runs its share of the blocks, rounded up.
  const CpuRates& r = *cpu.cpu;
  const double fmas = 4096.0 * 4 / 32 * std::ceil(32 / r.cores.value);
  const double ns = fmas / r.fp32_per_second.value * 1e9;
  EXPECT_NEAR(term(b, "threads", Level::sm).ns, ns, ns * 1e-9) << b.explain();
}

TEST(Bound, OnTheCpuTheThreadsLoopRunsOncePerIterationOfTheLoopsHoldingABarrier) {
  // The tiled matmul recipe: 16 blocks of 16 x 16 threads, k in 4 steps of 8 through shared
  // tiles, a barrier in each step: the C visits the block's 256 threads in every step.
  for (const recipes::Recipe& recipe : recipes::benchmark_recipes()) {
    if (recipe.name != "sgemm_256x256x32") continue;
    const Description cpu = Description::named("cpu");
    recipes::HandCandidate hand(zoo_kernel(recipe.kernel, recipe.sizes), cpu.limits);
    recipe.decide(hand);
    const Bound b = Model(hand.kernel(), cpu).bound(hand.complete());
    EXPECT_EQ(b.counts.blocks, 16);
    EXPECT_EQ(b.counts.threads_per_block, 256);
    EXPECT_EQ(b.counts.barriers_per_block, 4);
    EXPECT_NE(term(b, "threads", Level::sm).detail.find("1.638e+04 steps"), std::string::npos)
        << b.explain();
    return;
  }
  ADD_FAILURE() << "no recipe sgemm_256x256x32";
}

// A timed run on a GPU is a launch, then the work (the GPU's rates were measured less the
// launch floor); on the CPU the launch is one term among the others.
TEST(Bound, OnTheGpuTheLaunchComesBeforeTheWork) {
  const Bound gpu = recipe_bound("sgemm_256x256x32");
  EXPECT_EQ(gpu.launch_ns, sm90().gpu->launch_floor_ns.value);
  EXPECT_EQ(gpu.ns, gpu.launch_ns + gpu.bottleneck().ns);
  for (const Term& t : gpu.terms) EXPECT_NE(t.resource, "launch");

  const Description cpu = Description::named("cpu");
  const backbone::Kernel kernel = zoo_kernel("matmul", "256x256x32");
  const Bound root = bound(*gpu_space::make_root(kernel, cpu.limits), cpu);
  EXPECT_EQ(root.launch_ns, 0);
  EXPECT_EQ(root.ns, root.bottleneck().ns);
  EXPECT_TRUE(std::any_of(root.terms.begin(), root.terms.end(),
                          [](const Term& t) { return t.resource == "launch"; }));
}

TEST(Bound, LayersOnlyAddTerms) {
  const backbone::Kernel kernel = zoo_kernel("matmul", "256x256x32");
  const auto root = gpu_space::make_root(kernel, sm90().limits);
  const Model model(kernel, sm90());
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20; ++i) {
    const search::Descent d = search::random_descent(*root, rng);
    if (!d.candidate) continue;
    const auto& leaf = static_cast<const gpu_space::Candidate&>(*d.candidate);
    const Bound floors = model.bound(leaf, Layers::floors);
    const Bound pressure = model.bound(leaf, Layers::pressure);
    const Bound all = model.bound(leaf, Layers::all);
    EXPECT_LE(floors.ns, pressure.ns);
    EXPECT_LE(pressure.ns, all.ns);
    EXPECT_GT(floors.ns, 0);
    for (const Term& t : floors.terms) EXPECT_EQ(t.level, Level::device) << t.resource;
  }
}

TEST(Bound, ExplainsItsBottleneck) {
  const Bound b = recipe_bound("axpy_2^26");
  const std::string text = b.explain();
  EXPECT_TRUE(text.starts_with("lower bound ")) << text;
  EXPECT_NE(text.find("bound by dram (device) after the launch (3.648 us)"), std::string::npos)
      << text;
  for (const Term& t : b.terms) EXPECT_NE(text.find(t.detail), std::string::npos) << t.resource;
}

/// A zoo kernel at its test sizes, and a shipped description: the GPU's or the CPU's.
using KernelOnDevice = std::tuple<std::string, std::string>;

class AncestorsNeverAboveTheirLeaf : public testing::TestWithParam<KernelOnDevice> {};

TEST_P(AncestorsNeverAboveTheirLeaf, AlongRandomDescents) {
  const auto& [name, device] = GetParam();
  const backbone::KernelInfo* info = zoo::find_kernel(name);
  const backbone::Kernel kernel = info->build(backbone::test_sizes(info->sizes));
  const Description description = Description::named(device);
  const auto root = gpu_space::make_root(kernel, description.limits);
  const Model model(kernel, description);
  const char* count = std::getenv("SCULPT_DESCENTS");
  const int descents = count != nullptr ? std::atoi(count) : 20;
  std::mt19937_64 rng(std::hash<std::string>()(name));
  int edges = 0;
  int decreasing = 0;
  int violations = 0;
  for (int i = 0; i < descents; ++i) {
    const search::Descent d = search::random_descent(*root, rng);
    if (!d.candidate) continue;
    const double leaf = model.bound(static_cast<const gpu_space::Candidate&>(*d.candidate)).ns;
    std::unique_ptr<spacegen::CandidateBase> node = root->clone();
    double parent = model.bound(*root).ns;
    for (const spacegen::Action& action : d.actions) {
      ASSERT_EQ(node->apply({action}), spacegen::Status::Ok) << spacegen::to_json(action);
      const Bound b = model.bound(static_cast<const gpu_space::Candidate&>(*node));
      ++edges;
      if (b.ns < parent * (1 - 1e-9)) ++decreasing;
      if (b.ns > leaf * (1 + 1e-9) && ++violations <= 3) {
        ADD_FAILURE() << "after " << spacegen::to_json(action) << ": " << b.ns
                      << " ns above the leaf's " << leaf << " ns\n"
                      << b.explain();
      }
      parent = b.ns;
    }
  }
  EXPECT_EQ(violations, 0);
  std::printf("%s on %s: %d edges, %.2f%% of them lower the bound\n", name.c_str(), device.c_str(),
              edges, edges ? 100.0 * decreasing / edges : 0.0);
}

INSTANTIATE_TEST_SUITE_P(Zoo, AncestorsNeverAboveTheirLeaf,
                         testing::Combine(testing::ValuesIn(zoo::zoo_names()),
                                          testing::Values("sm_90", "cpu")),
                         [](const auto& param) {
                           return std::get<0>(param.param) + "_" + std::get<1>(param.param);
                         });

}  // namespace
}  // namespace sculpt::perf_model
