#pragma once
// The key of a piece of host code in the GPU space's host table (gpu_space_host.h): the code and
// the sets of the `$variables` it reads, in order of first use, since one text may read objects
// of different sets (whose items have different types) in different places.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "spacedsl/model.h"

namespace sculpt::spacegen::test {

/// The end of the `$name` starting at code[i].
inline std::size_t host_name_end(std::string_view code, std::size_t i) {
  std::size_t j = i + 1;
  while (j < code.size() && (std::isalnum(static_cast<unsigned char>(code[j])) || code[j] == '_')) {
    ++j;
  }
  return j;
}

/// `code`, then `|name:set` for each variable it reads but `$fun`; `set_of(name)` gives a
/// variable's set (an optional; unbound names are left out).
template <typename SetOf>
std::string host_key(std::string_view code, SetOf&& set_of) {
  std::string key(code);
  std::vector<std::string> seen;
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (code[i] != '$') continue;
    std::string name(code.substr(i + 1, host_name_end(code, i) - i - 1));
    if (name == "fun" || std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    if (const auto set = set_of(name)) key += "|" + name + ":" + std::to_string(*set);
    seen.push_back(std::move(name));
  }
  return key;
}

}  // namespace sculpt::spacegen::test
