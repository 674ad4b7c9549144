#pragma once
// The system C compiler behind a cache of shared objects keyed by a hash of (source, compiler,
// flags): compiling the same code twice costs one compilation, across processes too.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sculpt::device {

struct CompilerStats {
  std::int64_t compilations = 0;  ///< compiler runs (cache misses), failed ones included
  std::int64_t cache_hits = 0;
  std::int64_t errors = 0;
  std::int64_t peak_concurrent = 0;  ///< most compiler runs seen at the same time
};

class CCompiler {
 public:
  struct Result {
    /// The shared object; absent when compilation failed.
    std::optional<std::filesystem::path> object{};
    /// What the compiler printed (errors, warnings), or why it could not finish.
    std::string log{};
    bool cache_hit = false;
  };

  /// `compiler`: the command to run (empty: $SCULPT_CC, else "cc"). `cache_dir` empty:
  /// default_cache_dir(). Runs `compiler --version` once, and throws DeviceError when the
  /// compiler does not run or the cache folder cannot be created.
  CCompiler(std::string compiler, std::vector<std::string> flags, std::filesystem::path cache_dir,
            std::chrono::milliseconds timeout);

  /// Compiles `source` into a shared object, or finds it in the cache. Thread-safe; several
  /// calls compile concurrently.
  Result compile(const std::string& source);

  /// $XDG_CACHE_HOME/sculpt/cpu, else $HOME/.cache/sculpt/cpu, else a folder under /tmp.
  static std::filesystem::path default_cache_dir();

  const std::string& compiler() const { return compiler_; }
  const std::filesystem::path& cache_dir() const { return cache_dir_; }
  CompilerStats stats() const;

 private:
  std::string compiler_;
  std::vector<std::string> flags_;
  std::filesystem::path cache_dir_;
  std::chrono::milliseconds timeout_;
  /// First line of `compiler --version`, part of the cache key: an upgrade invalidates it.
  std::string version_;

  std::atomic<std::int64_t> compilations_ = 0;
  std::atomic<std::int64_t> cache_hits_ = 0;
  std::atomic<std::int64_t> errors_ = 0;
  std::atomic<std::int64_t> running_ = 0;
  std::atomic<std::int64_t> peak_concurrent_ = 0;
  std::atomic<std::int64_t> next_temporary_ = 0;
};

}  // namespace sculpt::device
