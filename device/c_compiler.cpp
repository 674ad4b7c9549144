#include "device/c_compiler.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

#include "device/evaluator.h"
#include "support/atomic_extremum.h"
#include "support/atomic_file.h"
#include "support/hash.h"

extern char** environ;

namespace sculpt::device {
namespace {

// An entry of the cache: a source and its object share a name (their hash).
struct CacheEntry {
  // file_clock's epoch lies in the future (2174 in libstdc++): start from its minimum, not 0.
  std::filesystem::file_time_type used = std::filesystem::file_time_type::min();
  std::uintmax_t bytes = 0;
  std::vector<std::filesystem::path> files;
};

// When `dir` holds more than `limit` bytes, removes the least recently used entries until it
// holds at most three quarters of it, so that trimming is rare. Temporary files, which other
// processes may be writing, stay.
void trim_cache(const std::filesystem::path& dir, std::uintmax_t limit) {
  std::map<std::string, CacheEntry> entries;
  std::uintmax_t total = 0;
  std::error_code error;
  for (const auto& file : std::filesystem::directory_iterator(dir, error)) {
    const std::uintmax_t bytes = file.file_size(error);
    if (error || file.path().extension() == ".tmp") continue;
    CacheEntry& entry = entries[file.path().stem().string()];
    entry.used = std::max(entry.used, file.last_write_time(error));
    entry.bytes += bytes;
    entry.files.push_back(file.path());
    total += bytes;
  }
  if (total <= limit) return;
  std::vector<const CacheEntry*> oldest_first;
  for (const auto& [name, entry] : entries) oldest_first.push_back(&entry);
  std::sort(oldest_first.begin(), oldest_first.end(),
            [](const CacheEntry* a, const CacheEntry* b) { return a->used < b->used; });
  for (const CacheEntry* entry : oldest_first) {
    if (total <= limit / 4 * 3) break;
    for (const auto& path : entry->files) std::filesystem::remove(path, error);
    total -= entry->bytes;
  }
}

}  // namespace

std::string processor_model_line() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.starts_with("model name")) return line;
  }
  return {};
}

CCompiler::CCompiler(std::string compiler, std::vector<std::string> flags,
                     std::filesystem::path cache_dir, std::chrono::milliseconds timeout,
                     const std::vector<std::string>& if_accepted, std::uintmax_t cache_limit)
    : compiler_(std::move(compiler)),
      flags_(std::move(flags)),
      cache_dir_(std::move(cache_dir)),
      timeout_(timeout) {
  if (compiler_.empty()) {
    const char* from_environment = std::getenv("SCULPT_CC");
    compiler_ = from_environment != nullptr ? from_environment : "";
  }
  // Words, as make's CC: "ccache gcc" and "gcc -fno-tree-vectorize" are commands too.
  std::istringstream words(compiler_);
  for (std::string word; words >> word;) command_.push_back(std::move(word));
  if (command_.empty()) compiler_ = "cc", command_ = {"cc"};
  const bool cache_given = !cache_dir_.empty();
  if (!cache_given) cache_dir_ = default_cache_dir();
  std::vector<std::string> version = command_;
  version.push_back("--version");
  auto probe = run_command(version);
  if (!probe || !probe->finished || probe->exit_code != 0) {
    // Its first line says why; the rest is often a banner.
    throw DeviceError(fmt::format(
        "cpu device: the C compiler '{}' does not run (set SCULPT_CC to a working one){}",
        compiler_,
        probe && !probe->output.empty() ? ": " + probe->output.substr(0, probe->output.find('\n'))
                                        : ""));
  }
  version_ = probe->output.substr(0, probe->output.find('\n'));
  if (!if_accepted.empty()) {
    std::vector<std::string> syntax_only = command_;
    syntax_only.insert(syntax_only.end(), flags_.begin(), flags_.end());
    syntax_only.insert(syntax_only.end(), if_accepted.begin(), if_accepted.end());
    syntax_only.insert(syntax_only.end(), {"-fsyntax-only", "-x", "c", "/dev/null"});
    auto tried = run_command(syntax_only);
    if (tried && tried->finished && tried->exit_code == 0) {
      flags_.insert(flags_.end(), if_accepted.begin(), if_accepted.end());
    } else {
      spdlog::debug("the C compiler '{}' rejects {}: compiling without them", compiler_,
                    fmt::join(if_accepted, " "));
    }
  }
  // With -march=native, objects built on another model (a cache folder shared between
  // machines) could use instructions this one lacks: the model is part of every key.
  processor_ = processor_model_line();
  std::error_code error;
  std::filesystem::create_directories(cache_dir_, error);
  if (error && !cache_given && cache_dir_ != temporary_cache_dir()) {
    // A home that cannot be written (a service account, a read-only container): the cache only
    // saves time, so a temporary one will do.
    spdlog::warn("cannot create the cache folder {}: {}; compiling into {} instead",
                 cache_dir_.string(), error.message(), temporary_cache_dir().string());
    cache_dir_ = temporary_cache_dir();
    error.clear();
    std::filesystem::create_directories(cache_dir_, error);
  }
  if (error) {
    throw DeviceError(fmt::format("cpu device: cannot create the cache folder {}: {}",
                                  cache_dir_.string(), error.message()));
  }
  trim_cache(cache_dir_, cache_limit);
}

