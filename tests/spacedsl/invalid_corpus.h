#pragma once
// What the invalid corpora of sculpt's two languages share (tests/spacedsl/invalid: spaces;
// tests/frontend/invalid: kernel definitions): each file with the exact diagnostics it gives,
// their check, and the check that the corpus and its list of cases hold the same files.
#include <gtest/gtest.h>

#include <filesystem>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "tests/spacedsl/space_test_util.h"

namespace sculpt::spacedsl::testing {

struct ExpectedError {
  int line;
  int column;
  std::string message;
};

struct InvalidCase {
  std::string file;
  std::vector<ExpectedError> errors;
};

inline void PrintTo(const InvalidCase& c, std::ostream* out) { *out << c.file; }

/// A test's name: the file's, without its extension.
inline std::string case_name(const ::testing::TestParamInfo<InvalidCase>& info) {
  return info.param.file.substr(0, info.param.file.find('.'));
}

/// `diags` holds exactly `expected`, in order, each in `file` with its source line.
inline void expect_exactly(const Diagnostics& diags, const std::vector<ExpectedError>& expected,
                           const std::filesystem::path& file) {
  const auto& errors = diags.errors();
  ASSERT_EQ(errors.size(), expected.size()) << printed(diags);
  for (std::size_t i = 0; i < errors.size(); ++i) {
    SCOPED_TRACE(printed(diags));
    EXPECT_EQ(errors[i].loc.line, expected[i].line);
    EXPECT_EQ(errors[i].loc.column, expected[i].column);
    EXPECT_EQ(errors[i].message, expected[i].message);
    EXPECT_EQ(errors[i].loc.file, file.string());
    EXPECT_FALSE(errors[i].source_line.empty());
  }
}

/// The files with `extension` in `dir` are exactly those `cases` list and those other tests
/// check (`elsewhere`).
inline void expect_every_file_listed(const std::filesystem::path& dir, const std::string& extension,
                                     const std::vector<InvalidCase>& cases,
                                     const std::set<std::string>& elsewhere = {}) {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == extension) files.insert(entry.path().filename().string());
  }
  std::set<std::string> listed = elsewhere;
  for (const InvalidCase& c : cases) listed.insert(c.file);
  EXPECT_EQ(files, listed);
}

}  // namespace sculpt::spacedsl::testing
