#pragma once
// The hand-fixed candidates whose lowered code tests/codegen/golden/ holds, decided on a
// backbone the caller builds: lowering_test builds the zoo's, frontend's zoo_test the one a
// definition gives, and both must lower to the same golden text.
// Also the paper's outer product and its two nestings (lowering_test's golden files, and
// search's code_features_test).
#include "backbone/builder.h"
#include "backbone/sizes.h"
#include "gpu_space/space.h"
#include "tests/recipes/hand_candidate.h"

namespace sculpt::testing {

/// C[i, j] = A[i] * B[j] (Table 1 of the paper): a load in each of d_i and d_j.
inline backbone::Kernel outer_product() {
  using namespace backbone;
  Builder b("outer_product");
  Size m = b.size("m", 4), n = b.size("n", 3);
  Array A = b.array("A", ElemType::kF32, {m}, MemRegion::Kind::kInput);
  Array B = b.array("B", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array C = b.array("C", ElemType::kF32, {m, n}, MemRegion::Kind::kOutput);
  Dim I = b.dim("i", m), J = b.dim("j", n);
  Value a = b.load(A, {I});
  Value bj = b.load(B, {J});
  b.store(C, {I, J}, b.mul(a, bj));
  return std::move(b).finish();
}

/// The outer product with every loop sequential and fused across nests, d_i outside d_j or
/// inside it. Nests: load0 (i0), load1 (j1), mul2 (i2, j3), store3 (i4, j5).
inline void decide_outer_product_nesting(recipes::HandCandidate& d, bool i_outside) {
  namespace v = gpu_space::values;
  for (const char* dim : {"i0", "j1", "i2", "j3", "i4", "j5"}) d.kind(dim, v::dim_kind::LOOP);
  for (const char* src : {"i0", "j1", "i2", "j3"}) d.mapping(src, v::dim_mapping::MERGED);
  if (i_outside) {
    d.order("i0", "j1", v::order::OUTER).order("load0", "j1", v::order::BEFORE);
  } else {
    d.order("j1", "i0", v::order::OUTER).order("load1", "i0", v::order::BEFORE);
  }
}

/// The sizes of the golden tiled matmul.
inline backbone::Sizes tiled_matmul_sizes() {
  backbone::Sizes sizes;
  sizes.set("m", 64);
  sizes.set("n", 64);
  sizes.set("k", 32);
  return sizes;
}

/// Matmul tiled through shared memory: 4 x 4 blocks of 8 x 8 threads, each computing a 2 x 2
/// register tile, k in steps of 8. Loops: A (m0, k1), B (n2, k3), init (m4, n5), fma (m6, n7,
/// k8), store (m9, n10).
inline void decide_tiled_matmul_with_shared_tiles(recipes::HandCandidate& d) {
  namespace v = gpu_space::values;
  d.kind("m6", v::dim_kind::BLOCK).kind("n7", v::dim_kind::BLOCK);
  d.size("m6_t0", 8).size("m6_t1", 2).size("n7_t0", 8).size("n7_t1", 2).size("k8_t0", 8);
  d.kind("m6_t0", v::dim_kind::THREAD).level("m6_t0", 1);
  d.kind("n7_t0", v::dim_kind::THREAD).level("n7_t0", 0);
  d.kind("m6_t1", v::dim_kind::UNROLL).kind("n7_t1", v::dim_kind::UNROLL);
  d.kind("k8", v::dim_kind::LOOP).kind("k8_t0", v::dim_kind::UNROLL);
  // The copies of A and B: their tiles through shared memory, k in step with the fma.
  for (const char* src : {"m0", "m0_t0", "k1", "n2", "n2_t0", "k3"}) {
    d.mapping(src, v::dim_mapping::MERGED);
  }
  for (const char* src : {"m0_t1", "k1_t0", "n2_t1", "k3_t0"})
    d.mapping(src, v::dim_mapping::MEMORY);
  d.shared("tmp0").shared("tmp1");
  // The accumulators: initialised in registers, stored from registers.
  for (const char* src : {"m4", "m4_t0", "n5", "n5_t0", "m6", "m6_t0", "n7", "n7_t0"}) {
    d.mapping(src, v::dim_mapping::MERGED);
  }
  for (const char* src : {"m4_t1", "n5_t1", "m6_t1", "n7_t1"}) {
    d.mapping(src, v::dim_mapping::REGISTERS);
  }
  // The register tile inside the k steps.
  d.order("k8", "m6_t1", v::order::OUTER).order("k8_t0", "m6_t1", v::order::OUTER);
  d.order("m6_t1", "n7_t1", v::order::OUTER);
}

}  // namespace sculpt::testing
