#pragma once
// The hand-fixed candidates whose lowered code tests/codegen/golden/ holds, decided on a
// backbone the caller builds: lowering_test builds the zoo's, frontend's zoo_test the one a
// definition gives, and both must lower to the same golden text.
#include "backbone/sizes.h"
#include "gpu_space/space.h"
#include "search/hand_candidate.h"

namespace sculpt::testing {

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
inline void decide_tiled_matmul_with_shared_tiles(search::HandCandidate& d) {
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
