#pragma once
// What the command tests share besides running a command line (run_sculpt.h): a fresh folder
// for a run, the command line of a small search, and a Ctrl-C sent to the process once the
// command under test is under way.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace sculpt::explorer {

/// An empty path under the temporary folder, named after the test and this process.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("sculpt_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

/// `sculpt search` of a small axpy (n = 64) on the CPU device: `evals` in all, into `dir`, then
/// `more` (such as "--resume").
inline std::vector<std::string> small_search(const std::filesystem::path& dir,
                                             const std::string& evals,
                                             const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {"search", "--kernel", "axpy", "--size", "64",        "--device",
                                   "cpu",    "--evals",  evals,  "--out",  dir.string()};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

extern "C" inline void ignore_late_interrupt(int) {}

/// Sends this process one SIGINT once `ready()` holds (asked every 10 ms, for a minute at most),
/// from its own thread, while the test's thread runs a command; unless stop() comes first, as it
/// does once the command returns. Meanwhile SIGINT is ignored where the command does not catch
/// it, so that a signal that comes late does not end the test.
class Interrupter {
 public:
  explicit Interrupter(std::function<bool()> ready)
      : before_(std::signal(SIGINT, ignore_late_interrupt)), thread_([this, ready] {
          for (int i = 0; i < 6000 && running_ && !ready(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
          if (running_) kill(getpid(), SIGINT);
        }) {}
  Interrupter(const Interrupter&) = delete;
  Interrupter& operator=(const Interrupter&) = delete;
  ~Interrupter() { stop(); }

  /// No signal from now on; SIGINT's handling is put back.
  void stop() {
    if (!thread_.joinable()) return;
    running_ = false;
    thread_.join();
    std::signal(SIGINT, before_);
  }

  /// Whether the command catches SIGINT now (it has installed its own handler).
  static bool command_catches() {
    struct sigaction now {};
    sigaction(SIGINT, nullptr, &now);
    return now.sa_handler != ignore_late_interrupt;
  }

 private:
  sighandler_t before_;
  std::atomic<bool> running_{true};
  std::thread thread_;
};

}  // namespace sculpt::explorer
