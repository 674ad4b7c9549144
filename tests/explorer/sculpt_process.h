#pragma once
// The `sculpt` binary run as a user runs it, for the tests that need a process of its own: its
// exit code from the command line's parse, or a signal sent while it works.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace sculpt::explorer {

/// The binary of this build, run with `args` (and `environment` added to this process's), its
/// standard output and error in files under `scratch`.
class SculptProcess {
 public:
  SculptProcess(const std::vector<std::string>& args, const std::filesystem::path& scratch,
                const std::map<std::string, std::string>& environment = {})
      : out_(scratch / "stdout"), err_(scratch / "stderr") {
    std::filesystem::create_directories(scratch);
    std::vector<std::string> argv_text = {std::string(SCULPT_BINARY_DIR) + "/bin/sculpt"};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ != 0) return;
    for (const auto& [name, value] : environment) setenv(name.c_str(), value.c_str(), 1);
    // As a shell's foreground command gets them, whatever the test runner ignores.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    const int out = open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    std::vector<char*> argv;
    for (std::string& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  SculptProcess(const SculptProcess&) = delete;
  SculptProcess& operator=(const SculptProcess&) = delete;
  ~SculptProcess() {
    if (pid_ > 0 && !waited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  void send(int signal) {
    signalled_ = std::chrono::steady_clock::now();
    kill(pid_, signal);
  }

  struct Finished {
    int code = -1;  // the exit code, or 128 + the signal that killed it
    std::string out;
    std::string err;
    double seconds_after_signal = 0;  // from send() to the end
  };
  Finished wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    waited_ = true;
    Finished f;
    f.seconds_after_signal =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - signalled_).count();
    f.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    f.out = read(out_);
    f.err = read(err_);
    return f;
  }

 private:
  static std::string read(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::filesystem::path out_;
  std::filesystem::path err_;
  pid_t pid_ = -1;
  bool waited_ = false;
  std::chrono::steady_clock::time_point signalled_{};
};

/// Runs the binary to its end.
inline SculptProcess::Finished run_sculpt_process(
    const std::vector<std::string>& args, const std::filesystem::path& scratch,
    const std::map<std::string, std::string>& environment = {}) {
  SculptProcess process(args, scratch, environment);
  return process.wait();
}

}  // namespace sculpt::explorer
