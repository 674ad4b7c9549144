#include "backbone/dependences.h"

#include <gtest/gtest.h>

#include "backbone/builder.h"
#include "zoo/zoo.h"

namespace sculpt::backbone {
namespace {

Kernel zoo_kernel(std::string_view name, bool default_sizes_too = false) {
  const KernelInfo* info = zoo::find_kernel(name);
  return info->build(default_sizes_too ? default_sizes(info->sizes) : test_sizes(info->sizes));
}

const Instruction& nth(const Kernel& kernel, size_t i) { return *kernel.instructions().at(i); }

std::vector<LoopKind> kinds_of(const Dependences& deps, const Instruction& inst) {
  std::vector<LoopKind> kinds;
  for (LoopId loop : inst.loops) kinds.push_back(deps.loop_kind(loop));
  return kinds;
}

TEST(Dependences, AxpyIsAllParallel) {
  const Kernel kernel = zoo_kernel("axpy");
  const Dependences deps = compute_dependences(kernel);
  for (const Dimension* dim : kernel.dimensions()) {
    EXPECT_EQ(deps.dim_kind(dim->id), LoopKind::kParallel) << dim->name;
  }
  // load x, load y -> fma -> store z.
  const InstId x = nth(kernel, 0).id, y = nth(kernel, 1).id, fma = nth(kernel, 2).id,
               z = nth(kernel, 3).id;
  EXPECT_EQ(deps.ordered, (std::vector<std::pair<InstId, InstId>>{{x, fma}, {y, fma}, {fma, z}}));
  EXPECT_TRUE(deps.no_merge.empty());
  EXPECT_TRUE(deps.must_nest.empty());
  // Value flow only: memory is read-only (x, y) or written once (z).
  for (const Dependence& dep : deps.all) EXPECT_EQ(dep.kind, DepKind::kFlow) << dep.array;
}

TEST(Dependences, MatmulReducesOverKOnly) {
  const Kernel kernel = zoo_kernel("matmul");
  const Dependences deps = compute_dependences(kernel);
  const Instruction& fma = nth(kernel, 3);
  ASSERT_EQ(fma.op, Operator::kFma);
  EXPECT_EQ(kinds_of(deps, fma), (std::vector<LoopKind>{LoopKind::kParallel, LoopKind::kParallel,
                                                        LoopKind::kReduction}));
  for (DimId dim : kernel.loop(fma.loops[2]).dims()) {
    EXPECT_EQ(deps.dim_kind(dim), LoopKind::kReduction);
  }
  // Every other loop is parallel.
  int reductions = 0;
  for (const Loop& loop : kernel.loops())
    reductions += deps.loop_kind(loop.id) != LoopKind::kParallel;
  EXPECT_EQ(reductions, 1);
  // The init goes before the fma, the fma before the store; the loads before the fma.
  EXPECT_TRUE(deps.must_order(nth(kernel, 2).id, fma.id));
  EXPECT_TRUE(deps.must_order(fma.id, nth(kernel, 4).id));
  EXPECT_TRUE(deps.must_order(nth(kernel, 0).id, fma.id));
  EXPECT_FALSE(deps.must_order(nth(kernel, 0).id, nth(kernel, 1).id));
  EXPECT_EQ(deps.ordered.size(), 4u);
  // Point-to-point communications go iteration i to iteration i: merging is allowed.
  for (const DimMapping* mapping : kernel.dim_mappings()) {
    EXPECT_TRUE(deps.can_merge(mapping->src, mapping->dst));
  }
  EXPECT_TRUE(deps.must_nest.empty());
}

TEST(Dependences, EveryZooKernelOnlyReducesAtDefaultSizes) {
  for (const KernelInfo& info : zoo::kernel_zoo()) {
    const Kernel kernel = info.build(default_sizes(info.sizes));
    const Dependences deps = compute_dependences(kernel);
    for (const Loop& loop : kernel.loops()) {
      bool reduced = false;
      for (const Instruction* inst : kernel.instructions()) {
        const std::vector<LoopId>& r = inst->reduction_loops();
        reduced |= std::find(r.begin(), r.end(), loop.id) != r.end();
      }
      EXPECT_EQ(deps.loop_kind(loop.id), reduced ? LoopKind::kReduction : LoopKind::kParallel)
          << info.name << " L" << loop.id.value;
    }
    EXPECT_TRUE(deps.no_merge.empty()) << info.name;
    EXPECT_TRUE(deps.merge_carries.empty()) << info.name;
  }
}

TEST(Dependences, PrefixSumIsSequential) {
  // x[i + 1] = x[i] + y[i + 1] in one shared loop.
  Builder b("prefix_sum");
  Size n = b.size("n", 64), n1 = b.size("n1", 63);
  Array X = b.array("x", ElemType::kF32, {n}, MemRegion::Kind::kInOut);
  Array Y = b.array("y", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Dim I = b.dim("i", n1, Tiling{{{2, 4}}});
  b.open(I);
  Value prev = b.load(X, {I + 0});
  Value y = b.load(Y, {I + 1});
  b.store(X, {I + 1}, b.add(prev, y));
  b.close();
  const Kernel kernel = std::move(b).finish();
  const Dependences deps = compute_dependences(kernel);
  EXPECT_EQ(deps.loop_kind(LoopId(0)), LoopKind::kSequential);
  for (const Dimension* dim : kernel.dimensions()) {
    EXPECT_EQ(deps.dim_kind(dim->id), LoopKind::kSequential);
  }
  // The store feeds the next iteration's load: carried, so no order within an iteration, but
  // the load still precedes the add, which precedes the store.
  const InstId load_x = nth(kernel, 0).id, add = nth(kernel, 2).id, store = nth(kernel, 3).id;
  EXPECT_TRUE(deps.must_order(load_x, add));
  EXPECT_TRUE(deps.must_order(add, store));
  EXPECT_FALSE(deps.must_order(store, load_x));
  bool carried_flow = false;
  for (const Dependence& dep : deps.all) {
    carried_flow |= dep.kind == DepKind::kFlow && dep.src == store && dep.dst == load_x;
  }
  EXPECT_TRUE(carried_flow) << deps.to_string(kernel);
}

TEST(Dependences, ScanWithReadPartialsIsNotAReduction) {
  // acc = acc + y[i], s[i] = acc: the accumulator's partial values are read inside the loop.
  Builder b("scan");
  Size n = b.size("n", 16);
  Array Y = b.array("y", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array S = b.array("s", ElemType::kF32, {n}, MemRegion::Kind::kOutput);
  Dim I = b.dim("i", n);
  Value init = b.mov(b.constant(0));
  b.open(I);
  b.store(S, {I}, b.add(b.reduce(init, {I}), b.load(Y, {I})));
  b.close();
  const Kernel kernel = std::move(b).finish();
  EXPECT_EQ(compute_dependences(kernel).loop_kind(LoopId(0)), LoopKind::kSequential);

  // The same sum stored once after the loop is a reduction.
  Builder r("sum");
  Size rn = r.size("n", 16), one = r.size("one", 1);
  Array RY = r.array("y", ElemType::kF32, {rn}, MemRegion::Kind::kInput);
  Array RS = r.array("s", ElemType::kF32, {one}, MemRegion::Kind::kOutput);
  Dim RI = r.dim("i", rn);
  Value sum = r.add(r.reduce(r.constant(0), {RI}), r.load(RY, {RI}));
  r.store(RS, {Index(AffineExpr{})}, sum);
  const Kernel reduction = std::move(r).finish();
  const Dependences deps = compute_dependences(reduction);
  const Instruction& add = nth(reduction, 2);
  ASSERT_EQ(add.op, Operator::kAdd);
  EXPECT_EQ(kinds_of(deps, add), std::vector<LoopKind>{LoopKind::kReduction});
}

// Stage 1 writes t[i] = 2 * x[i]; stage 2 reads t[i + shift] into y[i].
Kernel producer_consumer(int64_t shift) {
  Builder b("producer_consumer");
  Size n = b.size("n", 32), n1 = b.size("n1", 31);
  Array X = b.array("x", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array T = b.array("t", ElemType::kF32, {n}, MemRegion::Kind::kInOut);
  Array Y = b.array("y", ElemType::kF32, {n}, MemRegion::Kind::kOutput);
  Dim I = b.dim("i", n1, Tiling{{{2, 4}}});
  b.store(T, {I + 0}, b.mul(b.constant(2), b.load(X, {I})));
  b.store(Y, {I + 0}, b.load(T, {I + shift}));
  return std::move(b).finish();
}

TEST(Dependences, ProducerConsumerStagesStayOrdered) {
  const Kernel kernel = producer_consumer(0);
  const Dependences deps = compute_dependences(kernel);
  const Instruction& store_t = nth(kernel, 2);
  const Instruction& load_t = nth(kernel, 3);
  ASSERT_EQ(store_t.op, Operator::kStore);
  ASSERT_EQ(load_t.op, Operator::kLoad);
  EXPECT_TRUE(deps.must_order(store_t.id, load_t.id));
  EXPECT_FALSE(deps.must_order(load_t.id, store_t.id));
  for (const Loop& loop : kernel.loops()) EXPECT_EQ(deps.loop_kind(loop.id), LoopKind::kParallel);
  // Iteration i of the store feeds iteration i of the load: their loops may be fused.
  const Loop& store_loop = kernel.loop(store_t.loops[0]);
  const Loop& load_loop = kernel.loop(load_t.loops[0]);
  EXPECT_TRUE(deps.can_merge(store_loop.dynamic_dim, load_loop.dynamic_dim));
  EXPECT_TRUE(deps.no_merge.empty());
}

TEST(Dependences, ConsumerReadingAheadCannotBeFused) {
  const Kernel kernel = producer_consumer(1);
  const Dependences deps = compute_dependences(kernel);
  const Loop& store_loop = kernel.loop(nth(kernel, 2).loops[0]);
  const Loop& load_loop = kernel.loop(nth(kernel, 3).loops[0]);
  EXPECT_TRUE(deps.must_order(nth(kernel, 2).id, nth(kernel, 3).id));
  // t[i + 1] is written at iteration i + 1 of the store, after iteration i of a fused load.
  EXPECT_FALSE(deps.can_merge(store_loop.dynamic_dim, load_loop.dynamic_dim));
  EXPECT_FALSE(deps.can_merge(store_loop.tile_dims[0], load_loop.tile_dims[0]));
  EXPECT_EQ(deps.no_merge.size(), 2u);  // dynamic and tile dims
}

TEST(Dependences, ConsumerReadingBehindCarriesOnceFused) {
  // y[i] = t[i] with t[i + 1] = x[i]: fusing the two i loops is legal, and the fused loop then
  // carries the value of t from iteration i to iteration i + 1.
  Builder b("behind");
  Size n = b.size("n", 32), n1 = b.size("n1", 31);
  Array X = b.array("x", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array T = b.array("t", ElemType::kF32, {n}, MemRegion::Kind::kInOut);
  Array Y = b.array("y", ElemType::kF32, {n}, MemRegion::Kind::kOutput);
  Dim I = b.dim("i", n1);
  b.store(T, {I + 1}, b.load(X, {I}));
  b.store(Y, {I + 0}, b.load(T, {I + 0}));
  const Kernel kernel = std::move(b).finish();
  const Dependences deps = compute_dependences(kernel);
  const DimId store_t = kernel.loop(nth(kernel, 1).loops[0]).dynamic_dim;
  const DimId load_t = kernel.loop(nth(kernel, 2).loops[0]).dynamic_dim;
  EXPECT_TRUE(deps.can_merge(store_t, load_t));
  EXPECT_EQ(deps.merge_carries, (std::vector<std::pair<DimId, DimId>>{{store_t, load_t}}));
  // Reading ahead is the other way round: not mergeable, so not listed here.
  EXPECT_TRUE(compute_dependences(producer_consumer(1)).merge_carries.empty());
  EXPECT_TRUE(compute_dependences(producer_consumer(0)).merge_carries.empty());
}

TEST(Dependences, JacobiStencilCarriesTimeOnly) {
  // for t: { b[i + 1] = a[i] + a[i + 1] + a[i + 2] for i; a[i + 1] = b[i + 1] for i }
  Builder b("jacobi1d");
  Size steps = b.size("steps", 4), n = b.size("n", 18), inner = b.size("inner", 16);
  Array A = b.array("a", ElemType::kF32, {n}, MemRegion::Kind::kInOut);
  Array B = b.array("b", ElemType::kF32, {n}, MemRegion::Kind::kInOut);
  Dim T = b.dim("t", steps), I = b.dim("i", inner, Tiling{{{2, 4}}});
  b.open(T);
  // Operations are built in statement order (argument evaluation order is unspecified).
  Value left = b.load(A, {I + 0});
  Value center = b.load(A, {I + 1});
  Value right = b.load(A, {I + 2});
  b.store(B, {I + 1}, b.add(b.add(left, center), right));
  b.store(A, {I + 1}, b.load(B, {I + 1}));
  b.close();
  const Kernel kernel = std::move(b).finish();
  const Dependences deps = compute_dependences(kernel);
  const LoopId t_loop = nth(kernel, 0).loops[0];
  EXPECT_EQ(deps.loop_kind(t_loop), LoopKind::kSequential);
  for (const Loop& loop : kernel.loops()) {
    if (loop.id == t_loop) continue;
    EXPECT_EQ(deps.loop_kind(loop.id), LoopKind::kParallel) << loop.id.value;
  }
  // Within a time step, b's stage precedes a's stage.
  const Instruction& store_b = nth(kernel, 5);
  const Instruction& load_b = nth(kernel, 6);
  const Instruction& store_a = nth(kernel, 7);
  ASSERT_EQ(store_b.op, Operator::kStore);
  EXPECT_TRUE(deps.must_order(store_b.id, load_b.id));
  // Reading a[i] while a[i] = ... was written at i - 1 of a fused loop: fusing the first load
  // of a with the store of a would read a new value.
  const Loop& load_a0 = kernel.loop(nth(kernel, 0).loops[1]);
  const Loop& store_a_loop = kernel.loop(store_a.loops[1]);
  EXPECT_FALSE(deps.can_merge(load_a0.dynamic_dim, store_a_loop.dynamic_dim));
  const Loop& load_a2 = kernel.loop(nth(kernel, 2).loops[1]);
  EXPECT_TRUE(deps.can_merge(load_a2.dynamic_dim, store_a_loop.dynamic_dim));
}

TEST(Dependences, InPlaceStencilOverTimeMustNestSpaceInsideTime) {
  // for t: for i: a[i + 1] = a[i] + a[i + 2], all instructions in the same (t, i) loops: the
  // dependence from (t, i + 1) to (t + 1, i) forbids interchanging t and i.
  Builder b("seidel1d");
  Size steps = b.size("steps", 3), n = b.size("n", 10), inner = b.size("inner", 8);
  Array A = b.array("a", ElemType::kF32, {n}, MemRegion::Kind::kInOut);
  Dim T = b.dim("t", steps), I = b.dim("i", inner);
  b.open(T);
  b.open(I);
  b.store(A, {I + 1}, b.add(b.load(A, {I + 0}), b.load(A, {I + 2})));
  b.close();
  b.close();
  const Kernel kernel = std::move(b).finish();
  const Dependences deps = compute_dependences(kernel);
  EXPECT_EQ(deps.loop_kind(LoopId(0)), LoopKind::kSequential);
  EXPECT_EQ(deps.loop_kind(LoopId(1)), LoopKind::kSequential);
  const DimId t = kernel.loop(LoopId(0)).dynamic_dim, i = kernel.loop(LoopId(1)).dynamic_dim;
  EXPECT_EQ(deps.must_nest, (std::vector<std::pair<DimId, DimId>>{{t, i}}));
}

}  // namespace
}  // namespace sculpt::backbone
