#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "backbone/builder.h"
#include "backbone/reference.h"
#include "zoo/zoo.h"

namespace sculpt::backbone {
namespace {

Kernel test_kernel(std::string_view name) {
  const KernelInfo* info = zoo::find_kernel(name);
  return info->build(test_sizes(info->sizes));
}

TEST(Lowering, CommunicationAddsItsTemporaryStoreAndLoad) {
  Kernel kernel = test_kernel("matmul");
  const Communication& a_to_fma = kernel.comms()[0];
  ASSERT_EQ(a_to_fma.kind, Communication::Kind::kValue);
  const InstId fma = a_to_fma.consumer;
  const std::size_t instructions = kernel.instructions().size();
  const std::size_t mem_regions = kernel.mem_regions().size();
  EXPECT_TRUE(kernel.lower_communication(a_to_fma.mappings[1]));
  EXPECT_TRUE(kernel.lowered(a_to_fma.id));
  // Its store and load, and its temporary: nothing else.
  EXPECT_EQ(kernel.instructions().size(), instructions + 2);
  EXPECT_TRUE(kernel.added(kernel.inst(a_to_fma.load)));
  EXPECT_EQ(kernel.mem_regions().size(), mem_regions + 1);
  EXPECT_TRUE(kernel.added(kernel.mem(a_to_fma.temp)));

  const Instruction& store = kernel.inst(a_to_fma.store);
  const Instruction& load = kernel.inst(a_to_fma.load);
  EXPECT_TRUE(kernel.added(store));
  EXPECT_EQ(store.loops, kernel.inst(a_to_fma.producer).loops);  // producer's dims
  // Copies of the consumer's loops that index A (m and k, not n), added with their dims.
  const std::vector<LoopId>& fma_loops = kernel.inst(fma).loops;
  ASSERT_EQ(load.loops.size(), 2u);
  EXPECT_EQ(kernel.loop(load.loops[0]).logical, kernel.loop(fma_loops[0]).logical);
  EXPECT_EQ(kernel.loop(load.loops[1]).logical, kernel.loop(fma_loops[2]).logical);
  EXPECT_NE(load.loops[0], fma_loops[0]);
  for (LoopId loop : load.loops) {
    for (DimId dim : kernel.loop(loop).dims()) EXPECT_TRUE(kernel.added(kernel.dim(dim)));
  }
  const Communication& read = kernel.comm(a_to_fma.read);
  EXPECT_TRUE(kernel.added(read));
  EXPECT_EQ(read.kind, Communication::Kind::kTemporaryRead);
  EXPECT_FALSE(read.lowerable());
  EXPECT_EQ(read.producer, load.id);
  EXPECT_EQ(read.loop_pairs, (std::vector<std::pair<LoopId, LoopId>>{
                                 {load.loops[0], fma_loops[0]}, {load.loops[1], fma_loops[2]}}));
  const MemRegion& temp = kernel.mem(a_to_fma.temp);
  EXPECT_EQ(temp.kind, MemRegion::Kind::kTemporary);
  EXPECT_EQ(temp.extents, (std::vector<int64_t>{16, 8}));  // m x k
  // The consumer now reads the load through the read communication.
  const Kernel::Source source = kernel.source(kernel.inst(fma).operands[0]);
  EXPECT_EQ(source.inst, load.id);
  EXPECT_EQ(source.comm, a_to_fma.read);
  // Program order: the store follows the producer, the load precedes the consumer.
  const std::vector<ProgramNode>& producer_body = kernel.body(store.loops.back());
  ASSERT_EQ(producer_body.size(), 2u);
  EXPECT_EQ(producer_body[1].inst, store.id);
  // The load's nest runs right before the consumer's.
  const std::vector<ProgramNode>& top = kernel.body();
  auto fma_nest = std::find_if(top.begin(), top.end(),
                               [&](const ProgramNode& n) { return n.loop == fma_loops[0]; });
  ASSERT_NE(fma_nest, top.begin());
  EXPECT_EQ(std::prev(fma_nest)->loop, load.loops[0]);
  EXPECT_EQ(kernel.body(load.loops[1]).front().inst, load.id);

  // Lowering the same communication again adds nothing.
  EXPECT_FALSE(kernel.lower_communication(a_to_fma.mappings[0]));
  EXPECT_EQ(kernel.instructions().size(), instructions + 2);
}

TEST(Lowering, StoreOfAReductionWaitsForTheFinalValue) {
  Kernel kernel = test_kernel("matmul");
  const Communication* fma_to_store = nullptr;
  for (const Communication& comm : kernel.comms()) {
    if (comm.lowerable() && kernel.inst(comm.consumer).op == Operator::kStore) fma_to_store = &comm;
  }
  ASSERT_NE(fma_to_store, nullptr);
  const Instruction& fma = kernel.inst(fma_to_store->producer);
  kernel.lower_communication(fma_to_store->mappings[0]);
  const Instruction& store = kernel.inst(fma_to_store->store);
  // In (m, n) of the fma, after its k loop.
  EXPECT_EQ(store.loops, (std::vector<LoopId>{fma.loops[0], fma.loops[1]}));
  const std::vector<ProgramNode>& body = kernel.body(fma.loops[1]);
  ASSERT_EQ(body.size(), 2u);
  EXPECT_EQ(body[0].loop, fma.loops[2]);
  EXPECT_EQ(body[1].inst, store.id);
}

TEST(Interpreter, SharedLoopScansInPlace) {
  // x[i + 1] = x[i] + y[i + 1]: a prefix sum over a shared loop.
  Builder b("scan");
  Size n = b.size("n", 5), n1 = b.size("n1", 4);
  Array X = b.array("x", ElemType::kF64, {n}, MemRegion::Kind::kInOut);
  Array Y = b.array("y", ElemType::kF64, {n}, MemRegion::Kind::kInput);
  Dim I = b.dim("i", n1);
  b.open(I);
  b.store(X, {I + 1}, b.add(b.load(X, {I + 0}), b.load(Y, {I + 1})));
  b.close();
  const Kernel kernel = std::move(b).finish();
  HostArgs args = make_host_args(kernel, 0);
  for (int i = 0; i < 5; ++i) args.array("x").set(i, i == 0 ? 1 : 100);
  for (int i = 0; i < 5; ++i) args.array("y").set(i, i);
  interpret(kernel, args);
  const double want[] = {1, 2, 4, 7, 11};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(args.array("x").get(i), want[i]) << i;
}

TEST(Interpreter, AccumulatorReadInsideItsLoopSeesPartialValues) {
  // acc = acc + y[i] stored at every i: the running sum.
  Builder b("running_sum");
  Size n = b.size("n", 4);
  Array Y = b.array("y", ElemType::kI32, {n}, MemRegion::Kind::kInput);
  Array S = b.array("s", ElemType::kI32, {n}, MemRegion::Kind::kOutput);
  Dim I = b.dim("i", n);
  Value init = b.mov(b.constant(10, ElemType::kI32));
  b.open(I);
  Value acc = b.add(b.reduce(init, {I}), b.load(Y, {I}));
  b.store(S, {I}, acc);
  b.close();
  const Kernel kernel = std::move(b).finish();
  HostArgs args = make_host_args(kernel, 0);
  for (int i = 0; i < 4; ++i) args.array("y").set(i, i + 1);
  interpret(kernel, args);
  const double want[] = {11, 13, 16, 20};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(args.array("s").get(i), want[i]) << i;
}

}  // namespace
}  // namespace sculpt::backbone