std::filesystem::path CCompiler::default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    return std::filesystem::path(xdg) / "sculpt" / "cpu";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/') {
    return std::filesystem::path(home) / ".cache" / "sculpt" / "cpu";
  }
  return temporary_cache_dir();
}

std::filesystem::path CCompiler::temporary_cache_dir() {
  return std::filesystem::temp_directory_path() / fmt::format("sculpt-{}", getuid()) / "cpu";
}

std::optional<CCompiler::CommandResult> CCompiler::run_command(const std::vector<std::string>& args,
                                                               std::stop_token stop) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  // Its own process group, so that pausing or killing it reaches cc1, as and ld too.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char*> argv;
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int error = 0;
  std::chrono::steady_clock::duration paused_before{};
  bool abandoned = false;
  {
    // Spawning under the lock: a pause either sees the new group or is seen before it starts.
    std::unique_lock lock(mutex_);
    abandoned = !resumed_.wait(lock, stop, [this] { return !paused_; }) || stop.stop_requested();
    if (!abandoned) {
      error = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), environ);
      if (error == 0) groups_.insert(pid);
    }
    paused_before = paused_time(lock);
  }
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (abandoned) {
    close(fds[0]);
    return CommandResult{.finished = false, .abandoned = true};
  }
  if (error != 0) {
    close(fds[0]);
    return std::nullopt;
  }
  CommandResult result;
  result.finished = true;
  // An abandoned compilation goes at once, with its whole group. The group is in groups_ until
  // its leader is reaped below, so that its number is not another's yet.
  std::stop_callback on_stop(stop, [this, pid] {
    std::lock_guard lock(mutex_);
    if (groups_.contains(pid)) kill(-pid, SIGKILL);
  });
  auto start = std::chrono::steady_clock::now();
  char buffer[4096];
  for (;;) {
    std::chrono::steady_clock::duration paused;
    {
      std::unique_lock lock(mutex_);
      paused = paused_time(lock) - paused_before;
    }
    // Time spent stopped by pause() does not count against the timeout.
    auto left = std::chrono::ceil<std::chrono::milliseconds>(start + timeout_ + paused -
                                                             std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      kill(-pid, SIGKILL);
      result.finished = false;
      break;
    }
    pollfd poll_fd{.fd = fds[0], .events = POLLIN, .revents = 0};
    // Wake up now and then to take pauses into account.
    int ready = poll(&poll_fd, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
    if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
    ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  // Waited for outside the lock, reaped under it: a stop callback never signals a group
  // number given back.
  siginfo_t exited{};
  while (waitid(P_PID, static_cast<id_t>(pid), &exited, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  {
    std::lock_guard lock(mutex_);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    groups_.erase(pid);
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  result.abandoned = stop.stop_requested() && WIFSIGNALED(status);
  return result;
}

void CCompiler::pause() {
  std::lock_guard lock(mutex_);
  if (paused_) return;
  paused_ = true;
  paused_since_ = std::chrono::steady_clock::now();
  for (pid_t group : groups_) kill(-group, SIGSTOP);
}

void CCompiler::resume() {
  {
    std::lock_guard lock(mutex_);
    if (!paused_) return;
    paused_ = false;
    paused_total_ += std::chrono::steady_clock::now() - paused_since_;
    for (pid_t group : groups_) kill(-group, SIGCONT);
  }
  resumed_.notify_all();
}

std::chrono::steady_clock::duration CCompiler::paused_time(
    const std::unique_lock<std::mutex>& /*held*/) const {
  return paused_total_ + (paused_ ? std::chrono::steady_clock::now() - paused_since_
                                  : std::chrono::steady_clock::duration{});
}

CCompiler::Result CCompiler::compile(const std::string& source, std::stop_token stop) {
  support::Fnv1a hash;
  hash.add("sculpt-cpu-1");
  hash.add(compiler_);
  hash.add(version_);
  hash.add(processor_);
  for (const auto& flag : flags_) hash.add(flag);
  hash.add(source);
  auto object = cache_dir_ / (hash.hex() + ".so");
  if (std::filesystem::exists(object)) {
    ++cache_hits_;
    // A use, for the trimming: the least recently used entries go first.
    std::error_code error;
    std::filesystem::last_write_time(object, std::filesystem::file_time_type::clock::now(), error);
    return Result{.object = object, .log = {}, .cache_hit = true};
  }

  auto unique = fmt::format("{}.{}", getpid(), next_temporary_++);
  auto source_path = cache_dir_ / (hash.hex() + ".c");
  try {
    support::write_atomically(source_path, source, unique);
  } catch (const std::runtime_error& error) {
    // A full disk: the cache, not the candidate, is at fault, and so would every later one be.
    throw DeviceError(fmt::format("cpu device: {}", error.what()));
  }

  ++compilations_;
  support::raise_to(peak_concurrent_, ++running_);
  Result result;
  auto temporary = cache_dir_ / (hash.hex() + "." + unique + ".so.tmp");
  std::vector<std::string> args = command_;
  args.insert(args.end(), flags_.begin(), flags_.end());
  args.insert(args.end(), {"-x", "c", "-o", temporary.string(), source_path.string()});
  auto command = run_command(args, std::move(stop));
  std::error_code error;
  const bool abandoned = command && command->abandoned;
  if (!command) {
    result.log = fmt::format("cannot run the C compiler '{}'", compiler_);
  } else if (abandoned) {
    result.log = "the compilation was abandoned";
  } else if (!command->finished) {
    result.log = fmt::format("the C compiler did not finish within {} ms\n{}", timeout_.count(),
                             command->output);
  } else if (command->exit_code != 0) {
    result.log = std::move(command->output);
  } else if (std::filesystem::rename(temporary, object, error); error) {
    result.log =
        fmt::format("cannot move the compiled object to {}: {}", object.string(), error.message());
  } else {
    result.object = object;
    result.log = std::move(command->output);
  }
  std::filesystem::remove(temporary, error);
  --running_;
  if (!result.object && !abandoned) ++errors_;
  // A full disk fails every later candidate too: the device's failure, not this candidate's.
  if (const auto full = result.log.find("No space left on device");
      !result.object && full != std::string::npos) {
    const auto newline = result.log.rfind('\n', full);
    const auto start = newline == std::string::npos ? 0 : newline + 1;
    const auto end = result.log.find('\n', full);
    const auto line =
        result.log.substr(start, end == std::string::npos ? std::string::npos : end - start);
    throw DeviceError(fmt::format("cpu device: the C compiler ran out of disk space: {}", line));
  }
  return result;
}

CompilerStats CCompiler::stats() const {
  return CompilerStats{.compilations = compilations_.load(),
                       .cache_hits = cache_hits_.load(),
                       .errors = errors_.load(),
                       .peak_concurrent = peak_concurrent_.load()};
}

}  // namespace sculpt::device
