#include "search/log/run_folder.h"

#include <fmt/format.h>

#include <stdexcept>

#include "search/log/best_code.h"
#include "support/duration.h"
#include "support/error.h"

namespace sculpt::search {

namespace {

/// A file of `dir` when it is a folder that holds files but no log: not a run folder, and a
/// search writing there would replace a user's best.c or report.html.
std::optional<std::filesystem::path> foreign_file(const std::filesystem::path& dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error) ||
      std::filesystem::exists(dir / "log.jsonl", error)) {
    return std::nullopt;
  }
  std::filesystem::directory_iterator it(dir, error);
  if (error || it == std::filesystem::directory_iterator()) return std::nullopt;
  return it->path().filename();
}

}  // namespace

RunFolder RunFolder::create(const std::filesystem::path& dir, Identity identity) {
  if (const std::optional<std::filesystem::path> file = foreign_file(dir)) {
    throw Error(
        Error::Kind::usage,
        fmt::format(
            "{} is not a run folder (it holds {} and no log.jsonl): name a new or empty folder",
            dir.string(), file->string()));
  }
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    throw Error(Error::Kind::environment,
                fmt::format("cannot create the run folder {}: {}", dir.string(), error.message()));
  }
  EventLog log = EventLog::create(dir / "log.jsonl", identity.header);
  return RunFolder(dir, std::move(identity), std::move(log), Tally());
}

RunFolder RunFolder::resume(
    const std::filesystem::path& dir, Identity identity,
    const std::function<std::string(const LogEvaluation&, std::size_t line)>& recall) {
  const std::filesystem::path path = dir / "log.jsonl";
  LogLock lock = LogLock::acquire(path);  // before reading: nothing appends since
  Tally tally;
  std::string refused;
  LogContents contents = read_log(path, [&](LogEvaluation&& e, std::size_t line) {
    if (!refused.empty()) return;
    if (std::string why = recall(e, line); !why.empty()) {
      refused = fmt::format("{}:{}: {}", path.string(), line, why);
      return;
    }
    tally.add(e);
  });
  if (!contents.ok()) throw Error(Error::Kind::input, contents.error);
  if (!refused.empty()) throw Error(Error::Kind::input, refused);
  // A log written before models were recorded is taken to be of this one.
  LogHeader logged = contents.header;
  if (logged.model.empty()) logged.model = identity.header.model;
  if (!(logged == identity.header)) {
    throw Error(
        Error::Kind::usage,
        fmt::format("{} was written by another search (kernel, sizes, device, its model, space, "
                    "seed or algorithm differ): start a new one with another --out",
                    path.string()));
  }
  return RunFolder(dir, std::move(identity), EventLog::append_to(std::move(lock), contents),
                   std::move(tally));
}

bool RunFolder::Tally::add(const LogEvaluation& e) {
  ++evaluations;
  ++counts[e.check];
  if (e.check != "ok" || (best && !(*e.time_ns < *best->time_ns))) return false;
  best = e;
  return true;
}

void RunFolder::record(const Evaluated& e) {
  LogEvaluation entry;
  entry.id = e.id;
  entry.actions = e.actions;
  entry.bound_ns = e.bound_ns;
  entry.time_ns = e.evaluation.time_ns;
  entry.check = std::string(device::to_string(e.evaluation.check));
  entry.t = e.t;
  entry.spread_ns = e.evaluation.spread_ns;
  entry.runs = e.evaluation.runs;
  entry.estimate_ns = e.evaluation.estimate_ns;
  entry.cut_short = e.evaluation.cut_short;
  entry.start = e.start;
  entry.message = e.evaluation.message.substr(0, 2000);
  entry.rank = e.evaluation.rank;
  log_.write(entry);
  if (tally_.add(entry) && !e.code.source.empty()) write_best_code(e.code);
}

bool RunFolder::best_code_stale() const {
  return tally_.best && best_code_id(dir_, identity_.language) != tally_.best->id;
}

void RunFolder::write_best_code(const device::KernelCode& code) {
  search::write_best_code(dir_, code, tally_.best->id, identity_.what,
                          support::format_ns(*tally_.best->time_ns));
}

std::optional<std::filesystem::path> RunFolder::best_code_path() const {
  if (!tally_.best || best_code_stale()) return std::nullopt;
  return search::best_code_path(dir_, identity_.language);
}

}  // namespace sculpt::search
