#pragma once
// Support tables over the triangles of one triangular choice, woken through one edge and read
// for every third object at once. When c(x, y) changes, a constraint on c(x, y), c(x, z) and
// c(z, y) (order transitivity) must look at every z; one z at a time, almost all of them
// narrow nothing. Here the domains of c(x, z) and c(z, y) for 64 objects z become bit planes
// (plane u: the z whose domain holds value u), the tables' supports become ORs of planes, and
// only the z whose domains lose values reach the generated code.
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "spacegen/runtime/domain.h"

// The loops over the N values are short and hot: unrolled, they become straight-line code.
#define SCULPT_UNROLL _Pragma("GCC unroll 8")

namespace sculpt::spacegen {

/// For 64 objects (lanes), plane u holds whether value u is in each lane's domain.
template <std::size_t N>
using Planes = std::array<std::uint64_t, N>;

/// The planes of 64 one-byte domains holding values [0, N); blocks of 16 lanes that `lanes`
/// does not touch are skipped.
template <std::size_t N>
Planes<N> planes_of(const std::uint8_t (&domains)[64], std::uint64_t lanes) {
  static_assert(N <= 8, "one byte of domain");
  Planes<N> planes{};
  for (std::size_t block = 0; block < 4; ++block) {
    if (((lanes >> (16 * block)) & 0xffff) == 0) continue;
#if defined(__SSE2__)
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(domains + 16 * block));
    SCULPT_UNROLL
    for (std::size_t u = 0; u < N; ++u) {
      // Bit u of each byte moved to its top bit, where movemask gathers it.
      const int shift = static_cast<int>(7 - u);
      const auto bits = static_cast<std::uint64_t>(
          static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_slli_epi64(bytes, shift))));
      planes[u] |= bits << (16 * block);
    }
#else
    for (std::size_t half = 0; half < 2; ++half) {
      std::uint64_t bytes;
      std::memcpy(&bytes, domains + 16 * block + 8 * half, sizeof bytes);
      SCULPT_UNROLL
      for (std::size_t u = 0; u < N; ++u) {
        // Bit u of each byte gathered into 8 consecutive bits (byte i to bit i).
        const std::uint64_t bits = ((bytes >> u) & 0x0101010101010101ULL) * 0x0102040810204080ULL;
        planes[u] |= (bits >> 56) << (16 * block + 8 * half);
      }
    }
#endif
  }
  return planes;
}

/// One of the two instances of a triangle that share the third object z with the changed
/// edge: c(w, z) or c(z, w), w an end of the edge.
struct TriangleSide {
  /// The side's support table: its values supported by the domains of the edge and of the
  /// other side, which sit in the index at these shifts.
  const std::uint8_t* keep;
  unsigned edge_shift;
  unsigned other_shift;
  /// The side reads c(z, w).
  bool flipped;
};

/// A constraint on the triangle c(x, y), c(x, z), c(z, y) (each side in either argument order)
/// of a choice of N values stored as a lower triangle of packed domains (c(lo, hi) is instance
/// hi * (hi - 1) / 2 + lo, see load_packed), woken by a change of c(x, y).
template <std::size_t N>
struct Triangle {
  /// The value of c(b, a) that value u of c(a, b) is (the identity for symmetric choices).
  std::array<std::uint8_t, N> involution;
  /// sides[0] shares x with the edge, sides[1] shares y.
  std::array<TriangleSide, 2> sides;
};

namespace triangle_detail {

template <std::size_t N>
Planes<N> flip(const Triangle<N>& t, const Planes<N>& planes) {
  Planes<N> out{};
  SCULPT_UNROLL
  for (std::size_t u = 0; u < N; ++u) out[t.involution[u]] = planes[u];
  return out;
}

/// The planes of c(w, z) for the lanes z in [base, base + 64) that `lanes` selects (the
/// others hold anything).
template <std::size_t N>
Planes<N> row_planes(const Triangle<N>& t, const unsigned char* slots, ObjectId w, ObjectId base,
                     std::uint64_t lanes) {
  std::uint8_t domains[64] = {};
  // Below w, c(z, w) sits at w * (w - 1) / 2 + z: contiguous. Above, c(w, z) sits at
  // z * (z - 1) / 2 + w: one read per lane (`lanes` excludes w).
  const std::size_t below_end = std::min<std::size_t>(w, std::size_t{base} + 64);
  const std::size_t num_below = below_end > base ? below_end - base : 0;
  if (num_below != 0) {
    unpack_packed<N>(slots, std::size_t{w} * (w - 1) / 2 + base, num_below, domains);
  }
  const std::uint64_t below =
      num_below == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << num_below) - 1;
  // Every z from the first to the last lane above w (objects between members have slots
  // too): the instance grows by z from one z to the next, its first bit by N * z.
  if (const std::uint64_t above = lanes & ~below; above != 0) {
    const std::size_t first = base + static_cast<std::size_t>(std::countr_zero(above));
    const std::size_t last = base + 63 - static_cast<std::size_t>(std::countl_zero(above));
    std::size_t bit = N * (first * (first - 1) / 2 + w);
    for (std::size_t z = first; z <= last; bit += N * z, ++z) {
      domains[z - base] = static_cast<std::uint8_t>(load_packed_at(slots, bit, N));
    }
  }
  const Planes<N> stored = planes_of<N>(domains, lanes);
  if (num_below == 0) return stored;
  // Below w the stored domains are c(z, w): flip them.
  const Planes<N> flipped = flip(t, stored);
  Planes<N> out;
  SCULPT_UNROLL
  for (std::size_t u = 0; u < N; ++u) out[u] = (stored[u] & ~below) | (flipped[u] & below);
  return out;
}

