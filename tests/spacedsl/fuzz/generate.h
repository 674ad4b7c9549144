#pragma once
// Recipes (tests/fuzz/recipe.h) for long, deep and wide `.space` files. Each includes dims.space
// of the valid corpus for its sets. The text stops at 4 MiB, the most a space file holds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/recipe.h"

namespace sculpt::spacedsl::fuzz {

inline constexpr std::size_t kMaxGenerated = std::size_t{4} << 20;

/// The space a recipe describes; empty when `data` is not one.
inline std::string generate(const std::uint8_t* data, std::size_t size) {
  const std::optional<sculpt::fuzz::Recipe> recipe = sculpt::fuzz::read_recipe(data, size, 12);
  if (!recipe) return {};
  const int n = recipe->count;
  const std::string& fragment = recipe->fragment;
  const auto or_default = [&](std::string_view text) {
    return fragment.empty() ? std::string(text) : fragment;
  };
  std::string text = "include \"dims.space\"\n";
  const auto each = [&](auto&& write) {
    for (int i = 0; i < n && text.size() < kMaxGenerated; ++i) write(i, std::to_string(i));
  };
  const std::string kind = "choice enum kind($d in Dimensions):\n  value A:\n  value B:\nend\n";
  switch (recipe->shape) {
    case 0:  // many sets
      each([&](int, const std::string& i) {
        text += "set S" + i + " subsetof Dimensions:\n  iterator = \"" + or_default("$fun.dims()") +
                "\"\n  from_superset = \"$item\"\nend\n";
      });
      break;
    case 1:  // an enum of many values
      text += "choice enum e($d in Dimensions):\n";
      each([&](int, const std::string& i) { text += "  value V" + i + ":" + fragment + "\n"; });
      text += "end\n";
      break;
    case 2:  // a long disjunction
      text += kind + "require forall $a in Dimensions:\n  kind($a) is A";
      each([&](int, const std::string&) { text += " || " + or_default("kind($a) is B"); });
      text += "\n";
      break;
    case 3:  // deeply nested foralls
      text += kind + "require ";
      each([&](int, const std::string& i) { text += "forall $v" + i + " in Dimensions: "; });
      text += "kind($v0) is A" + fragment + "\n";
      break;
    case 4:  // many choices
      each([&](int, const std::string& i) {
        text += "choice enum c" + i + "($d in Dimensions):\n  value A:" + fragment +
                "\n  value B:\nend\n";
      });
      break;
    case 5:  // long host code
      text += "choice integer size($d in StaticDims): \"";
      each([&](int, const std::string&) { text += or_default("$d->sizes()"); });
      text += "\" end\n";
      break;
    case 6:  // a long name
      text += "choice enum ";
      each([&](int, const std::string&) { text += or_default("x"); });
      text += "($d in Dimensions):\n  value A:\n  value B:\nend\n";
      break;
    case 7:  // the same file included many times
      each([&](int, const std::string&) {
        text += "include \"" + or_default("dims.space") + "\"\n";
      });
      break;
    case 8:  // a deep chain of subsets
      text +=
          "set T0 subsetof Dimensions:\n  iterator = \"$fun.dims()\"\n"
          "  from_superset = \"$item\"\nend\n";
      each([&](int k, const std::string& i) {
        text += "set T" + std::to_string(k + 1) + " subsetof T" + i +
                ":\n  iterator = \"$fun.dims()\"\n  from_superset = \"" + or_default("$item") +
                "\"\nend\n";
      });
      break;
    case 9:  // a value with many requirements
      text += "choice enum e($d in Dimensions):\n  value A:\n";
      each([&](int, const std::string&) {
        text += "    requires " + or_default("\"$d->is_static()\"") + "\n";
      });
      text += "  value B:\nend\n";
      break;
    case 10:  // a long alias
      text += "choice enum e($d in Dimensions):\n  value A:\n  value B:\n  alias C = A";
      each([&](int, const std::string&) { text += " | " + or_default("B"); });
      text += ":\nend\n";
      break;
    default:  // many triggers
      text += kind;
      each([&](int, const std::string&) {
        text += "trigger forall $a in Dimensions: \"" + or_default("lower($fun, $a)") +
                "\" when: kind($a) is B\n";
      });
      break;
  }
  if (text.size() > kMaxGenerated) text.resize(kMaxGenerated);
  return text;
}

}  // namespace sculpt::spacedsl::fuzz
