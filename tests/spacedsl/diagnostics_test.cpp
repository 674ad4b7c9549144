// Diagnostics format (long lines shown around the column), several errors in one run, include
// cycles and missing includes.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "spacedsl/frontend.h"
#include "tests/spacedsl/space_test_util.h"

namespace sculpt::spacedsl {
namespace {

std::vector<Diagnostic> errors_of(std::string_view text) {
  Diagnostics diags;
  EXPECT_FALSE(
      load_space_from_string(text, "t.space", testing::data_dir() / "valid", diags).has_value());
  return diags.errors();
}

TEST(SpacedslDiagnostics, PrintsFileLineColumnSourceAndCaret) {
  Diagnostics diags;
  diags.error({"a.space", 2, 5}, "unknown set 'Foo'", "\tx  Foo");
  std::ostringstream out;
  diags.print(out);
  EXPECT_EQ(out.str(), "a.space:2:5: error: unknown set 'Foo'\n  \tx  Foo\n  \t   ^\n");
}

// A long line (generated, or all on one line) is shown as 100 bytes around the column.
TEST(SpacedslDiagnostics, ALongLineIsShownAroundTheColumn) {
  const std::string line = std::string(300, 'a') + "Foo" + std::string(300, 'b');
  Diagnostics diags;
  diags.error({"a.space", 1, 301}, "unknown set 'Foo'", line);
  diags.error({"a.space", 1, 3}, "first", line);
  diags.error({"a.space", 1, 600}, "last", line);
  std::ostringstream out;
  diags.print(out);
  const std::string shown = std::string(50, 'a') + "Foo" + std::string(47, 'b');
  EXPECT_EQ(out.str(), "a.space:1:301: error: unknown set 'Foo'\n  ..." + shown + "...\n  " +
                           std::string(53, ' ') + "^\n" + "a.space:1:3: error: first\n  " +
                           std::string(100, 'a') + "...\n    ^\n" +
                           "a.space:1:600: error: last\n  ..." + std::string(100, 'b') + "\n  " +
                           std::string(3 + 96, ' ') + "^\n");
}

// A line of a megabyte with an error every few bytes (the fuzzer's: 16 GB of diagnostics, each
// holding the whole line) keeps 100 errors of 100 bytes and counts the rest.
TEST(SpacedslDiagnostics, AnInputFullOfErrorsKeepsAHundred) {
  std::string text = "include \"dims.space\"\nrequire forall $a in Dimensions:";
  for (int i = 0; i < 30000; ++i) text += " foo($a) is X ||";
  text += " bar($a) is Y\n";
  Diagnostics diags;
  EXPECT_FALSE(
      load_space_from_string(text, "t.space", testing::data_dir() / "valid", diags).has_value());
  ASSERT_EQ(diags.errors().size(), Diagnostics::kMaxErrors);
  EXPECT_EQ(diags.dropped(), 30001 - Diagnostics::kMaxErrors);
  for (const Diagnostic& d : diags.errors()) EXPECT_LE(d.source_line.size(), 106u);
  std::ostringstream out;
  diags.print(out);
  EXPECT_TRUE(out.str().ends_with("and 29901 more errors\n")) << out.str().substr(0, 200);
}

TEST(SpacedslDiagnostics, ReportsEveryUnknownNameOfAFile) {
  auto errors = errors_of(
      "include \"dims.space\"\n"
      "require forall $a in Dimensions:\n"
      "  foo($a) is X || bar($a) is Y\n"
      "require forall $b in Nope: \"$b\"\n");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].message, "unknown choice 'foo'");
  EXPECT_EQ(errors[0].loc.line, 3);
  EXPECT_EQ(errors[0].loc.column, 3);
  EXPECT_EQ(errors[0].source_line, "  foo($a) is X || bar($a) is Y");
  EXPECT_EQ(errors[1].message, "unknown choice 'bar'");
  EXPECT_EQ(errors[1].loc.column, 19);
  EXPECT_EQ(errors[2].message, "unknown set 'Nope'");
  EXPECT_EQ(errors[2].loc.line, 4);
}

TEST(SpacedslDiagnostics, RecoversAfterSyntaxErrorsAtTheNextItem) {
  auto errors = errors_of(
      "set A\n"
      "  type = \"x\"\n"
      "end\n"
      "choice enum c($a in A):\n"
      "  value X\n"
      "end\n"
      "require c($a) is\n");
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].message, "expected ':' but found 'type'");
  EXPECT_EQ(errors[0].loc.line, 2);
  EXPECT_EQ(errors[1].message, "expected ':' but found 'end'");
  EXPECT_EQ(errors[1].loc.line, 6);
  EXPECT_EQ(errors[2].message, "expected a value name but found end of file");
  EXPECT_EQ(errors[2].loc.line, 7);
  EXPECT_EQ(errors[2].loc.column, 17);
}

TEST(SpacedslDiagnostics, IncludeCycleIsReportedAtTheInclude) {
  Diagnostics diags;
  EXPECT_FALSE(load_space(testing::data_dir() / "invalid" / "include_cycle_a.space", diags));
  ASSERT_EQ(diags.errors().size(), 1u);
  const Diagnostic& d = diags.errors()[0];
  EXPECT_NE(d.loc.file.find("include_cycle_b.space"), std::string::npos);
  EXPECT_EQ(d.loc.line, 2);
  EXPECT_EQ(d.loc.column, 1);
  EXPECT_EQ(d.message, "include cycle: 'include_cycle_a.space' is already being included");
}