/// Per set of values, the planes that select every lane for the values it holds.
template <std::size_t N>
constexpr std::array<Planes<N>, std::size_t{1} << N> kValueMasks = [] {
  std::array<Planes<N>, std::size_t{1} << N> masks{};
  for (std::size_t set = 0; set < masks.size(); ++set) {
    for (std::size_t u = 0; u < N; ++u) masks[set][u] = ((set >> u) & 1) ? ~std::uint64_t{0} : 0;
  }
  return masks;
}();

/// The planes of the values of `side` that its table keeps, given the edge's domain and the
/// planes of the other side.
template <std::size_t N>
Planes<N> kept(const TriangleSide& side, ValueSet edge, const Planes<N>& mine,
               const Planes<N>& other) {
  const std::uint8_t* const keep = side.keep + (edge << side.edge_shift);
  Planes<N> supported{};
  SCULPT_UNROLL
  for (std::size_t v = 0; v < N; ++v) {
    // The table is a union over the other side's values: take them one at a time.
    const Planes<N>& masks = kValueMasks<N>[keep[ValueSet{1} << v << side.other_shift]];
    SCULPT_UNROLL
    for (std::size_t u = 0; u < N; ++u) supported[u] |= other[v] & masks[u];
  }
  Planes<N> out;
  SCULPT_UNROLL
  for (std::size_t u = 0; u < N; ++u) out[u] = mine[u] & supported[u];
  return out;
}

template <std::size_t N>
ValueSet lane_domain(const Planes<N>& planes, std::size_t lane) {
  ValueSet out = 0;
  SCULPT_UNROLL
  for (std::size_t u = 0; u < N; ++u) out |= ((planes[u] >> lane) & 1) << u;
  return out;
}

/// The rows of one triangular choice (over at most 64 objects) in the state a RowVersion
/// names. Most scans read a row an earlier scan read, and every store to the choice updates
/// the two rows it touches, so a row is gathered once, not once per scan.
template <std::size_t N>
struct RowCache {
  std::uint64_t version = 0;
  std::uint32_t choice = 0;
  /// Whether the rows are those of `choice` in the state `version` names.
  bool holds(std::uint64_t v, std::uint32_t c) const { return version == v && choice == c; }
  /// Per row, the lanes gathered (none: not read yet).
  std::array<std::uint64_t, 64> read{};
  std::array<Planes<N>, 64> rows{};
};

template <std::size_t N>
inline thread_local RowCache<N> t_rows;

/// Versions are unique across threads: each thread takes them from ranges of its own.
inline std::atomic<std::uint64_t> g_next_version_range{1};
inline thread_local std::uint64_t t_next_version = 0;
inline thread_local std::uint64_t t_version_range_end = 0;

inline std::uint64_t fresh_version() {
  constexpr std::uint64_t kRange = std::uint64_t{1} << 20;
  if (t_next_version == t_version_range_end) {
    t_next_version = g_next_version_range.fetch_add(1, std::memory_order_relaxed) * kRange;
    t_version_range_end = t_next_version + kRange;
  }
  return t_next_version++;
}

/// The planes of c(w, z) for the lanes z of `lanes` (w excluded), from the cache when it read
/// them.
template <std::size_t N>
Planes<N> cached_row(RowCache<N>& cache, const Triangle<N>& t, const unsigned char* slots,
                     ObjectId w, std::uint64_t lanes) {
  if ((lanes & ~cache.read[w]) != 0) {
    cache.rows[w] = row_planes(t, slots, w, 0, lanes);
    cache.read[w] = lanes;
  }
  return cache.rows[w];
}

