#pragma once
// Recipes (tests/fuzz/recipe.h) for long, deep and wide logs, after a header a search of axpy
// 64 on this space would write (at most 8,191 evaluations). The text stops at 64 MiB, past the
// reader's line limit.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "gpu_space/space.h"
#include "perf_model/description.h"
#include "tests/fuzz/recipe.h"
#include "zoo/zoo.h"

namespace sculpt::search::fuzz {

inline constexpr std::size_t kMaxGenerated = std::size_t{64} << 20;

/// The header line of a search of axpy 64 on the CPU, on today's space.
inline const std::string& header() {
  static const std::string line = [] {
    const zoo::ZooLookup axpy = zoo::lookup_kernel("axpy", "64");
    const backbone::Kernel kernel = axpy.info->build(axpy.sizes);
    const auto root = gpu_space::make_root(kernel, perf_model::Description::named("sm_90").limits);
    return fmt::format(
        "{{\"kind\":\"header\",\"format\":1,\"kernel\":\"axpy\",\"sizes\":{{\"n\":64}},"
        "\"device\":\"cpu\",\"space_hash\":\"{:016x}\",\"seed\":1,\"algorithm\":\"mcts\","
        "\"model\":\"cpu\"}}\n",
        root->table().model_hash);
  }();
  return line;
}

/// The log a recipe describes; empty when `data` is not one.
inline std::string generate(const std::uint8_t* data, std::size_t size) {
  const std::optional<sculpt::fuzz::Recipe> recipe = sculpt::fuzz::read_recipe(data, size, 8);
  if (!recipe) return {};
  const int shape = recipe->shape;
  int n = recipe->count;
  // Many whole evaluations are a long search's log, not a hostile one: 60,000 take 1.7 s to
  // report in an optimized build, past the fuzzer's 10 s under the sanitizers.
  if (shape == 4 || shape == 5) n %= 8192;
  const std::string& fragment = recipe->fragment;
  const std::string action =
      fragment.empty() ? R"({"choice":"dim_kind","objects":[0],"value":"LOOP"})" : fragment;
  std::string text = header();
  const auto each = [&](auto&& write) {
    for (int i = 0; i < n && text.size() < kMaxGenerated; ++i) write(i);
  };
  const auto evaluation = [](int id, const std::string& actions) {
    return fmt::format(
        "{{\"kind\":\"evaluation\",\"id\":{},\"actions\":[{}],\"bound_ns\":10.0,"
        "\"time_ns\":100.0,\"check\":\"ok\",\"t\":0.5,\"spread_ns\":1.0,\"runs\":3}}\n",
        id, actions);
  };
  switch (shape) {
    case 0:  // many lines of the fragment
      each([&](int) { text += fragment + "\n"; });
      break;
    case 1: {  // one evaluation of many actions
      std::string actions;
      for (int i = 0; i < n && actions.size() < kMaxGenerated; ++i) {
        actions += (i ? "," : "") + action;
      }
      text += evaluation(0, actions);
      break;
    }
    case 2:  // deeply nested JSON
      each([&](int) { text += "["; });
      text += fragment;
      each([&](int) { text += "]"; });
      text += "\n";
      break;
    case 3:  // a long last line without its newline
      each([&](int) { text += fragment.empty() ? "x" : fragment; });
      break;
    case 4:  // many evaluations, some lines ending in a carriage return
      each([&](int i) {
        text += evaluation(i, action);
        if (i % 7 == 3) text.insert(text.size() - 1, "\r");
      });
      break;
    case 5:  // many evaluations of the fragment's actions, then statistics
      each([&](int i) { text += evaluation(i, action); });
      text += R"({"kind":"stats","evaluated":1})"
              "\n";
      break;
    case 6: {  // a header of many sizes
      text = R"({"kind":"header","format":1,"kernel":"axpy","sizes":{)";
      each([&](int i) { text += fmt::format("{}\"s{}\":{}", i ? "," : "", i, fragment); });
      text += R"(},"device":"cpu","space_hash":"0","seed":1,"algorithm":"mcts"})"
              "\n";
      break;
    }
    default:  // long strings in a header
      text = R"({"kind":"header","format":1,"kernel":")";
      each([&](int) { text += fragment.empty() ? "k" : fragment; });
      text += R"(","sizes":{"n":64},"device":"cpu","space_hash":"0","seed":1,"algorithm":"mcts"})"
              "\n";
      break;
  }
  if (text.size() > kMaxGenerated) text.resize(kMaxGenerated);
  return text;
}

}  // namespace sculpt::search::fuzz
