#pragma once
// Recipes (tests/fuzz/recipe.h) for long, deep and wide definitions. The text stops at 4 MiB, the
// most a definition file holds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tests/fuzz/recipe.h"

namespace sculpt::frontend::fuzz {

inline constexpr std::size_t kMaxGenerated = std::size_t{4} << 20;

/// The definition a recipe describes; empty when `data` is not one.
inline std::string generate(const std::uint8_t* data, std::size_t size) {
  const std::optional<sculpt::fuzz::Recipe> recipe = sculpt::fuzz::read_recipe(data, size, 12);
  if (!recipe) return {};
  const int n = recipe->count;
  const std::string_view fragment = recipe->fragment;
  std::string body;
  const auto repeat = [&](std::string_view unit, std::string_view between = "") {
    for (int i = 0; i < n && body.size() < kMaxGenerated; ++i) {
      if (i) body += between;
      body += unit;
    }
  };
  const auto numbered = [&](std::string_view prefix, std::string_view between) {
    for (int i = 0; i < n && body.size() < kMaxGenerated; ++i) {
      if (i) body += between;
      body += std::string(prefix) + std::to_string(i);
    }
  };
  std::string head = "def f(float(N) X, float(N) W) -> (Y) {\n  Y(i) = ";
  std::string tail = "\n}\n";
  switch (recipe->shape) {
    case 0:  // parentheses
      repeat("(");
      body += fragment.empty() ? "X(i)" : std::string(fragment);
      repeat(")");
      break;
    case 1:  // prefix operators
      repeat(fragment.empty() ? "-" : fragment);
      body += "X(i)";
      break;
    case 2:  // a long chain of binary operators
      body += "X(i)";
      for (int i = 0; i < n && body.size() < kMaxGenerated; ++i) {
        body += fragment.empty() ? " + " : std::string(1, fragment[i % fragment.size()]);
        body += "X(i)";
      }
      break;
    case 3:  // a call of many arguments
      body += "X(";
      repeat(fragment.empty() ? "i" : fragment, ", ");
      body += ")";
      break;
    case 4: {  // many indices, and a tensor of as many dimensions
      numbered("N", ", ");
      const std::string sizes = body;
      body.clear();
      numbered("i", ", ");
      const std::string indices = body;
      head = "def f(float(" + sizes + ") X) -> (Y) {\n  Y(";
      body = indices + ") = X(" + indices + ")" + std::string(fragment);
      break;
    }
    case 5:  // many statements, each reading the one before
      head = "def f(float(N) X) -> (Y) {\n  T0(i) = X(i)\n";
      for (int i = 1; i < n && body.size() < kMaxGenerated; ++i) {
        body += "  T" + std::to_string(i) + "(i) = T" + std::to_string(i - 1) + "(i) " +
                std::string(fragment.empty() ? "+ X(i)" : fragment) + "\n";
      }
      body += "  Y(i) = T" + std::to_string(n > 0 ? n - 1 : 0) + "(i)";
      break;
    case 6:  // many `where` ranges
      head = "def f(float(N) X) -> (Y) {\n  Y(i) +=! X(i) ";
      body += "where ";
      for (int i = 0; i < n && body.size() < kMaxGenerated; ++i) {
        body += (i ? ", k" : "k") + std::to_string(i) +
                " in 0:" + std::string(fragment.empty() ? "N" : fragment);
      }
      break;
    case 7: {  // a long name
      repeat(fragment.empty() ? "x" : fragment);
      const std::string name = body;
      head = "def f(float(N) " + name + ") -> (Y) {\n  Y(i) = ";
      body = name + "(i)";
      break;
    }
    case 8:  // a long number
      body += "X(i) * ";
      repeat(fragment.empty() ? "9" : fragment);
      break;
    case 9:  // many definitions
      head.clear();
      tail.clear();
      for (int i = 0; i < n && body.size() < kMaxGenerated; ++i) {
        body += "def f" + std::to_string(i) + "(float(N) X) -> (Y) { Y(i) = X(i) " +
                std::string(fragment) + " }\n";
      }
      break;
    case 10:  // nested selects
      for (int i = 0; i < n && body.size() < kMaxGenerated; ++i) {
        body += "X(i) > " + std::string(fragment.empty() ? "0" : fragment) + " ? W(i) : ";
      }
      body += "X(i)";
      break;
    default: {  // many parameters
      numbered("float(N) X", ", ");
      head = "def f(" + body + ") -> (Y) {\n  Y(i) = ";
      body = "X0(i)" + std::string(fragment);
      break;
    }
  }
  std::string text = head + body + tail;
  if (text.size() > kMaxGenerated) text.resize(kMaxGenerated);
  return text;
}

}  // namespace sculpt::frontend::fuzz