template <std::size_t N>
void set_lane(Planes<N>& planes, ObjectId lane, ValueSet domain) {
  const std::uint64_t bit = std::uint64_t{1} << lane;
  SCULPT_UNROLL
  for (std::size_t u = 0; u < N; ++u) {
    planes[u] = (planes[u] & ~bit) | (((domain >> u) & 1) << lane);
  }
}

}  // namespace triangle_detail

/// Names the state of a candidate's triangular choices, for the rows a thread caches: a
/// candidate and its copies share a version until one of them stores to such a choice and
/// takes a fresh one. The rows a decision's propagation read thus serve the next decision,
/// made on a copy, and a copy that failed leaves nothing behind that another copy could read.
struct RowVersion {
  std::uint64_t value = triangle_detail::fresh_version();
};

/// Records the store of `now` into c(lo, hi) of `choice` (`flipped`: the same as c(hi, lo)),
/// keeping this thread's rows in step when they were the candidate's.
template <std::size_t N>
void note_triangle_store(RowVersion& rows, std::uint32_t choice, ObjectId lo, ObjectId hi,
                         ValueSet now, ValueSet flipped) {
  using namespace triangle_detail;
  RowCache<N>& cache = t_rows<N>;
  const bool current = cache.holds(rows.value, choice);
  rows.value = fresh_version();
  if (!current) return;
  cache.version = rows.value;
  if (hi >= 64) return;
  if (cache.read[lo] != 0) set_lane(cache.rows[lo], hi, now);
  if (cache.read[hi] != 0) set_lane(cache.rows[hi], lo, flipped);
}

/// Propagates the change of c(x, y), whose domain is now `edge`, to every triangle through the
/// objects z of `members` other than x and y: calls narrow(z, keep0, keep1) for each z where a
/// side loses values, with the values each side keeps (in its own argument order; 0: none), in
/// increasing z, and stops at the first status other than Ok. Each z reads the domains as they
/// were before any narrowing, as the one-z-at-a-time loop does for its own z. Over at most 64
/// objects the rows of x and y come from this thread's cache when it holds `rows`: every store
/// to the choice must have been told through note_triangle_store.
template <std::size_t N, typename Narrow>
Status scan_triangle(const Triangle<N>& t, const RowVersion& rows, std::uint32_t choice,
                     const unsigned char* slots, std::span<const std::uint64_t> members, ObjectId x,
                     ObjectId y, ValueSet edge, Narrow&& narrow) {
  using namespace triangle_detail;
  for (std::size_t word = 0; word < members.size(); ++word) {
    const auto base = static_cast<ObjectId>(64 * word);
    std::uint64_t lanes = members[word];
    for (ObjectId end : {x, y}) {
      if (end >= base && end < base + 64) lanes &= ~(std::uint64_t{1} << (end - base));
    }
    if (lanes == 0) continue;
    Planes<N> row_x;
    Planes<N> row_y;
    if (members.size() == 1) {
      // Whole rows (the other end included) serve every later scan through x or y.
      RowCache<N>& cache = t_rows<N>;
      if (!cache.holds(rows.value, choice)) {
        cache.version = rows.value;
        cache.choice = choice;
        cache.read.fill(0);
      }
      row_x = cached_row(cache, t, slots, x, members[0] & ~(std::uint64_t{1} << x));
      row_y = cached_row(cache, t, slots, y, members[0] & ~(std::uint64_t{1} << y));
    } else {
      row_x = row_planes(t, slots, x, base, lanes);
      row_y = row_planes(t, slots, y, base, lanes);
    }
    const Planes<N> side0 = t.sides[0].flipped ? flip(t, row_x) : row_x;
    const Planes<N> side1 = t.sides[1].flipped ? flip(t, row_y) : row_y;
    const Planes<N> keep0 = kept(t.sides[0], edge, side0, side1);
    const Planes<N> keep1 = kept(t.sides[1], edge, side1, side0);
    std::uint64_t narrowed = 0;
    SCULPT_UNROLL
    for (std::size_t u = 0; u < N; ++u) {
      narrowed |= (side0[u] & ~keep0[u]) | (side1[u] & ~keep1[u]);
    }
    for (narrowed &= lanes; narrowed != 0; narrowed &= narrowed - 1) {
      const auto lane = static_cast<std::size_t>(std::countr_zero(narrowed));
      const Status s = narrow(static_cast<ObjectId>(base + lane), lane_domain(keep0, lane),
                              lane_domain(keep1, lane));
      if (s != Status::Ok) return s;
    }
  }
  return Status::Ok;
}

}  // namespace sculpt::spacegen

#undef SCULPT_UNROLL
