#pragma once
// Helpers shared by the frontend tests: definitions loaded from text, and their errors printed.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/definition.h"
#include "tests/spacedsl/space_test_util.h"

namespace sculpt::frontend::testing {

inline std::filesystem::path data_dir() { return std::filesystem::path(SCULPT_TEST_DATA_DIR); }

using spacedsl::testing::printed;

/// The only definition of `text`; a failure when it does not check.
inline Definition only(const std::string& text) {
  Diagnostics diags;
  std::vector<Definition> defs = load_definitions(text, "t.tc", diags);
  EXPECT_FALSE(diags.has_errors()) << printed(diags);
  EXPECT_EQ(defs.size(), 1u) << text;
  return defs.empty() ? Definition{} : std::move(defs.front());
}

/// The range of dimension `name`, as TC writes it.
inline std::string range_of(const Definition& def, const std::string& name) {
  for (const Dim& dim : def.dims) {
    if (dim.name == name) return dim.range.to_string();
  }
  return "no dimension " + name;
}

}  // namespace sculpt::frontend::testing
