#pragma once
// The event log of a search, `DIR/log.jsonl`: a header line, then one line per evaluated
// candidate, appended and flushed as each evaluation ends, and a statistics line at the end of
// each session (ARCHITECTURE.md, "Contracts"). A log is
// never rewritten; a crash loses at most the evaluation in flight.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "device/kind.h"
#include "spacegen/runtime/candidate.h"

namespace sculpt::search {

struct LogHeader {
  int format = 1;
  std::string kernel;
  std::vector<std::pair<std::string, std::int64_t>> sizes;  // in the kernel's order
  device::Kind device = device::Kind::cpu;
  std::uint64_t space_hash = 0;
  std::uint64_t seed = 0;
  std::string algorithm;
  /// Which device exactly, as device::Evaluator::model says ("NVIDIA H200 (sm_90)", "cpu"): its
  /// model's description is the one whose bounds the log holds (search::device_description).
  /// Empty in logs written before it was recorded.
  std::string model;
  friend bool operator==(const LogHeader&, const LogHeader&) = default;
};

struct LogEvaluation {
  std::int64_t id = 0;
  std::vector<spacegen::Action> actions;
  std::optional<double> bound_ns;
  std::optional<double> time_ns;  // median of the timed runs; absent when not run
  std::string check;              // ok | wrong | fault | timeout | compile_error
  double t = 0;                   // seconds since the search started
  double spread_ns = 0;
  int runs = 0;
  bool cut_short = false;  // timed less than planned: slower than the search's cutoff
  /// What a sample of the grid estimated a run at (device::Evaluation::estimate_ns).
  std::optional<double> estimate_ns;
  /// One of another search's candidates it started from (`--start-from`), not the algorithm's.
  bool start = false;
  std::string message;
  std::optional<int> rank;  // the MPI rank that measured it, in a distributed search
};

/// The statistics line a session ends with (SessionStats, as JSON).
struct LogStats {
  std::string json;
};

/// A parsed log, or the first problem found with where it is.
struct LogContents {
  LogHeader header;
  /// The statistics of each session that ended normally, in order.
  std::vector<LogStats> sessions;
  /// Every evaluation, unless read_log passed them on one by one.
  std::vector<LogEvaluation> evaluations;
  /// How many evaluations were read, and the last one's id.
  std::size_t evaluation_count = 0;
  std::optional<std::int64_t> last_id;
  std::string error;  // "log.jsonl:3: ..." when the log is corrupt or foreign
  /// Bytes up to the end of the last complete line: what a search appends after.
  std::uintmax_t complete_bytes = 0;
  /// The line a truncated last line is on (a search stopped while writing it), which is
  /// skipped; nothing when the log ends with a complete line.
  std::optional<std::size_t> truncated_line;
  bool ok() const { return error.empty(); }
};

/// Lines of a log are at most this long, and logs at most this large: a reader refuses others
/// (a search's line holds its candidate's decisions, a few hundred bytes each; a log of a
/// million evaluations of a large kernel stays below the bound).
inline constexpr std::size_t kMaxLogLine = std::size_t{16} << 20;
inline constexpr std::uintmax_t kMaxLogBytes = std::uintmax_t{4} << 30;

/// Reads a log line by line, checking each line, and passes each evaluation to `each` with its
/// line number (1-based) as it is read (then none is kept): a resumed search need not hold a long
/// history in memory. A truncated last line (a crash while writing it) is dropped, not an error;
/// `truncated_line` says where it was. A line that ends in a carriage return is an error: a
/// search appending to it would mix line endings.
LogContents read_log(const std::filesystem::path& path,
                     const std::function<void(LogEvaluation&&, std::size_t line)>& each);
/// Reads a whole log, keeping every evaluation.
LogContents read_log(const std::filesystem::path& path);

/// An exclusive lock on a log, held while a search writes it, so that a second search of the
/// same run folder (a second --resume) stops rather than interleave its lines. Advisory (flock),
/// and released when the process ends, a crash included. Where the file system has no locks, a
/// warning says the folder is not protected.
class LogLock {
 public:
  /// Throws std::runtime_error when the log cannot be opened ("PATH: cannot read the log: why")
  /// or another process holds its lock.
  static LogLock acquire(const std::filesystem::path& path);
  LogLock(LogLock&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) {
    other.fd_ = -1;
  }
  LogLock(const LogLock&) = delete;
  LogLock& operator=(const LogLock&) = delete;
  LogLock& operator=(LogLock&&) = delete;
  ~LogLock();
  const std::filesystem::path& path() const { return path_; }

 private:
  friend class EventLog;
  LogLock(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  /// Locks the open `fd` of `path`, or closes it and throws.
  static LogLock lock(std::filesystem::path path, int fd);

  std::filesystem::path path_;
  int fd_;
};

class EventLog {
 public:
  /// Starts a new log, locked; the file must not exist. Throws std::runtime_error when it
  /// cannot be written (with the path and the reason).
  static EventLog create(const std::filesystem::path& path, const LogHeader& header);
  /// Appends to the log that read_log read as `contents` under `lock` (taken before reading, so
  /// that nothing was appended since), first cutting the truncated last line it skipped.
  static EventLog append_to(LogLock lock, const LogContents& contents);

  /// Appends one line and flushes it. Throws std::runtime_error when it cannot (a full disk),
  /// with the path and the reason: the line may then be partly written (a truncated last line).
  void write(const LogEvaluation& evaluation);
  /// Appends a session's statistics line: `stats` is a JSON object, to which the line adds its
  /// kind. Throws as write() does.
  void write_stats(const std::string& stats);

 private:
  EventLog(LogLock lock, std::ofstream out) : lock_(std::move(lock)), out_(std::move(out)) {}
  void write_line(const std::string& line);

  LogLock lock_;
  std::ofstream out_;
};

}  // namespace sculpt::search
