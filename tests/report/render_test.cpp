// The report as a browser shows it: headless Chromium (Debian's `chromium`, which setup.sh
// installs) renders a report into a screenshot kept as a test artifact
// (SCULPT_REPORT_SCREENSHOT), and the DOM it builds holds one evaluation point per checked
// evaluation.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/html_report.h"
#include "tests/explorer/command_test_util.h"
#include "tests/report/synthetic_log.h"

namespace sculpt::report {
namespace {

constexpr const char* kChromium = "/usr/bin/chromium";

std::string read(const std::filesystem::path& path) {
  std::ostringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  return text.str();
}

/// Big-endian 32-bit integer at `at`.
std::uint32_t be32(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

class Render : public testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kChromium)) {
      GTEST_SKIP() << "chromium is not installed (" << kChromium
                   << "): setup.sh installs Debian's chromium";
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Runs headless Chromium with `arguments` on `page`, its profile in the test's folder (not
  /// the user's), its standard output into `out`; its exit status.
  int chromium(const std::string& arguments, const std::filesystem::path& page,
               const std::filesystem::path& out) {
    const std::string command = fmt::format(
        "timeout 120 {} --headless --no-sandbox --disable-gpu --user-data-dir='{}' {} 'file://{}' "
        ">'{}' 2>'{}'",
        kChromium, (dir_ / "profile").string(), arguments, page.string(), out.string(),
        (dir_ / "chromium.err").string());
    return std::system(command.c_str());
  }

  std::filesystem::path dir_ = explorer::fresh_dir("report_render");
};

TEST_F(Render, ScreenshotAndDomHoldEveryCheckedEvaluation) {
  const std::vector<search::LogEvaluation> written = write_log(dir_, {.checks = mostly_ok(40)});
  const auto ok = std::count_if(written.begin(), written.end(),
                                [](const search::LogEvaluation& e) { return e.check == "ok"; });
  const search::LoggedSearch search = search::LoggedSearch::open(dir_, "cpu");
  const std::filesystem::path page = dir_ / "report.html";
  write_report(search, page);

  const std::filesystem::path screenshot = SCULPT_REPORT_SCREENSHOT;
  std::filesystem::create_directories(screenshot.parent_path());
  std::filesystem::remove(screenshot);
  ASSERT_EQ(chromium(fmt::format("--screenshot='{}' --window-size=1280,2400 --hide-scrollbars",
                                 screenshot.string()),
                     page, dir_ / "screenshot.out"),
            0)
      << read(dir_ / "chromium.err");
  const std::string png = read(screenshot);
  ASSERT_GE(png.size(), 24u) << screenshot;
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(be32(png, 16), 1280u);  // the IHDR chunk: width, height
  EXPECT_EQ(be32(png, 20), 2400u);
  EXPECT_GT(png.size(), 50'000u) << "a blank page compresses to much less";

  ASSERT_EQ(chromium("--dump-dom", page, dir_ / "dom.html"), 0) << read(dir_ / "chromium.err");
  const std::string dom = read(dir_ / "dom.html");
  std::size_t points = 0;
  for (std::size_t at = dom.find("class=\"evaluation\""); at != std::string::npos;
       at = dom.find("class=\"evaluation\"", at + 1)) {
    ++points;
  }
  EXPECT_EQ(points, static_cast<std::size_t>(ok));
  EXPECT_NE(dom.find("<svg"), std::string::npos);
}

}  // namespace
}  // namespace sculpt::report