TEST(SpacedslDiagnostics, TwoFilesOfOneNameAreReportedAtTheSecondInclude) {
  // Each file's propagators are generated into propagators_<name>.cpp.
  auto errors = errors_of("include \"dims.space\"\ninclude \"elsewhere/dims.space\"\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].loc.line, 2);
  EXPECT_EQ(errors[0].loc.column, 1);
  EXPECT_EQ(errors[0].message,
            "'elsewhere/dims.space' has the name of 'dims.space', already part of the space: the "
            "files of a space need distinct names");
}

TEST(SpacedslDiagnostics, MissingIncludeIsReportedAtTheInclude) {
  auto errors = errors_of("\n  include \"no_such_file.space\"\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].loc.line, 2);
  EXPECT_EQ(errors[0].loc.column, 3);
  EXPECT_EQ(errors[0].message, "cannot open 'no_such_file.space': no such file");
}

TEST(SpacedslDiagnostics, MissingRootFile) {
  Diagnostics diags;
  EXPECT_FALSE(load_space("/nonexistent/x.space", diags));
  ASSERT_EQ(diags.errors().size(), 1u);
  EXPECT_EQ(diags.errors()[0].message, "cannot open '/nonexistent/x.space': no such file");
}

TEST(SpacedslDiagnostics, DirectoryIsNotASpaceFile) {
  auto errors = errors_of("include \".\"\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "cannot open '.': a folder, not a file");
}

TEST(SpacedslDiagnostics, TooManySyntaxErrorsStops) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "set\n";
  auto errors = errors_of(text);
  ASSERT_EQ(errors.size(), 51u);
  EXPECT_EQ(errors.back().message, "too many syntax errors, giving up on this file");
}

TEST(SpacedslDiagnostics, NonAsciiBytesAreDescribedPrintably) {
  auto errors = errors_of("set \xff:\nend\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "expected a name but found byte 0xff");
}

TEST(SpacedslDiagnostics, HugeFlatInputsDoNotCrash) {
  std::string text = "include \"dims.space\"\nrequire forall $d in Dimensions:\n";
  for (int i = 0; i < 20000; ++i) text += "  \"$d\" || TRUE || FALSE\n";
  Diagnostics diags;
  auto m = load_space_from_string(text, "big.space", testing::data_dir() / "valid", diags);
  ASSERT_TRUE(m.has_value()) << testing::printed(diags);
  EXPECT_EQ(m->constraints[0].clauses.size(), 20000u);
}

TEST(SpacedslDiagnostics, VariablesPerItemAreBounded) {
  std::string text = "include \"dims.space\"\nrequire\n";
  for (int i = 0; i < 70; ++i) text += "  forall $v" + std::to_string(i) + " in Dimensions:\n";
  text += "  \"$v0\"\n";
  auto errors = errors_of(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message, "too many variables in one item (at most 64)");
  EXPECT_EQ(errors[0].loc.line, 67);  // the 65th forall
  EXPECT_EQ(errors[0].loc.column, 3);
}

TEST(SpacedslDiagnostics, SubsetChainsAreBounded) {
  std::string text = "include \"dims.space\"\n";
  for (int i = 0; i < 70; ++i) {
    std::string super = i == 0 ? "Statements" : "S" + std::to_string(i - 1);
    text += "set S" + std::to_string(i) + " subsetof " + super +
            ": iterator = \"i\" from_superset = \"f\" end\n";
  }
  auto errors = errors_of(text);
  ASSERT_EQ(errors.size(), 1u);
  // Statements is at depth 0, so S63 is at depth 64 and S64 one too many.
  EXPECT_EQ(errors[0].message, "set 'S64' is nested too deeply (at most 64 levels of 'subsetof')");
  EXPECT_EQ(errors[0].loc.line, 66);
}

TEST(SpacedslDiagnostics, IncludeDepthIsBounded) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "spacedsl_include_depth";
  std::filesystem::create_directories(dir);
  for (int i = 0; i < 70; ++i) {
    std::ofstream(dir / ("f" + std::to_string(i) + ".space"))
        << "include \"f" << i + 1 << ".space\"\n";
  }
  std::ofstream(dir / "f70.space") << "// the end\n";
  Diagnostics diags;
  EXPECT_FALSE(load_space(dir / "f0.space", diags));
  ASSERT_EQ(diags.errors().size(), 1u);
  EXPECT_EQ(diags.errors()[0].message, "includes are nested too deeply");
  EXPECT_EQ(diags.errors()[0].loc.file, (dir / "f63.space").string());
  std::filesystem::remove_all(dir);
}

// The corpus the fuzzer kept and the inputs that once broke the front end: each gives a model
// or located errors, never both, never a crash.
TEST(SpacedslDiagnostics, FuzzCorpusAndRegressions) {
  int count = 0;
  for (const char* folder : {"fuzz_corpus", "fuzz_regressions"}) {
    std::filesystem::path dir = testing::data_dir() / folder;
    if (!std::filesystem::exists(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      std::ifstream in(entry.path(), std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      Diagnostics diags;
      auto model = load_space_from_string(text, "fuzz.space", testing::data_dir() / "valid", diags);
      EXPECT_NE(model.has_value(), diags.has_errors()) << entry.path();
      for (const Diagnostic& d : diags.errors()) {
        EXPECT_GE(d.loc.line, 1) << entry.path();
        EXPECT_GE(d.loc.column, 1) << entry.path();
      }
      ++count;
    }
  }
  EXPECT_GT(count, 0);
}

}  // namespace
}  // namespace sculpt::spacedsl
