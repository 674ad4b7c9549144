// The report page of a log: one point per checked evaluation, nothing outside the page (no URL,
// no script), the fastest candidates' code escaped, PTX for a CUDA log, and empty or tiny logs
// that still make a whole page.
#include "report/html_report.h"
#include "codegen/device_code.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "report/svg_plot.h"
#include "search/log/best_code.h"
#include "search/session/candidate_evaluator.h"
#include "tests/explorer/command_test_util.h"
#include "tests/report/synthetic_log.h"

namespace sculpt::report {
namespace {

using search::LogEvaluation;
using search::LoggedSearch;

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

/// The ids of the evaluation points of the first plot.
std::multiset<std::int64_t> point_ids(const std::string& html) {
  std::multiset<std::int64_t> ids;
  const std::regex point(R"re(<circle class="evaluation"[^>]*data-id="([0-9]+)")re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), point);
       it != std::sregex_iterator(); ++it) {
    ids.insert(std::stoll((*it)[1]));
  }
  return ids;
}

/// What every page must be: whole, self-contained, its SVG balanced, with no NaN or infinite
/// coordinate.
void expect_whole_page(const std::string& html) {
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>\n")) << html.substr(0, 100);
  EXPECT_TRUE(html.ends_with("</html>\n"));
  for (const char* outside :
       {"http://", "https://", "src=", "href=", "<script", "url(", "@import", "<link", "xmlns"}) {
    EXPECT_EQ(html.find(outside), std::string::npos) << outside;
  }
  EXPECT_EQ(occurrences(html, "<svg"), occurrences(html, "</svg>"));
  EXPECT_EQ(occurrences(html, "<details"), occurrences(html, "</details>"));
  EXPECT_EQ(occurrences(html, "<table"), occurrences(html, "</table>"));
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(="-?(nan|inf))")))
      << "a coordinate is not finite";
}

class HtmlReport : public testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// The log `spec` describes, opened as `sculpt report` opens it (the shipped cpu description,
  /// rather than measuring this machine).
  LoggedSearch open(const LogSpec& spec) {
    written_ = write_log(dir_, spec);
    return LoggedSearch::open(dir_, spec.device == device::Kind::cuda ? "" : "cpu");
  }

  std::filesystem::path dir_ = explorer::fresh_dir("html_report");
  std::vector<LogEvaluation> written_;
};

TEST_F(HtmlReport, HasOnePointPerCheckedEvaluation) {
  const LoggedSearch search = open({.checks = mostly_ok(24)});
  const std::string html = html_report(search);
  expect_whole_page(html);
  std::multiset<std::int64_t> ok;
  for (const LogEvaluation& e : written_)
    if (e.check == "ok") ok.insert(e.id);
  ASSERT_EQ(ok.size(), 21u);
  EXPECT_EQ(occurrences(html, "class=\"evaluation\""), ok.size());
  EXPECT_EQ(point_ids(html), ok);
  // The failures are in a table of their own, their messages escaped.
  EXPECT_NE(html.find("<td>compile_error</td>"), std::string::npos);
  EXPECT_NE(html.find(escape_html(kFailureMessage)), std::string::npos);
  EXPECT_EQ(html.find(kFailureMessage), std::string::npos);
  // The header, the bound plot (the log has bounds) and the session's statistics.
  EXPECT_NE(html.find("<h1>matmul 32x32x32 on cpu</h1>"), std::string::npos);
  EXPECT_NE(html.find("21 ok, 1 wrong, 1 timed out and 1 compile error"), std::string::npos);
  EXPECT_NE(html.find("class=\"diagonal\""), std::string::npos);
  EXPECT_NE(html.find("session 1"), std::string::npos);
}

TEST_F(HtmlReport, ShowsTheFastestCandidatesWithTheirEscapedCode) {
  const LoggedSearch search = open({.checks = mostly_ok(12)});
  const std::string html = html_report(search, {.top = 3});
  expect_whole_page(html);
  EXPECT_EQ(occurrences(html, "<article class=\"candidate\">"), 3u);
  const std::vector<const LogEvaluation*> fastest = search.fastest(3);
  ASSERT_EQ(fastest.size(), 3u);
  for (const LogEvaluation* e : fastest) {
    const std::string code =
        codegen::kernel_code(*search.rebuild(*e), device::Language::c, "candidate").source;
    ASSERT_NE(code.find('<'), std::string::npos) << "the test needs code with markup in it";
    EXPECT_NE(html.find(escape_html(code)), std::string::npos) << "candidate " << e->id;
    EXPECT_EQ(html.find(code), std::string::npos) << "candidate " << e->id << " unescaped";
  }
  EXPECT_NE(html.find("Code (C)"), std::string::npos);
  EXPECT_NE(html.find("Decisions: the lowered kernel"), std::string::npos);
  EXPECT_NE(html.find(fmt::format("Candidate {}: ", fastest.front()->id)), std::string::npos);
}

TEST_F(HtmlReport, ShowsPtxForACudaLog) {
  const LoggedSearch search = open({.device = device::Kind::cuda, .checks = mostly_ok(4)});
  const std::string html = html_report(search, {.top = 1});
  expect_whole_page(html);
  EXPECT_NE(html.find("matmul 32x32x32 on cuda"), std::string::npos);
  EXPECT_NE(html.find("Code (PTX)"), std::string::npos);
  const std::string ptx = search::code_listing(codegen::kernel_code(
      *search.rebuild(*search.fastest(1).front()), device::Language::ptx, "candidate"));
  EXPECT_NE(html.find(escape_html(ptx)), std::string::npos);
}

TEST_F(HtmlReport, RendersEmptyAndTinyLogs) {
  struct Case {
    std::vector<std::string> checks;
    bool stats;
    std::size_t points;
    const char* says;
  };
  for (const Case& c : {Case{{}, false, 0, "The log holds no evaluation yet."},
                        Case{{"timeout"}, true, 0, "No candidate checked ok (1 evaluated)"},
                        Case{{"ok"}, true, 1, "stayed the fastest"},
                        Case{{"ok", "ok"}, false, 2, "No session ended normally"}}) {
    std::filesystem::remove_all(dir_);
    const std::string html = html_report(open({.checks = c.checks, .stats = c.stats}));
    SCOPED_TRACE(html);
    expect_whole_page(html);
    EXPECT_EQ(occurrences(html, "class=\"evaluation\""), c.points);
    EXPECT_NE(html.find(c.says), std::string::npos) << c.says;
  }
}

TEST_F(HtmlReport, IsWrittenWhole) {
  const LoggedSearch search = open({.checks = mostly_ok(3)});
  const std::filesystem::path file = dir_ / "report.html";
  write_report(search, file);
  std::ostringstream text;
  text << std::ifstream(file).rdbuf();
  EXPECT_EQ(text.str(), html_report(search));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            2)
      << "the log and the report, no temporary file";
  try {
    write_report(search, dir_ / "no" / "such" / "report.html");
    FAIL() << "wrote into a missing folder";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("cannot write " +
                                                  (dir_ / "no/such/report.html").string()))
        << e.what();
  }
}

}  // namespace
}  // namespace sculpt::report
