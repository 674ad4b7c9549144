#include "backbone/builder.h"

#include <gtest/gtest.h>

namespace sculpt::backbone {
namespace {

// Matmul as in the builder's header comment, small sizes.
Kernel small_matmul() {
  Builder b("matmul");
  Size m = b.size("m", 8), n = b.size("n", 12), k = b.size("k", 5);
  Array A = b.array("A", ElemType::kF32, {m, k}, MemRegion::Kind::kInput);
  Array B = b.array("B", ElemType::kF32, {k, n}, MemRegion::Kind::kInput);
  Array C = b.array("C", ElemType::kF32, {m, n}, MemRegion::Kind::kOutput);
  Dim M = b.dim("m", m, Tiling{{Tiling::range(2, 32), Tiling::range(2, 4)}});
  Dim N = b.dim("n", n, Tiling{{Tiling::range(2, 32), Tiling::range(2, 4)}});
  Dim K = b.dim("k", k);
  Value a = b.load(A, {M, K});
  Value bv = b.load(B, {K, N});
  Value c = b.fma(a, bv, b.reduce(b.constant(0.0), {K}));
  b.store(C, {M, N}, c);
  return std::move(b).finish();
}

TEST(Builder, MatmulHasOneNestPerInstruction) {
  const Kernel kernel = small_matmul();
  // load A, load B, init mov, fma, store C: five instructions, each in its own loops.
  const std::vector<const Instruction*> insts = kernel.instructions();
  ASSERT_EQ(insts.size(), 5u);
  EXPECT_EQ(insts[0]->op, Operator::kLoad);
  EXPECT_EQ(insts[1]->op, Operator::kLoad);
  EXPECT_EQ(insts[2]->op, Operator::kMov);
  EXPECT_EQ(insts[3]->op, Operator::kFma);
  EXPECT_EQ(insts[4]->op, Operator::kStore);
  EXPECT_EQ(insts[0]->loops.size(), 2u);  // m, k
  EXPECT_EQ(insts[2]->loops.size(), 2u);  // m, n
  EXPECT_EQ(insts[3]->loops.size(), 3u);  // m, n, k
  EXPECT_EQ(insts[4]->loops.size(), 2u);  // m, n
  // Loops: 2 + 2 + 2 + 3 + 2, none shared; and the pre-allocated loops of the temporaries'
  // loads: (m, k) for A, (n, k) for B, (m, n) for the store.
  EXPECT_EQ(kernel.loops().size(), 11u + 6u);
  EXPECT_EQ(kernel.body().size(), 5u);
  // fma's loops are m, n, k in that order: the reduced dim innermost.
  const Instruction& fma = *insts[3];
  EXPECT_EQ(kernel.logical_dim(kernel.loop(fma.loops[0]).logical).name, "m");
  EXPECT_EQ(kernel.logical_dim(kernel.loop(fma.loops[1]).logical).name, "n");
  EXPECT_EQ(kernel.logical_dim(kernel.loop(fma.loops[2]).logical).name, "k");
  EXPECT_EQ(fma.reduction_loops(), std::vector<LoopId>{fma.loops[2]});
}

TEST(Builder, StripMiningKeepsDivisorsAndOne) {
  const Kernel kernel = small_matmul();
  const LogicalDim& m = *kernel.logical_dims()[0];
  ASSERT_EQ(m.tile_sizes.size(), 2u);
  EXPECT_EQ(m.tile_sizes[0], (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(m.tile_sizes[1], (std::vector<int64_t>{1, 2, 4}));
  const LogicalDim& n = *kernel.logical_dims()[1];
  EXPECT_EQ(n.tile_sizes[0], (std::vector<int64_t>{1, 2, 3, 4, 6, 12}));
  EXPECT_EQ(n.tile_sizes[1], (std::vector<int64_t>{1, 2, 3, 4}));
  const LogicalDim& k = *kernel.logical_dims()[2];
  EXPECT_TRUE(k.tile_sizes.empty());
  // Every loop of m: a dynamic dim then two tile dims with m's candidates.
  for (LoopId loop_id : m.loops) {
    const Loop& loop = kernel.loop(loop_id);
    EXPECT_FALSE(kernel.dim(loop.dynamic_dim).is_static());
    ASSERT_EQ(loop.tile_dims.size(), 2u);
    EXPECT_EQ(kernel.dim(loop.tile_dims[1]).possible_sizes, m.tile_sizes[1]);
  }
  // m sits in load A, init, fma and store: 4 loops of 2 tile dims each.
  EXPECT_EQ(kernel.tile_dims(m.id).size(), 8u);
  EXPECT_EQ(kernel.size_value("n"), 12);
  EXPECT_EQ(kernel.size_value("q"), std::nullopt);
}

TEST(Builder, CommunicationsMapDimsOfTheSameLevel) {
  const Kernel kernel = small_matmul();
  // a -> fma (m, k), b -> fma (k, n), fma -> store (m, n), init -> fma (m, n); and the
  // pre-allocated reads of the three temporaries.
  ASSERT_EQ(kernel.comms().size(), 4u + 3u);
  const Communication& a_to_fma = kernel.comms()[0];
  EXPECT_EQ(a_to_fma.kind, Communication::Kind::kValue);
  EXPECT_EQ(a_to_fma.loop_pairs.size(), 2u);
  EXPECT_EQ(a_to_fma.mappings.size(), 4u);  // m: dyn + 2 tiles, k: dyn
  for (DimMappingId id : a_to_fma.mappings) {
    const DimMapping& mapping = kernel.mapping(id);
    EXPECT_EQ(kernel.dim(mapping.src).logical, kernel.dim(mapping.dst).logical);
    EXPECT_EQ(kernel.dim(mapping.src).level, kernel.dim(mapping.dst).level);
  }
  int inits = 0;
  int reads = 0;
  for (const Communication& comm : kernel.comms()) {
    inits += comm.kind == Communication::Kind::kReductionInit;
    reads += comm.kind == Communication::Kind::kTemporaryRead && !kernel.added(comm);
  }
  EXPECT_EQ(inits, 1);
  EXPECT_EQ(reads, 3);
  const Instruction& fma = *kernel.instructions()[3];
  EXPECT_EQ(fma.operands[2].kind, Operand::Kind::kReduction);
  EXPECT_TRUE(fma.operands[2].comm.valid());
}

TEST(Builder, PreallocatesLoweringObjects) {
  const Kernel kernel = small_matmul();
  // Three value communications: each gets a temporary, a store and a load, not added yet.
  EXPECT_EQ(kernel.inst_capacity(), 5u + 6u);
  EXPECT_EQ(kernel.instructions().size(), 5u);
  EXPECT_EQ(kernel.mem_capacity(), 3u + 3u);
  EXPECT_EQ(kernel.mem_regions().size(), 3u);
  EXPECT_EQ(kernel.stmt_capacity(), kernel.inst_capacity() + kernel.dim_capacity());
  // The dimensions of the loads' loops wait for their lowering too.
  EXPECT_LT(kernel.dimensions().size(), kernel.dim_capacity());
  EXPECT_EQ(kernel.statements().size(), 5u + kernel.dimensions().size());
  // Statement ids: the present instructions, the present dimensions, then the pre-allocated
  // instructions and dimensions.
  const Dimension& first_dim = kernel.dim(DimId(0));
  EXPECT_EQ(first_dim.stmt_id().value, 5u);
  EXPECT_EQ(kernel.statement(first_dim.stmt_id()).as_dim(), &first_dim);
  EXPECT_EQ(kernel.statement(StmtId(3)).as_inst(), &kernel.inst(InstId(3)));
  EXPECT_EQ(kernel.statement(StmtId(3)).as_dim(), nullptr);
  const uint32_t present = static_cast<uint32_t>(kernel.statements().size());
  for (const Statement* s : kernel.statements()) EXPECT_LT(s->stmt_id().value, present);
  const Instruction& preallocated = kernel.inst(InstId(5));
  EXPECT_FALSE(kernel.added(preallocated));
  EXPECT_EQ(preallocated.stmt_id().value, present);
  EXPECT_EQ(kernel.statement(StmtId(present)).as_inst(), &preallocated);
}

TEST(Builder, SignatureListsSizesScalarsAndArrays) {
  Builder b("axpy");
  Size n = b.size("n", 16);
  Value alpha = b.scalar("alpha", ElemType::kF32);
  Array X = b.array("x", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array Z = b.array("z", ElemType::kF32, {n}, MemRegion::Kind::kOutput);
  Dim N = b.dim("n", n, Tiling{{{2, 4}}});
  b.store(Z, {N}, b.mul(alpha, b.load(X, {N})));
  const Kernel kernel = std::move(b).finish();
  ASSERT_EQ(kernel.params().size(), 4u);
  EXPECT_EQ(kernel.params()[0].kind, Parameter::Kind::kSize);
  EXPECT_EQ(kernel.params()[0].size_value, 16);
  EXPECT_EQ(kernel.params()[1].kind, Parameter::Kind::kScalar);
  EXPECT_EQ(kernel.params()[2].kind, Parameter::Kind::kArray);
  EXPECT_EQ(kernel.mem(kernel.params()[2].mem).name, "x");
  const Instruction& mul = *kernel.instructions()[1];
  EXPECT_EQ(mul.operands[0].kind, Operand::Kind::kParam);
  EXPECT_EQ(mul.operands[1].kind, Operand::Kind::kValue);
}

TEST(Builder, StridedArraysFlattenIndices) {
  Builder b("strided");
  Size m = b.size("m", 4), k = b.size("k", 3);
  Array A = b.array("A", ElemType::kF64, {m, k}, MemRegion::Kind::kInput, {3 * 32, 32});
  Array C = b.array("C", ElemType::kF64, {m, k}, MemRegion::Kind::kOutput);
  Dim M = b.dim("m", m), K = b.dim("k", k);
  b.store(C, {M, K + 0}, b.load(A, {M, K}));
  const Kernel kernel = std::move(b).finish();
  EXPECT_EQ(kernel.mem(MemId(0)).num_elements(), 3 * 32 * 3 + 2 * 32 + 1);
  const Access& access = *kernel.instructions()[0]->access;
  ASSERT_EQ(access.index.terms.size(), 2u);
  EXPECT_EQ(access.index.terms[0].coeff, 96);
  EXPECT_EQ(access.index.terms[1].coeff, 32);
  const Access& store = *kernel.instructions()[1]->access;
  EXPECT_EQ(store.index.terms[0].coeff, 3);
}

TEST(Builder, OpenLoopsAreShared) {
  // x[i] = x[i - 1] + y[i] for i in 1..n-1, as one loop i holding every instruction.
  Builder b("scan");
  Size n = b.size("n", 6);
  Array X = b.array("x", ElemType::kF32, {n}, MemRegion::Kind::kInOut);
  Array Y = b.array("y", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Size n1 = b.size("n1", 5);
  Dim I = b.dim("i", n1);
  b.open(I);
  Value prev = b.load(X, {I + 0});
  Value y = b.load(Y, {I + 1});
  b.store(X, {I + 1}, b.add(prev, y));
  b.close();
  const Kernel kernel = std::move(b).finish();
  EXPECT_EQ(kernel.loops().size(), 1u);
  EXPECT_EQ(kernel.body().size(), 1u);
  EXPECT_EQ(kernel.body(LoopId(0)).size(), 4u);
  EXPECT_TRUE(kernel.comms().empty());
  for (const Instruction* inst : kernel.instructions()) {
    EXPECT_EQ(inst->loops, std::vector<LoopId>{LoopId(0)});
  }
}

TEST(Builder, ToStringListsTheProgram) {
  const std::string text = small_matmul().to_string();
  EXPECT_NE(text.find("kernel matmul(m=8:i32"), std::string::npos) << text;
  EXPECT_NE(text.find("fma3 = fma.f32"), std::string::npos) << text;
  EXPECT_NE(text.find("reduce(init mov2)"), std::string::npos) << text;
}

}  // namespace
}  // namespace sculpt::backbone

namespace sculpt::backbone {
namespace {

TEST(Builder, AccessStridesFollowTheTileSizes) {
  const Kernel kernel = small_matmul();
  // load A[m, k] (A is 8 x 5): m's loop has dims (dyn, t0, t1), k's loop (dyn).
  const Instruction& load_a = *kernel.instructions()[0];
  const Loop& m = kernel.loop(load_a.loops[0]);
  const Loop& k = kernel.loop(load_a.loops[1]);
  const auto sizes = [&](DimId dim) -> int64_t {
    if (dim == m.tile_dims[0]) return 2;
    if (dim == m.tile_dims[1]) return 4;
    return 1;
  };
  // m = dyn * 8 + t0 * 4 + t1, and A's row stride is 5.
  const std::vector<std::pair<DimId, int64_t>> want = {
      {m.dynamic_dim, 40}, {m.tile_dims[0], 20}, {m.tile_dims[1], 5}, {k.dynamic_dim, 1}};
  EXPECT_EQ(kernel.access_strides(load_a.id, sizes), want);
  // The store C[m, n] does not depend on k; the fma has no access.
  EXPECT_FALSE(kernel.instructions()[3]->access);
}

}  // namespace
}  // namespace sculpt::backbone