namespace sculpt::backbone {
namespace {

TEST(Lowering, TemporaryLayoutKeepsSlotsOnlyForIndexedPairs) {
  Kernel kernel = test_kernel("matmul");  // m = 16, k = 8
  const Communication& a_to_fma = kernel.comms()[0];
  kernel.lower_communication(a_to_fma.mappings[0]);
  const MemRegion& temp = kernel.mem(a_to_fma.temp);
  ASSERT_EQ(temp.layout_mappings, a_to_fma.mappings);  // m: dyn, t0, t1; k: dyn
  const Loop& m = kernel.loop(kernel.dim(kernel.mapping(a_to_fma.mappings[0]).src).loop);
  const auto static_size = [&](DimId dim) -> int64_t {
    if (dim == m.tile_dims[0]) return 2;
    if (dim == m.tile_dims[1]) return 4;
    return 1;
  };
  const auto dim_size = [&](DimId dim) {
    return kernel.dim(dim).is_static() ? static_size(dim) : kernel.dynamic_size(dim, static_size);
  };
  EXPECT_EQ(kernel.dynamic_size(m.dynamic_dim, static_size), 2);
  // Every pair indexed: the whole m x k array, row-major over the dims.
  const Kernel::TempLayout full = kernel.temp_layout(
      temp.id, [](DimMappingId) { return true; }, dim_size);
  EXPECT_EQ(full.elements, 16 * 8);
  EXPECT_EQ(full.strides[0].second, 64);  // m's dynamic dim: 2 * 4 * 8
  EXPECT_EQ(full.strides[1].second, 32);
  EXPECT_EQ(full.strides[2].second, 8);
  EXPECT_EQ(full.strides[3].second, 1);
  // m's pairs merged: one row of k per iteration of m.
  const DimMappingId k_pair = a_to_fma.mappings[3];
  const Kernel::TempLayout row = kernel.temp_layout(
      temp.id, [&](DimMappingId id) { return id == k_pair; }, dim_size);
  EXPECT_EQ(row.elements, 8);
  EXPECT_EQ(row.strides[0].second, 0);
  EXPECT_EQ(row.strides[3].second, 1);
}

}  // namespace
}  // namespace sculpt::backbone

