#pragma once
// The descriptions shipped in perf_model/devices/, embedded in the library at build time
// (shipped_descriptions.cpp.in), so that a binary needs no data files.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sculpt::perf_model {

/// The JSON text of the shipped description `name`, or nothing.
std::optional<std::string_view> shipped_description(std::string_view name);
std::vector<std::string> shipped_description_names();

}  // namespace sculpt::perf_model
