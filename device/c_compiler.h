#pragma once
// The system C compiler behind a cache of shared objects keyed by a hash of (source, compiler,
// flags): compiling the same code twice costs one compilation, across processes too.
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

namespace sculpt::device {

struct CompilerStats {
  std::int64_t compilations = 0;  ///< compiler runs (cache misses), failed ones included
  std::int64_t cache_hits = 0;
  std::int64_t errors = 0;
  std::int64_t peak_concurrent = 0;  ///< most compiler runs seen at the same time
};

/// /proc/cpuinfo's "model name" line, whole; empty where it has none.
std::string processor_model_line();

class CCompiler {
 public:
  struct Result {
    /// The shared object; absent when compilation failed.
    std::optional<std::filesystem::path> object{};
    /// What the compiler printed (errors, warnings), or why it could not finish.
    std::string log{};
    bool cache_hit = false;
  };

  /// Past this, the cache folder is trimmed when a compiler is made.
  static constexpr std::uintmax_t kDefaultCacheLimit = std::uintmax_t{2} << 30;  // 2 GiB

  /// `compiler`: the command to run, split into words at spaces (empty: $SCULPT_CC, else "cc";
  /// "ccache gcc" and "gcc -fno-tree-vectorize" are commands). `cache_dir` empty:
  /// default_cache_dir(), or temporary_cache_dir() when that cannot be created. Runs `compiler
  /// --version` once, and throws DeviceError when the compiler does not run or the cache folder
  /// cannot be created. `if_accepted` joins `flags` when the compiler accepts them all (one
  /// syntax-only run says): flags of one compiler that another rejects. A cache folder over
  /// `cache_limit` bytes loses its least recently used entries (a hit is a use) down to three
  /// quarters of it.
  CCompiler(std::string compiler, std::vector<std::string> flags, std::filesystem::path cache_dir,
            std::chrono::milliseconds timeout, const std::vector<std::string>& if_accepted = {},
            std::uintmax_t cache_limit = kDefaultCacheLimit);

  /// Compiles `source` into a shared object, or finds it in the cache. Thread-safe; several
  /// calls compile concurrently. Throws DeviceError when the disk is full: the source cannot
  /// be written to the cache, or the compiler says "No space left on device". When `stop` is
  /// requested (its candidate abandoned), the compiler is killed with its process group and
  /// the call returns at once, failing with "abandoned" (not counted as an error).
  Result compile(const std::string& source, std::stop_token stop = {});

  /// $XDG_CACHE_HOME/sculpt/cpu, else $HOME/.cache/sculpt/cpu, else temporary_cache_dir().
  static std::filesystem::path default_cache_dir();
  /// The user's folder under the temporary directory (/tmp/sculpt-UID/cpu); also where the cache
  /// goes, with a warning, when the default folder cannot be created.
  static std::filesystem::path temporary_cache_dir();

  /// Stops the running compilers (SIGSTOP to their process groups) and holds back new ones
  /// until resume(), so that they do not share the processor with a measured candidate. Time
  /// spent paused does not count against the compile timeout.
  void pause();
  void resume();

  const std::string& compiler() const { return compiler_; }
  /// The flags every compilation gets: those given, and those `if_accepted` that were.
  const std::vector<std::string>& flags() const { return flags_; }
  const std::filesystem::path& cache_dir() const { return cache_dir_; }
  CompilerStats stats() const;

 private:
  struct CommandResult {
    bool finished = false;   ///< false: killed after the timeout
    bool abandoned = false;  ///< killed, or never started, because its stop was requested
    int exit_code = -1;      ///< -1 when it did not exit normally
    std::string output{};    ///< stdout and stderr together
  };

  /// Runs args[0] from PATH with stdout and stderr captured, killing it after the timeout.
  /// Nothing when it cannot be started. posix_spawn, unlike fork, is safe in a threaded process.
  std::optional<CommandResult> run_command(const std::vector<std::string>& args,
                                           std::stop_token stop = {});
  std::chrono::steady_clock::duration paused_time(const std::unique_lock<std::mutex>& held) const;

  std::string compiler_;
  std::vector<std::string> command_;  ///< compiler_'s words
  std::vector<std::string> flags_;
  std::filesystem::path cache_dir_;
  std::chrono::milliseconds timeout_;
  /// First line of `compiler --version`, part of the cache key: an upgrade invalidates it.
  std::string version_;
  /// Processor model name, part of the cache key because of -march=native.
  std::string processor_;

  std::mutex mutex_;
  std::condition_variable_any resumed_;
  std::set<pid_t> groups_;  ///< process groups of the compilers running now
  bool paused_ = false;
  std::chrono::steady_clock::time_point paused_since_{};
  std::chrono::steady_clock::duration paused_total_{};

  std::atomic<std::int64_t> compilations_ = 0;
  std::atomic<std::int64_t> cache_hits_ = 0;
  std::atomic<std::int64_t> errors_ = 0;
  std::atomic<std::int64_t> running_ = 0;
  std::atomic<std::int64_t> peak_concurrent_ = 0;
  std::atomic<std::int64_t> next_temporary_ = 0;
};

}  // namespace sculpt::device
