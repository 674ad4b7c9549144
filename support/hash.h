#pragma once
// Hashes. FNV-1a, 64 bits, over a sequence of texts: stable across runs and platforms, unlike
// std::hash, so that it can name files of caches kept between runs. Collisions within one cache are
// out of reach in practice.
#include <cstdint>
#include <string>
#include <string_view>

namespace sculpt::support {

/// The 64-bit finaliser of MurmurHash3: spreads every bit of `x` over the result, so that keys
/// combined from small integers (ids, values) do not collide in practice.
inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

class Fnv1a {
 public:
  Fnv1a& add(std::string_view text) {
    for (char c : text) {
      state_ ^= static_cast<unsigned char>(c);
      state_ *= 0x100000001B3ull;
    }
    // A separator that no text contains keeps ("ab","c") and ("a","bc") apart.
    state_ ^= 0x100;
    state_ *= 0x100000001B3ull;
    return *this;
  }
  std::uint64_t value() const { return state_; }
  /// 16 hexadecimal digits.
  std::string hex() const;

 private:
  std::uint64_t state_ = 0xCBF29CE484222325ull;
};

}  // namespace sculpt::support
