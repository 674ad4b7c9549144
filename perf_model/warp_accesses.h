#pragma once
// The exact cost of a memory instruction whose choices are fixed (internal to perf_model): every
// warp of a block, each lane active or predicated off, at every iteration of the loops that move
// its address, in 32-byte sectors (global memory) or wavefronts (shared memory).
#include <array>
#include <cstdint>
#include <span>

namespace sculpt::perf_model {

/// How the lanes of a block's warps address memory.
struct LaneShape {
  /// Threads on levels x, y, z.
  std::array<std::int64_t, 3> block{1, 1, 1};
  /// Bytes the address moves per thread index of each level (0 where the access does not
  /// depend on it).
  std::array<std::int64_t, 3> coeff{0, 0, 0};
  /// Lanes are active where tid < bound on each level; 0: where tid == 0 (one thread stores what
  /// the whole level would store alike). A bound at the level's size predicates nothing.
  std::array<std::int64_t, 3> bound{1, 1, 1};
  /// Bytes each lane accesses (a vector access: its whole width).
  std::uint32_t lane_bytes = 4;
};

/// A loop (or block dimension) that moves the address: `size` iterations `coeff` bytes apart.
struct Shift {
  std::int64_t coeff = 0;
  std::int64_t size = 1;
};

struct WarpTotals {
  double accesses = 0;  ///< warp instructions (every warp, active lanes or not)
  double sectors = 0;
  double wavefronts = 0;
};

/// Totals over every warp of one block and every combination of the shifts, the address
/// starting `base` bytes past a sector boundary. Each thread keeps its recent answers: a search
/// asks the same again and again (a candidate's children share most of its accesses' shapes).
WarpTotals warp_totals(const LaneShape& shape, std::span<const Shift> shifts, std::int64_t base,
                       std::int64_t sector_bytes, std::uint32_t banks);

/// Forgets this thread's answers (benchmarks of the first bound of a candidate).
void forget_warp_totals();

}  // namespace sculpt::perf_model
