// `sculpt report`: a search's log as one self-contained HTML page (report/html_report.h), written
// next to the log unless --out says where.
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "explorer/command.h"
#include "report/html_report.h"
#include "search/gpu/logged_search.h"

namespace sculpt::explorer {
namespace {

struct ReportCommandOptions {
  std::string log;
  std::string out;
  std::int64_t top = 5;
  std::string description;
};

int run_report(const ReportCommandOptions& o) {
  try {
    const search::LoggedSearch search = search::LoggedSearch::open(o.log, o.description);
    if (const std::string warning = search.truncation_warning(); !warning.empty()) {
      std::fprintf(stderr, "sculpt report: warning: %s\n", warning.c_str());
    }
    const std::filesystem::path out =
        o.out.empty() ? search.path().parent_path() / "report.html" : std::filesystem::path(o.out);
    report::write_report(search, out, {.top = static_cast<std::size_t>(o.top)});
    const std::size_t n = search.log().evaluations.size();
    fmt::print("{}: report of {} evaluation{} written to {}\n", search.what(), n, n == 1 ? "" : "s",
               out.string());
    return kExitOk;
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "sculpt report: %s\n", e.what());
    return kExitUsage;
  }
}

}  // namespace

Command add_report_command(CLI::App& sculpt) {
  auto o = std::make_shared<ReportCommandOptions>();
  CLI::App* app = sculpt.add_subcommand(
      "report", "A search's log as one self-contained HTML page: plots, the best candidates");
  app->add_option("log", o->log, "A search's run folder, or its log.jsonl")->required();
  app->add_option("--out", o->out, "The HTML file to write (default: report.html beside the log)")
      ->check(not_empty("report.html beside the log"));
  app->add_option("--top", o->top, "How many of the fastest candidates to show with their code")
      ->transform(decimal_int64())
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app->add_option("--description", o->description,
                  "Device description for the bounds: a shipped one (sm_90, cpu) or a file "
                  "(default: the log's device)");
  return Command{app, [o] { return run_report(*o); }};
}

}  // namespace sculpt::explorer
