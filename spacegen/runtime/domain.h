#pragma once
// Domains of choice instances and the three-valued reasoning the generated propagators use.
// Enum domains are bitsets over the choice's values; integer domains are bitsets over a
// per-instance universe of sorted values; counters are intervals.
#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace sculpt::spacegen {

/// Dense id of an object inside its root set (see Set::capacity in spacedsl/model.h).
using ObjectId = std::uint32_t;
/// No object: above every id.
inline constexpr ObjectId kNoObject = ~ObjectId{0};

/// The dense id of what a set's `id_getter` returns: an integer, an enum, or a strong id type
/// holding its integer in `.value`.
template <typename T>
ObjectId to_object_id(const T& id) {
  if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) {
    return static_cast<ObjectId>(id);
  } else {
    return static_cast<ObjectId>(id.value);
  }
}
inline constexpr std::size_t kMaxArity = 4;
using ValueSet = std::uint64_t;

/// The outcome of a restriction or of propagation. A conflict is not an error: it is the
/// normal end of a dead candidate, and CandidateBase::conflict() says why.
enum class [[nodiscard]] Status : std::uint8_t{Ok, Conflict};

/// Whether a condition holds for every (True), no (False) or some (Unknown) values left.
enum class Truth : std::uint8_t { False, True, Unknown };

enum class CompareOp : std::uint8_t { Lt, Le, Gt, Ge, Eq, Ne };

/// Counters saturate here so that products of large sizes never overflow.
inline constexpr std::int64_t kInfinity = std::int64_t{1} << 60;

inline std::int64_t saturate(std::int64_t v) { return std::clamp(v, -kInfinity, kInfinity); }
inline std::int64_t sat_add(std::int64_t a, std::int64_t b) { return saturate(a + b); }
inline std::int64_t sat_mul(std::int64_t a, std::int64_t b) {
  __int128 r = static_cast<__int128>(a) * b;
  if (r > kInfinity) return kInfinity;
  if (r < -kInfinity) return -kInfinity;
  return static_cast<std::int64_t>(r);
}

