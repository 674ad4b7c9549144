#pragma once
// The front end's entry points: read a `.space` file (following its includes), parse it,
// check it and return the resolved model, or nothing with the errors in `diags`.
// Never throws and never aborts on any input.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "spacedsl/diagnostics.h"
#include "spacedsl/model.h"

namespace sculpt::spacedsl {

std::optional<Model> load_space(const std::filesystem::path& file, Diagnostics& diags);

/// Same, from text in memory; `name` is the file name used in diagnostics and includes are
/// resolved relative to `base_dir`.
std::optional<Model> load_space_from_string(std::string_view text, const std::string& name,
                                            const std::filesystem::path& base_dir,
                                            Diagnostics& diags);

/// One line: "N sets, N choices, N constraints, N counters, N triggers, N quotients".
std::string summarize(const Model& model);

}  // namespace sculpt::spacedsl
