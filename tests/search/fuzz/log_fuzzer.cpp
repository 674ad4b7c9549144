// libFuzzer target over the one reader of search logs and all it feeds: read_log (lines, their
// JSON, their fields), LoggedSearch (the kernel and space a header names, each candidate rebuilt
// from its actions, its bound) and the HTML report, as `replay`, `bound` and `report` use them.
// Every problem must be reported as an error naming the log (and its line, for what read_log
// finds); no input may crash, hang, hold more memory than the reader's limits allow or make a
// sanitizer report. An input that starts with byte 0x01 is a recipe instead (generate.h). See
// README.md.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "report/html_report.h"
#include "search/gpu/logged_search.h"
#include "search/log/event_log.h"
#include "tests/search/fuzz/generate.h"

namespace {

void require(bool condition) {
  if (!condition) __builtin_trap();
}

/// A folder of this process's own, holding the log under test and nothing else (a kernel.tc
/// there would be read as the log's definition).
const std::filesystem::path& folder() {
  static const std::filesystem::path dir = [] {
    std::filesystem::path d =
        std::filesystem::temp_directory_path() / ("sculpt-log-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sculpt::search;
  const std::string generated = sculpt::search::fuzz::generate(data, size);
  const std::filesystem::path path = folder() / "log.jsonl";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (generated.empty()) {
      out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    } else {
      out << generated;
    }
  }
  const LogContents log = read_log(path);
  require(log.ok() || log.error.starts_with(path.string() + ":"));
  if (!log.ok()) return 0;
  try {
    // A shipped description: a "cpu" log must not measure this machine for each input.
    const LoggedSearch search = LoggedSearch::open(path, "sm_90");
    std::size_t rebuilt = 0;
    for (const LogEvaluation& e : search.log().evaluations) {
      if (++rebuilt > 8) break;
      try {
        (void)search.model().bound(*search.rebuild(e));
      } catch (const std::runtime_error& error) {
        require(std::string(error.what()).starts_with(path.string() + ":"));
      }
    }
    (void)sculpt::report::html_report(search, {.top = 3});
  } catch (const std::runtime_error& error) {
    require(*error.what() != '\0');
  }
  return 0;
}
