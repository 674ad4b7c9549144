#pragma once
// FNV-1a, 64 bits, over a sequence of texts: stable across runs and platforms, unlike std::hash,
// so that it can name files of caches kept between runs. Collisions within one cache are out of
// reach in practice.
#include <cstdint>
#include <string>
#include <string_view>

namespace sculpt::support {

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
