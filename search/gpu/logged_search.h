#pragma once
// A logged search rebuilt on today's space: the kernel and sizes its log's header names, the
// space's root under the logged device's limits, its model, and its evaluations with the lines
// they are on, so that any logged candidate can be rebuilt from its actions (`sculpt replay`,
// `sculpt report`, `sculpt bound`).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backbone/kernel.h"
#include "backbone/kernel_info.h"
#include "gpu_space/space.h"
#include "perf_model/model.h"
#include "search/log/event_log.h"

namespace sculpt::search {

class LoggedSearch {
 public:
  /// Reads `path` (a log, or a run folder holding log.jsonl) and rebuilds its space (of a zoo
  /// kernel, or of a definition the run folder keeps, frontend/definition.h) with
  /// `description` (a shipped description's name or a file; empty: the logged device's and
  /// model's, as search::device_description says). Throws std::runtime_error with one message
  /// naming the file and line: an unreadable or damaged log, an unknown kernel or sizes, a log
  /// written on another version of the space (its space hash), an unknown description.
  static LoggedSearch open(const std::filesystem::path& path, const std::string& description = "");

  LoggedSearch(LoggedSearch&&) noexcept;
  ~LoggedSearch();

  /// The log file read.
  const std::filesystem::path& path() const { return path_; }
  const LogContents& log() const { return log_; }
  /// The line a truncated last line was on (a search stopped while writing it), which is
  /// skipped: nothing when the log ends with a complete line.
  std::optional<std::size_t> truncated_line() const { return log_.truncated_line; }
  /// What every reader of the log says of a truncated last line ("LOG:23: truncated last line
  /// ..., left out; ..."), or empty.
  std::string truncation_warning() const;
  /// The line of the log an evaluation is on.
  std::size_t line_of(const LogEvaluation& evaluation) const;

  const backbone::KernelInfo& info() const { return *info_; }
  const backbone::Sizes& sizes() const { return sizes_; }
  const backbone::Kernel& kernel() const { return *kernel_; }
  const perf_model::Description& description() const { return description_; }
  const perf_model::Model& model() const { return *model_; }
  const gpu_space::Candidate& root() const { return *root_; }
  /// "matmul 256x256x256 on cpu".
  std::string what() const;

  /// The evaluation `id`. Throws std::runtime_error ("PATH: no candidate 7 (ids 0 to 5)").
  const LogEvaluation& find(std::int64_t id) const;
  /// The `n` fastest evaluations that checked ok, fastest first (the earliest of equal times).
  std::vector<const LogEvaluation*> fastest(std::size_t n) const;
  /// The candidate of a logged evaluation, rebuilt from its actions. Throws std::runtime_error
  /// ("PATH:LINE: candidate 7 does not replay on this space: why").
  std::unique_ptr<gpu_space::Candidate> rebuild(const LogEvaluation& evaluation) const;

 private:
  LoggedSearch() = default;

  std::filesystem::path path_;
  LogContents log_;
  std::vector<std::size_t> lines_;  // of log_.evaluations, in order
  const backbone::KernelInfo* info_ = nullptr;
  /// The kernel of a definition its run folder keeps, which `info_` then points to.
  std::shared_ptr<const backbone::KernelInfo> defined_;
  backbone::Sizes sizes_;
  std::unique_ptr<const backbone::Kernel> kernel_;
  perf_model::Description description_;
  std::unique_ptr<perf_model::Model> model_;
  std::unique_ptr<gpu_space::Candidate> root_;
};

/// What another search offers a new one to start from (SessionOptions::starts).
struct LoggedStarts {
  /// The log read, and the kernel its header names.
  std::filesystem::path path;
  std::string kernel;
  /// The actions of its fastest candidates that checked ok, fastest first.
  std::vector<std::vector<spacegen::Action>> actions;
};

/// The `n` fastest candidates of the log at `path` (a log, or a run folder holding log.jsonl).
/// Unlike LoggedSearch::open, the log may come from other sizes, another device or another
/// version of the space: a start replays as far as it applies. Throws std::runtime_error with
/// one message naming the file for an unreadable or damaged log.
LoggedStarts logged_starts(const std::filesystem::path& path, std::size_t n);

}  // namespace sculpt::search