/// A closed interval of integers; the summary of an integer domain or a counter.
struct Interval {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  bool empty() const { return lo > hi; }
  bool fixed() const { return lo == hi; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

/// The flip of every domain of an antisymmetric choice of at most 8 values, indexed by the
/// domain: value i of (a, b) is value involution[i] of (b, a).
template <std::size_t N>
constexpr std::array<std::uint8_t, 256> involution_table(
    const std::array<std::uint8_t, N>& involution) {
  static_assert(N <= 8, "one byte of domain");
  std::array<std::uint8_t, 256> table{};
  for (std::size_t domain = 0; domain < 256; ++domain) {
    for (std::size_t v = 0; v < N; ++v) {
      if ((domain >> v) & 1) table[domain] |= static_cast<std::uint8_t>(1u << involution[v]);
    }
  }
  return table;
}

/// Whether a domain holds exactly one value (std::has_single_bit calls a library popcount on
/// targets without the instruction).
inline bool single_value(ValueSet domain) { return domain != 0 && (domain & (domain - 1)) == 0; }

/// Enum choices of at most 8 values pack their domains: `bits` (their number of values) per
/// instance, instance i at bit i * bits of the choice's slots, so that order, the largest choice,
/// takes 5 bits a pair. Two bytes are read and written at once.
constexpr bool packs_domains(std::size_t num_values) { return num_values <= 8; }

/// The packed domain whose first bit is `bit`.
[[gnu::always_inline]] inline ValueSet load_packed_at(const unsigned char* slots, std::size_t bit,
                                                      unsigned bits) {
  std::uint16_t pair;
  std::memcpy(&pair, slots + bit / 8, sizeof pair);
  return (pair >> (bit % 8)) & ((1u << bits) - 1);
}
[[gnu::always_inline]] inline ValueSet load_packed(const unsigned char* slots, std::size_t index,
                                                   unsigned bits) {
  return load_packed_at(slots, index * bits, bits);
}

[[gnu::always_inline]] inline void store_packed(unsigned char* slots, std::size_t index,
                                                unsigned bits, ValueSet domain) {
  const std::size_t bit = index * bits;
  std::uint16_t pair;
  std::memcpy(&pair, slots + bit / 8, sizeof pair);
  const unsigned mask = ((1u << bits) - 1) << (bit % 8);
  pair = static_cast<std::uint16_t>((pair & ~mask) | (static_cast<unsigned>(domain) << (bit % 8)));
  std::memcpy(slots + bit / 8, &pair, sizeof pair);
}

inline Truth truth_is(ValueSet domain, ValueSet values) {
  if ((domain & values) == 0) return Truth::False;
  if ((domain & ~values) == 0) return Truth::True;
  return Truth::Unknown;
}

/// Whether `domain is values` is known for `now` but was not for `old` (now is a subset of old):
/// the only way a change of the domain can matter to a condition that reads it through `is`.
[[gnu::always_inline]] inline bool truth_settled(ValueSet old, ValueSet now, ValueSet values) {
  return truth_is(old, values) == Truth::Unknown && truth_is(now, values) != Truth::Unknown;
}

/// Whether `domain is values` is false for `now` but was unknown for `old`: the only way a
/// change of the domain can matter to a clause (a disjunction) that reads it through `is`.
[[gnu::always_inline]] inline bool truth_falsified(ValueSet old, ValueSet now, ValueSet values) {
  return truth_is(old, values) == Truth::Unknown && truth_is(now, values) == Truth::False;
}

/// Reads `count` consecutive packed domains from instance `index` on into `out`, eight at a time
/// from one word (the layout leaves a word after the last slot of the block): `out` has room
/// for `count` rounded up to a multiple of 8.
template <unsigned Bits>
void unpack_packed(const unsigned char* slots, std::size_t index, std::size_t count,
                   std::uint8_t* out) {
  static_assert(Bits <= 8, "eight domains and the shift in a word");
  for (std::size_t k = 0, bit = index * Bits; k < count; k += 8, bit += 8 * Bits) {
    std::uint64_t word;
    std::memcpy(&word, slots + bit / 8, sizeof word);
    word >>= bit % 8;  // 0 for 8 bits
#pragma GCC unroll 8
    for (unsigned f = 0; f < 8; ++f) {
      out[k + f] = static_cast<std::uint8_t>((word >> (f * Bits)) & ((1u << Bits) - 1));
    }
  }
}

/// Copies `count` packed domains from instance `from_index` of `from` to `to_index` of `to`.
inline void copy_packed(const unsigned char* from, std::size_t from_index, unsigned char* to,
                        std::size_t to_index, std::size_t count, unsigned bits) {
  const std::size_t src = from_index * bits;
  const std::size_t dst = to_index * bits;
  const std::size_t n = count * bits;
  if (src % 8 != 0 || dst % 8 != 0) {
    for (std::size_t k = 0; k < count; ++k) {
      store_packed(to, to_index + k, bits, load_packed(from, from_index + k, bits));
    }
    return;
  }
  std::memcpy(to + dst / 8, from + src / 8, n / 8);
  if (const std::size_t rest = n % 8; rest != 0) {
    const unsigned low = (1u << rest) - 1;
    unsigned char& last = to[(dst + n) / 8];
    last = static_cast<unsigned char>((last & ~low) | (from[(src + n) / 8] & low));
  }
}

/// `a == b` for enum domains expressed over the same values.
inline Truth truth_enum_equal(ValueSet a, ValueSet b) {
  if ((a & b) == 0) return Truth::False;
  if (single_value(a) && a == b) return Truth::True;
  return Truth::Unknown;
}

inline Truth truth_not(Truth t) {
  return t == Truth::Unknown ? t : (t == Truth::True ? Truth::False : Truth::True);
}

inline Truth truth_of(bool b) { return b ? Truth::True : Truth::False; }

/// `a op b` over intervals.
inline Truth truth_compare(Interval a, CompareOp op, Interval b) {
  switch (op) {
    case CompareOp::Lt:
      if (a.hi < b.lo) return Truth::True;
      if (a.lo >= b.hi) return Truth::False;
      return Truth::Unknown;
    case CompareOp::Le:
      if (a.hi <= b.lo) return Truth::True;
      if (a.lo > b.hi) return Truth::False;
      return Truth::Unknown;
    case CompareOp::Gt:
      return truth_compare(b, CompareOp::Lt, a);
    case CompareOp::Ge:
      return truth_compare(b, CompareOp::Le, a);
    case CompareOp::Eq:
      if (a.hi < b.lo || b.hi < a.lo) return Truth::False;
      if (a.fixed() && b.fixed()) return Truth::True;
      return Truth::Unknown;
    case CompareOp::Ne:
      return truth_not(truth_compare(a, CompareOp::Eq, b));
  }
  return Truth::Unknown;
}

/// The values `x` may keep so that `x op y` can still hold for some y in `other`.
inline Interval allowed_range(CompareOp op, Interval other) {
  switch (op) {
    case CompareOp::Lt:
      return {-kInfinity, other.hi - 1};
    case CompareOp::Le:
      return {-kInfinity, other.hi};
    case CompareOp::Gt:
      return {other.lo + 1, kInfinity};
    case CompareOp::Ge:
      return {other.lo, kInfinity};
    case CompareOp::Eq:
      return other;
    case CompareOp::Ne:
      return {-kInfinity, kInfinity};
  }
  return {-kInfinity, kInfinity};
}

/// `x op y` seen from y: y op' x.
inline CompareOp mirror(CompareOp op) {
  switch (op) {
    case CompareOp::Lt:
      return CompareOp::Gt;
    case CompareOp::Le:
      return CompareOp::Ge;
    case CompareOp::Gt:
      return CompareOp::Lt;
    case CompareOp::Ge:
      return CompareOp::Le;
    default:
      return op;
  }
}

/// The negation of `x op y`.
inline CompareOp negate(CompareOp op) {
  switch (op) {
    case CompareOp::Lt:
      return CompareOp::Ge;
    case CompareOp::Le:
      return CompareOp::Gt;
    case CompareOp::Gt:
      return CompareOp::Le;
    case CompareOp::Ge:
      return CompareOp::Lt;
    case CompareOp::Eq:
      return CompareOp::Ne;
    case CompareOp::Ne:
      return CompareOp::Eq;
  }
  return op;
}

/// An integer domain in place: bit i <=> universe[i] is still possible, in the first
/// ceil(size / 8) bytes of its slot (slots are as narrow as the widest universe allows). The
/// universe is sorted ascending, so the bounds are the first and last bits.
class IntDomainRef {
 public:
  IntDomainRef(unsigned char* bits, std::span<const std::int64_t> universe)
      : bits_(bits), universe_(universe) {}

  std::size_t size() const { return universe_.size(); }
  bool contains_index(std::size_t i) const { return (bits_[i / 8] >> (i % 8)) & 1; }
  bool empty() const;
  /// The smallest and largest values left; {kInfinity, -kInfinity} when empty.
  [[gnu::always_inline]] Interval bounds() const {
    Interval r{kInfinity, -kInfinity};
    if (size() - 1 < 8) {  // most universes (1 to 8 values): one byte, no loops
      const unsigned bits = bits_[0];
      if (bits == 0) return r;
      return {universe_[static_cast<std::size_t>(std::countr_zero(bits))],
              universe_[static_cast<std::size_t>(std::bit_width(bits)) - 1]};
    }
    for (std::size_t b = 0; b < num_bytes(); ++b) {
      if (bits_[b] != 0) {
        r.lo = universe_[b * 8 + static_cast<std::size_t>(std::countr_zero(bits_[b]))];
        break;
      }
    }
    for (std::size_t b = num_bytes(); b-- > 0;) {
      if (bits_[b] != 0) {
        r.hi = universe_[b * 8 + 7 - static_cast<std::size_t>(std::countl_zero(bits_[b]))];
        break;
      }
    }
    return r;
  }
  bool contains_value(std::int64_t v) const;
  /// Each returns true when the domain changed.
  bool restrict_range(Interval range);
  bool remove_value(std::int64_t v);
  bool keep_values_of(const IntDomainRef& other);
  /// `mask`: 64-bit words, bit i for universe[i].
  bool keep_indices(const std::uint64_t* mask);
  std::int64_t value(std::size_t i) const { return universe_[i]; }
  std::span<const std::int64_t> universe() const { return universe_; }

 private:
  std::size_t num_bytes() const { return (size() + 7) / 8; }
  void remove_index(std::size_t i) {
    bits_[i / 8] = static_cast<unsigned char>(bits_[i / 8] & ~(1u << (i % 8)));
  }

  unsigned char* bits_;
  std::span<const std::int64_t> universe_;
};

}  // namespace sculpt::spacegen
