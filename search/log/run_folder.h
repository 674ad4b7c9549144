#pragma once
// A search's run folder: its event log (log.jsonl) and its best candidate's code (best.c or
// best.ptx), kept in step evaluation by evaluation, so that a crash loses at most the evaluation
// being written and a resumed search starts from what the folder says.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "search/log/event_log.h"
#include "search/session/session.h"

namespace sculpt::search {

class RunFolder {
 public:
  /// What the folder's files say of their search in the best file's header ("matmul 64x64x64 on
  /// cpu"), and the language of its code.
  struct Identity {
    LogHeader header;
    device::Language language = device::Language::c;
    std::string what;
  };

  /// Starts a new run in `dir`: a new or empty folder (created when missing). Throws
  /// std::runtime_error with the path and the reason, for a folder that holds a log (resume
  /// it) or other files (sculpt does not write among them) too.
  static RunFolder create(const std::filesystem::path& dir, Identity identity);
  /// Continues the run in `dir`: locks its log, reads it, and passes each evaluation with its
  /// line to `recall`, which returns a message to refuse it. Throws std::runtime_error
  /// ("PATH:LINE: why") for a damaged or foreign log or a refused evaluation.
  static RunFolder resume(
      const std::filesystem::path& dir, Identity identity,
      const std::function<std::string(const LogEvaluation&, std::size_t line)>& recall);

  /// Logs an evaluation, and writes its code as the best file when it is the best so far.
  /// Throws std::runtime_error when a file cannot be written.
  void record(const Evaluated& evaluated);
  /// Logs a session's statistics.
  void record(const SessionStats& stats) { log_.write_stats(stats.to_json()); }

  /// Whether the best file holds another candidate than the log's best (a crash between the
  /// log line and the file, or a deleted file); write_best_code then mends it.
  bool best_code_stale() const;
  void write_best_code(const device::KernelCode& code);

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path log_path() const { return dir_ / "log.jsonl"; }
  /// The best file, when it holds the best candidate.
  std::optional<std::filesystem::path> best_code_path() const;
  /// The fastest evaluation that checked ok, and the line of the log it is on.
  const std::optional<LogEvaluation>& best() const { return tally_.best; }
  /// Evaluations in the log, by check.
  const std::map<std::string, std::int64_t>& counts() const { return tally_.counts; }
  std::int64_t evaluations() const { return tally_.evaluations; }

 private:
  /// What the log holds, counted line by line.
  struct Tally {
    std::optional<LogEvaluation> best;
    std::map<std::string, std::int64_t> counts;
    std::int64_t evaluations = 0;
    /// Counts a logged evaluation; true when it is the new best.
    bool add(const LogEvaluation& e);
  };

  RunFolder(std::filesystem::path dir, Identity identity, EventLog log, Tally tally)
      : dir_(std::move(dir)),
        identity_(std::move(identity)),
        log_(std::move(log)),
        tally_(std::move(tally)) {}

  std::filesystem::path dir_;
  Identity identity_;
  EventLog log_;
  Tally tally_;
};

}  // namespace sculpt::search
