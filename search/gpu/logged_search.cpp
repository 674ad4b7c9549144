#include "search/gpu/logged_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <system_error>

#include "frontend/definition.h"
#include "search/session/device_description.h"
#include "support/error.h"
#include "zoo/zoo.h"

namespace sculpt::search {
namespace {

/// The log in `path`: the file itself, or log.jsonl in a run folder.
std::filesystem::path log_file(const std::filesystem::path& path) {
  std::error_code error;
  return std::filesystem::is_directory(path, error) ? path / "log.jsonl" : path;
}

/// The `n` fastest evaluations that checked ok, fastest first (the earliest of equal times).
std::vector<const LogEvaluation*> fastest_of(const std::vector<LogEvaluation>& evaluations,
                                             std::size_t n) {
  std::vector<const LogEvaluation*> ok;
  for (const LogEvaluation& e : evaluations)
    if (e.check == "ok" && e.time_ns) ok.push_back(&e);
  std::stable_sort(ok.begin(), ok.end(), [](const LogEvaluation* a, const LogEvaluation* b) {
    return *a->time_ns < *b->time_ns;
  });
  if (ok.size() > n) ok.resize(n);
  return ok;
}

}  // namespace

LoggedSearch::LoggedSearch(LoggedSearch&&) noexcept = default;
LoggedSearch::~LoggedSearch() = default;

LoggedSearch LoggedSearch::open(const std::filesystem::path& path, const std::string& description) {
  LoggedSearch s;
  s.path_ = log_file(path);
  std::vector<LogEvaluation> evaluations;
  s.log_ = read_log(s.path_, [&](LogEvaluation&& e, std::size_t line) {
    evaluations.push_back(std::move(e));
    s.lines_.push_back(line);
  });
  if (!s.log_.ok()) throw Error(Error::Kind::input, s.log_.error);
  s.log_.evaluations = std::move(evaluations);

  const LogHeader& header = s.log_.header;
  // A kernel of one's own: the definition the search kept in its run folder.
  if (std::optional<frontend::DefinitionLookup> defined =
          frontend::lookup_run_definition(s.path_.parent_path(), header.kernel, header.sizes)) {
    if (!defined->ok()) {
      throw Error(Error::Kind::input, defined->error, Error::Location{s.path_.string(), 1});
    }
    s.defined_ = std::make_shared<const backbone::KernelInfo>(std::move(*defined->info));
    s.info_ = s.defined_.get();
    s.sizes_ = defined->sizes;
  } else {
    std::string size;
    for (const auto& [name, value] : header.sizes)
      size += (size.empty() ? "" : "x") + std::to_string(value);
    const zoo::ZooLookup lookup = zoo::lookup_kernel(header.kernel, size);
    if (!lookup.ok())
      throw Error(Error::Kind::input, lookup.error, Error::Location{s.path_.string(), 1});
    s.info_ = lookup.info;
    s.sizes_ = lookup.sizes;
  }
  std::string error;
  std::optional<perf_model::Description> d =
      device_description(header.device, {}, description, &error, header.model);
  if (!d) throw Error(Error::Kind::usage, error);
  s.description_ = std::move(*d);
  s.kernel_ = std::make_unique<const backbone::Kernel>(s.info_->build(s.sizes_));
  s.root_ = gpu_space::make_root(*s.kernel_, s.description_.limits);
  if (s.root_->table().model_hash != header.space_hash) {
    throw Error(Error::Kind::input,
                fmt::format("written by another version of the space (space hash {:016x}, "
                            "today's {:016x}): its candidates cannot be rebuilt",
                            header.space_hash, s.root_->table().model_hash),
                Error::Location{s.path_.string(), 1});
  }
  if (s.root_->conflict()) {
    throw Error(
        Error::Kind::input,
        fmt::format("the space of {} is empty: {}", s.what(), s.root_->conflict()->to_string()),
        Error::Location{s.path_.string(), 1});
  }
  s.model_ = std::make_unique<perf_model::Model>(*s.kernel_, s.description_);
  return s;
}

std::string LoggedSearch::truncation_warning() const {
  if (!log_.truncated_line) return {};
  return fmt::format(
      "{}:{}: truncated last line (a search stopped while writing it), left out; `sculpt search "
      "--resume` removes it",
      path_.string(), *log_.truncated_line);
}

std::size_t LoggedSearch::line_of(const LogEvaluation& evaluation) const {
  const std::vector<LogEvaluation>& all = log_.evaluations;
  const auto index = static_cast<std::size_t>(&evaluation - all.data());
  return index < all.size() ? lines_[index] : 0;
}

std::string LoggedSearch::what() const {
  return fmt::format("{} {} on {}", info_->name, backbone::format_sizes(sizes_),
                     device::name(log_.header.device));
}

const LogEvaluation& LoggedSearch::find(std::int64_t id) const {
  const std::vector<LogEvaluation>& all = log_.evaluations;
  // Ids grow along the log (read_log checks it).
  const auto it = std::lower_bound(all.begin(), all.end(), id,
                                   [](const LogEvaluation& e, std::int64_t i) { return e.id < i; });
  if (it != all.end() && it->id == id) return *it;
  throw Error(Error::Kind::usage,
              all.empty()
                  ? fmt::format("{}: no candidate {} (the log holds none)", path_.string(), id)
                  : fmt::format("{}: no candidate {} (ids {} to {})", path_.string(), id,
                                all.front().id, all.back().id));
}

std::vector<const LogEvaluation*> LoggedSearch::fastest(std::size_t n) const {
  return fastest_of(log_.evaluations, n);
}

std::unique_ptr<gpu_space::Candidate> LoggedSearch::rebuild(const LogEvaluation& e) const {
  std::unique_ptr<spacegen::CandidateBase> candidate = root_->clone();
  if (candidate->apply(e.actions) == spacegen::Status::Conflict) {
    throw Error(Error::Kind::input,
                fmt::format("candidate {} does not replay on this space: {}", e.id,
                            candidate->conflict()->to_string()),
                Error::Location{path_.string(), static_cast<int>(line_of(e))});
  }
  if (candidate->first_open_instance()) {
    throw Error(
        Error::Kind::input,
        fmt::format("candidate {} does not replay on this space: it is not fully specified", e.id),
        Error::Location{path_.string(), static_cast<int>(line_of(e))});
  }
  return std::unique_ptr<gpu_space::Candidate>(
      static_cast<gpu_space::Candidate*>(candidate.release()));
}

LoggedStarts logged_starts(const std::filesystem::path& path, std::size_t n) {
  LoggedStarts starts;
  starts.path = log_file(path);
  const LogContents log = read_log(starts.path);
  if (!log.ok()) throw Error(Error::Kind::input, log.error);
  starts.kernel = log.header.kernel;
  for (const LogEvaluation* e : fastest_of(log.evaluations, n))
    starts.actions.push_back(e->actions);
  return starts;
}

}  // namespace sculpt::search
