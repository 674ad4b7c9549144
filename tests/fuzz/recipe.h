#pragma once
// The recipe format the fuzzers' generators share (tests/*/fuzz/generate.h): byte 0x01, a shape,
// a count of up to 65,535 (two bytes, big-endian) and a fragment, the rest of the input, that the
// shape repeats or embeds. It lets libFuzzer write inputs far longer, deeper or wider than its
// -max_len.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace sculpt::fuzz {

struct Recipe {
  int shape = 0;  ///< in [0, shapes)
  int count = 0;
  std::string fragment;
};

/// The recipe `data` holds, its shape taken modulo `shapes`; none when it is not one.
inline std::optional<Recipe> read_recipe(const std::uint8_t* data, std::size_t size, int shapes) {
  if (size < 4 || data[0] != 0x01) return std::nullopt;
  return Recipe{data[1] % shapes, (data[2] << 8) | data[3],
                std::string(reinterpret_cast<const char*>(data + 4), size - 4)};
}

}  // namespace sculpt::fuzz