namespace sculpt::backbone {
namespace {

TEST(Interpreter, ElementwiseOperatorsAndCasts) {
  // y[i] = (min(exp(x[i]), 3) - x[i]) / 2 in f64; z[i] = i32(x[i] * 10) + i.
  Builder b("elementwise");
  Size n = b.size("n", 3);
  Array X = b.array("x", ElemType::kF64, {n}, MemRegion::Kind::kInput);
  Array Y = b.array("y", ElemType::kF64, {n}, MemRegion::Kind::kOutput);
  Array Z = b.array("z", ElemType::kI32, {n}, MemRegion::Kind::kOutput);
  Dim I = b.dim("i", n);
  Value x = b.load(X, {I});
  Value capped = b.min(b.exp(x), b.constant(3));
  b.store(Y, {I}, b.div(b.sub(capped, x), b.constant(2)));
  Value scaled = b.cast(b.mul(x, b.constant(10)), ElemType::kI32);
  b.store(Z, {I}, b.add(scaled, b.index(I)));
  const Kernel kernel = std::move(b).finish();
  HostArgs args = make_host_args(kernel, 0);
  const double xs[] = {0.0, 2.0, -0.55};
  for (int i = 0; i < 3; ++i) args.array("x").set(i, xs[i]);
  interpret(kernel, args);
  EXPECT_DOUBLE_EQ(args.array("y").get(0), (1.0 - 0.0) / 2);
  EXPECT_DOUBLE_EQ(args.array("y").get(1), (3.0 - 2.0) / 2);
  EXPECT_DOUBLE_EQ(args.array("y").get(2), (std::exp(-0.55) + 0.55) / 2);
  EXPECT_EQ(args.array("z").as<int32_t>()[0], 0);
  EXPECT_EQ(args.array("z").as<int32_t>()[1], 20 + 1);
  EXPECT_EQ(args.array("z").as<int32_t>()[2], -5 + 2);  // truncation toward zero
}

TEST(Interpreter, SqrtIsCorrectlyRoundedInItsType) {
  // y[i] = sqrt(x[i]) in f32, as sqrtf rounds it; z[i] = sqrt(x[i]) in f64.
  Builder b("roots");
  Size n = b.size("n", 4);
  Array X = b.array("x", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array Y = b.array("y", ElemType::kF32, {n}, MemRegion::Kind::kOutput);
  Array Z = b.array("z", ElemType::kF64, {n}, MemRegion::Kind::kOutput);
  Dim I = b.dim("i", n);
  Value x = b.load(X, {I});
  b.store(Y, {I}, b.sqrt(x));
  b.store(Z, {I}, b.sqrt(b.cast(x, ElemType::kF64)));
  const Kernel kernel = std::move(b).finish();
  HostArgs args = make_host_args(kernel, 0);
  const float xs[] = {0.0f, 2.0f, 1e-40f, 3.3f};  // 1e-40: a denormal
  for (int i = 0; i < 4; ++i) args.array("x").set(i, xs[i]);
  interpret(kernel, args);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(args.array("y").as<float>()[i], std::sqrt(xs[i])) << i;
    EXPECT_EQ(args.array("z").as<double>()[i], std::sqrt(static_cast<double>(xs[i]))) << i;
  }
}

}  // namespace
}  // namespace sculpt::backbone

namespace sculpt::backbone {
namespace {

TEST(Lowering, CopiesOfAKernelLowerIndependently) {
  // Candidates that lower take their own copy of the backbone.
  const Kernel original = test_kernel("axpy");
  Kernel copy = original;
  const Communication& comm = copy.comms()[0];
  copy.lower_communication(comm.mappings[0]);
  EXPECT_TRUE(copy.lowered(comm.id));
  EXPECT_FALSE(original.lowered(comm.id));
  EXPECT_EQ(copy.instructions().size(), original.instructions().size() + 2);
  EXPECT_EQ(copy.body().size(), original.body().size() + 1);  // the load's nest
  EXPECT_EQ(original.source(original.inst(comm.consumer).operands[comm.operand]).inst,
            comm.producer);
  // They share their objects: a lowering changes which are present, not the objects.
  EXPECT_EQ(&copy.inst(comm.load), &original.inst(comm.load));
  EXPECT_EQ(copy.statement(StmtId(0)).as_inst(), &original.inst(InstId(0)));
}

}  // namespace
}  // namespace sculpt::backbone
