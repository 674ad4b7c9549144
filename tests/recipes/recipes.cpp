#include "tests/recipes/recipes.h"

#include <cstdint>

namespace sculpt::recipes {

namespace {

namespace v = gpu_space::values;

/// A zoo matmul with blocks of (tm * rm) x (tn * rn) outputs, tm x tn threads holding rm x rn
/// accumulators each, and k in steps of kt through shared tiles of A and B. The copies into the
/// tiles are thread loops of their own (A's k tile across x, B's across y), before a barrier.
void tiled_matmul(HandCandidate& c, std::int64_t tm, std::int64_t rm, std::int64_t tn,
                  std::int64_t rn, std::int64_t kt) {
  // Loops: A (m0, k1), B (n2, k3), init (m4, n5), fma (m6, n7, k8), store (m9, n10).
  c.kind("m6", v::dim_kind::BLOCK).kind("n7", v::dim_kind::BLOCK);
  c.size("m6_t0", tm).size("m6_t1", rm).size("n7_t0", tn).size("n7_t1", rn).size("k8_t0", kt);
  c.kind("m6_t0", v::dim_kind::THREAD).level("m6_t0", 1);
  c.kind("n7_t0", v::dim_kind::THREAD).level("n7_t0", 0);
  c.kind("m6_t1", v::dim_kind::UNROLL).kind("n7_t1", v::dim_kind::UNROLL);
  c.kind("k8", v::dim_kind::LOOP).kind("k8_t0", v::dim_kind::UNROLL);
  c.kind("m0_t0", v::dim_kind::THREAD).level("m0_t0", 1).kind("m0_t1", v::dim_kind::UNROLL);
  c.kind("k1_t0", v::dim_kind::THREAD).level("k1_t0", 0);
  c.kind("k3_t0", v::dim_kind::THREAD).level("k3_t0", 1).kind("n2_t1", v::dim_kind::UNROLL);
  c.kind("n2_t0", v::dim_kind::THREAD).level("n2_t0", 0);
  for (const char* src : {"m0", "k1", "n2", "k3"}) c.mapping(src, v::dim_mapping::MERGED);
  for (const char* src : {"m0_t0", "m0_t1", "k1_t0", "n2_t0", "n2_t1", "k3_t0"}) {
    c.mapping(src, v::dim_mapping::MEMORY);
  }
  c.shared("tmp0").shared("tmp1");
  // The accumulators: initialised and stored by thread loops of their own around the k loop,
  // each thread keeping its registers.
  for (const char* src : {"m4", "n5", "m6", "n7"}) c.mapping(src, v::dim_mapping::MERGED);
  for (const char* src : {"m4_t0", "n5_t0", "m6_t0", "n7_t0"})
    c.mapping(src, v::dim_mapping::THREADS);
  for (const char* src : {"m4_t1", "n5_t1", "m6_t1", "n7_t1"})
    c.mapping(src, v::dim_mapping::REGISTERS);
  // Each k step reads rm values of A and rn of B into registers (loops of their own: ld_tmp0 in
  // m11, k12; ld_tmp1 in n13, k14), then runs the rm x rn register tile.
  for (const char* src : {"m11", "m11_t0", "k12", "k12_t0", "n13", "n13_t0", "k14", "k14_t0"}) {
    c.mapping(src, v::dim_mapping::MERGED);
  }
  c.kind("m11_t1", v::dim_kind::UNROLL).kind("n13_t1", v::dim_kind::UNROLL);
  c.mapping("m11_t1", v::dim_mapping::REGISTERS).mapping("n13_t1", v::dim_mapping::REGISTERS);
  c.order("k8", "m6_t1", v::order::OUTER).order("k8_t0", "m6_t1", v::order::OUTER);
  c.order("m6_t1", "n7_t1", v::order::OUTER).order("n13_t1", "m6_t1", v::order::BEFORE);
}

/// The zoo axpy, z = alpha x + y, with blocks of `threads` threads, each on `vector`
/// consecutive elements.
void vector_axpy(HandCandidate& c, std::int64_t threads, std::int64_t vector) {
  // Loops: x (n0), y (n1), fma (n2), store (n3).
  c.kind("n2", v::dim_kind::BLOCK).size("n2_t0", threads).size("n2_t1", vector);
  c.kind("n2_t0", v::dim_kind::THREAD).level("n2_t0", 0).kind("n2_t1", v::dim_kind::VECTOR);
  for (const char* src : {"n0", "n0_t0", "n1", "n1_t0", "n2", "n2_t0"})
    c.mapping(src, v::dim_mapping::MERGED);
  for (const char* src : {"n0_t1", "n1_t1", "n2_t1"}) c.mapping(src, v::dim_mapping::REGISTERS);
  c.kind("n0_t1", v::dim_kind::VECTOR)
      .kind("n1_t1", v::dim_kind::VECTOR)
      .kind("n3_t1", v::dim_kind::VECTOR);
}

}  // namespace

std::vector<Recipe> benchmark_recipes() {
  auto matmul = [](std::string name, std::string sizes, std::string small_sizes, double m, double n,
                   double k, std::int64_t tm, std::int64_t rm, std::int64_t tn, std::int64_t rn,
                   std::int64_t kt) {
    return Recipe{std::move(name),
                  "matmul",
                  std::move(sizes),
                  std::move(small_sizes),
                  [=](HandCandidate& c) { tiled_matmul(c, tm, rm, tn, rn, kt); },
                  2 * m * n * k};
  };
  return {
      Recipe{"axpy_2^26", "axpy", "67108864", "65536",
             [](HandCandidate& c) { vector_axpy(c, 256, 4); }, 2.0 * (1 << 26)},
      matmul("sgemm_1024x1024x1024", "1024x1024x1024", "128x128x32", 1024, 1024, 1024, 16, 8, 16, 8,
             8),
      // Blocks of 64 x 128: 128 blocks, one for nearly every SM of an H100 where the one above
      // leaves half of them idle.
      matmul("sgemm_1024x1024x1024_128_blocks", "1024x1024x1024", "128x128x32", 1024, 1024, 1024,
             16, 4, 16, 8, 8),
      matmul("sgemm_4096x4096x4096", "4096x4096x4096", "128x128x32", 4096, 4096, 4096, 16, 8, 16, 8,
             8),
      matmul("sgemm_256x256x32", "256x256x32", "64x64x32", 256, 256, 32, 16, 4, 16, 4, 8),
  };
}

}  // namespace sculpt::recipes
