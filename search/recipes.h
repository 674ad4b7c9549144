#pragma once
// Known-good implementations fixed by hand (HandCandidate), by the names of the zoo kernels'
// dimensions: the candidates the GPU benchmarks compare with cuBLAS, and that the tests check on
// the GPU and on the PTX emulator.
#include <cstdint>

#include "search/hand_candidate.h"

namespace sculpt::search {

/// A zoo matmul with blocks of (tm * rm) x (tn * rn) outputs, tm x tn threads holding rm x rn
/// accumulators each, and k in steps of kt through shared tiles of A and B. The copies into the
/// tiles are thread loops of their own (A's k tile across x, B's across y), before a barrier.
void tiled_matmul(HandCandidate& c, std::int64_t tm, std::int64_t rm, std::int64_t tn,
                  std::int64_t rn, std::int64_t kt);

/// The zoo axpy, z = alpha x + y, with blocks of `threads` threads, each on `vector`
/// consecutive elements.
void vector_axpy(HandCandidate& c, std::int64_t threads, std::int64_t vector);

}  // namespace sculpt::search
