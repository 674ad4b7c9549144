#include "device/process.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "device/evaluator.h"

namespace sculpt::device {
namespace {

void close_descriptors_except(std::span<const int> kept) {
  std::vector<int> sorted(kept.begin(), kept.end());
  std::sort(sorted.begin(), sorted.end());
  unsigned next = 3;
  for (int fd : sorted) {
    if (fd < static_cast<int>(next)) continue;
    if (fd > static_cast<int>(next)) close_range(next, static_cast<unsigned>(fd - 1), 0);
    next = static_cast<unsigned>(fd) + 1;
  }
  close_range(next, ~0u, 0);
}

}  // namespace

pid_t fork_server_process(std::span<const int> kept, const std::function<void()>& body,
                          std::string_view device) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) throw DeviceError(fmt::format("{} device: fork: {}", device, std::strerror(errno)));
  if (pid > 0) return pid;

  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died before PR_SET_PDEATHSIG took effect.
  if (getppid() != parent) _exit(0);
  int null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, 1);
    if (null != 1) close(null);
  }
  close_descriptors_except(kept);
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGPIPE}) {
    ::signal(signal, SIG_DFL);
  }
  // A Ctrl-C in a terminal reaches the whole process group: the search stops as at its budget
  // and lets the candidate under way finish. This process ends with its parent (PDEATHSIG).
  for (int signal : {SIGINT, SIGTERM}) ::signal(signal, SIG_IGN);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  body();
  _exit(0);
}

void kill_and_reap(pid_t pid) {
  kill(pid, SIGKILL);
  while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

std::string describe_signal(int signal) {
  const char* abbreviation = sigabbrev_np(signal);
  return fmt::format("SIG{} ({})", abbreviation != nullptr ? abbreviation : "?", strsignal(signal));
}

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    }
  }
  if (cpus.empty()) {
    for (long cpu = 0; cpu < std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)); ++cpu) {
      cpus.push_back(static_cast<int>(cpu));
    }
  }
  return cpus;
}

}  // namespace sculpt::device
