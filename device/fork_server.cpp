#include "device/fork_server.h"

#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>

#include "device/process.h"

namespace sculpt::device {
namespace {

enum class MessageKind : std::int32_t {
  started,     ///< value: the child's pid
  load_error,  ///< text: what dlopen or dlsym said
  loaded,      ///< the parameters are in place and the entry point found: the warm-up starts
  sampling,    ///< a sample of the grid starts (RunPlan::sample)
  sampled,     ///< ns: a sample's estimate of a run; text: the sample ("16 and 32 of 512 blocks
               ///< in...")
  warmed_up,   ///< ns: the warm-up run; value 1 and text: its first result off the reference
  timed_run,   ///< ns: one timed run
  done,        ///< every run finished
  exited,      ///< from the server: value is the child's wait status, -1 when fork failed
};

// Fixed size and under PIPE_BUF, so the child and the server can share one SEQPACKET socket.
struct Message {
  MessageKind kind;
  std::int32_t value = 0;
  std::int64_t ns = 0;
  char text[496] = {};
};

void send_message(int socket, MessageKind kind, std::int32_t value = 0, std::int64_t ns = 0,
                  const char* text = "") {
  Message message{.kind = kind, .value = value, .ns = ns};
  std::strncpy(message.text, text, sizeof message.text - 1);
  send(socket, &message, sizeof message, MSG_NOSIGNAL);
}

std::int64_t now_ns() {
  timespec time;
  clock_gettime(CLOCK_MONOTONIC, &time);
  return static_cast<std::int64_t>(time.tv_sec) * 1'000'000'000 + time.tv_nsec;
}

/// The threads a candidate's OpenMP loop runs on: OMP_NUM_THREADS, or the CPUs this process
/// may run on (one thread on each, or each core's, which differs in the rounds of blocks only
/// by a rounding).
int openmp_threads() {
  if (const char* set = std::getenv("OMP_NUM_THREADS")) {
    const int threads = std::atoi(set);
    if (threads > 0) return threads;
  }
  return static_cast<int>(allowed_cpus().size());
}

std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

void* map_shared(std::size_t bytes) {
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) {
    throw DeviceError(fmt::format("cpu device: cannot map {} bytes of shared memory: {}", bytes,
                                  std::strerror(errno)));
  }
  return memory;
}

}  // namespace

struct ForkServer::Command {
  char object[4096] = {};
  char entry[256] = {};
  RunPlan plan{};
};

ForkServer::ForkServer(const ProblemData& data) : data_(data) {
  const auto& params = data_.problem().params;
  buffers_.resize(params.size());
  pointers_.resize(params.size());
  params_.resize(params.size());
  scalars_.resize(params.size());
  try {
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (std::holds_alternative<ScalarParam>(params[i])) {
        auto initial = data_.initial(i);
        scalars_[i].assign(initial.begin(), initial.end());
        params_[i] = scalars_[i].data();
        continue;
      }
      Buffer& buffer = buffers_[i];
      buffer.bytes = data_.bytes(i);
      buffer.mapped =
          std::max((buffer.bytes + page_size() - 1) / page_size(), std::size_t{1}) * page_size();
      buffer.work = map_shared(buffer.mapped);
      pointers_[i] = buffer.work;
      params_[i] = &pointers_[i];
    }
    start_server();
  } catch (...) {
    for (auto& buffer : buffers_) {
      if (buffer.work != nullptr) munmap(buffer.work, buffer.mapped);
    }
    throw;
  }
}

ForkServer::~ForkServer() {
  stop_server();
  for (auto& buffer : buffers_) {
    if (buffer.work != nullptr) munmap(buffer.work, buffer.mapped);
  }
}

void ForkServer::start_server() {
  int commands[2];
  int messages[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, commands) != 0) {
    throw DeviceError(fmt::format("cpu device: socketpair: {}", std::strerror(errno)));
  }
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, messages) != 0) {
    close(commands[0]);
    close(commands[1]);
    throw DeviceError(fmt::format("cpu device: socketpair: {}", std::strerror(errno)));
  }
  pid_t pid = -1;
  try {
    int kept[] = {commands[1], messages[1]};
    pid = fork_server_process(
        kept, [&] { serve(commands[1], messages[1]); }, "cpu");
  } catch (...) {
    for (int fd : {commands[0], commands[1], messages[0], messages[1]}) close(fd);
    throw;
  }
  close(commands[1]);
  close(messages[1]);
  server_ = pid;
  commands_ = commands[0];
  messages_ = messages[0];
  ++servers_started_;
}

void ForkServer::stop_server() {
  if (server_ < 0) return;
  close(commands_);
  close(messages_);
  kill_and_reap(server_);
  server_ = -1;
  commands_ = messages_ = -1;
}

void ForkServer::serve(int commands, int messages) {
  for (;;) {
    Command command;
    ssize_t received = recv(commands, &command, sizeof command, 0);
    if (received < 0 && errno == EINTR) continue;
    if (received != sizeof command) _exit(0);
    pid_t child = fork();
    if (child == 0) {
      close(commands);
      run_child(messages, command);
    }
    if (child < 0) {
      send_message(messages, MessageKind::exited, -1, 0, std::strerror(errno));
      continue;
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    send_message(messages, MessageKind::exited, status);
  }
}

void ForkServer::restore_parameters(bool all) {
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const auto* array = std::get_if<ArrayParam>(&data_.problem().params[i]);
    if (array == nullptr) {
      data_.write_initial(i, scalars_[i].data());
    } else if (all || array->role == Role::inout) {
      data_.write_initial(i, static_cast<std::byte*>(buffers_[i].work));
    }
  }
}

void ForkServer::run_child(int messages, const Command& command) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  send_message(messages, MessageKind::started, getpid());
  restore_parameters(true);
  // Each OpenMP thread on a core of its own, unless the user says otherwise (OpenMP reads them
  // when the object loads it). Unbound, a candidate's threads sometimes shared a core while the
  // other was busy, and each parallel region waited a scheduler slice: runs of 3.7 or 7.5 ms
  // for a candidate of 20 us; 36 of 1,200 timings of four searches of matmul 256x256x32, 18
  // bound.
  setenv("OMP_PROC_BIND", "true", /*overwrite=*/0);
  setenv("OMP_PLACES", "cores", /*overwrite=*/0);
  void* object = dlopen(command.object, RTLD_NOW | RTLD_LOCAL);
  if (object == nullptr) {
    send_message(messages, MessageKind::load_error, 0, 0, dlerror());
    _exit(0);
  }
  dlerror();
  auto* entry = reinterpret_cast<void (*)(void**)>(dlsym(object, command.entry));
  if (entry == nullptr) {
    std::string error = fmt::format("no entry point '{}' in the compiled object", command.entry);
    send_message(messages, MessageKind::load_error, 0, 0, error.c_str());
    _exit(0);
  }
  send_message(messages, MessageKind::loaded);

  // With a cutoff, a sample of the grid first, where the object can run part of it: past the
  // cutoff, the candidate ends there. The warm-up that follows starts from the problem's
  // initial parameters again.
  const std::string entry_name = command.entry;
  auto* run_blocks = reinterpret_cast<void (*)(void**, std::int64_t)>(
      dlsym(object, (entry_name + "_blocks").c_str()));
  const auto* grid =
      static_cast<const std::int64_t*>(dlsym(object, (entry_name + "_grid").c_str()));
  const std::optional<RunPlan::Sample> sample =
      command.plan.cutoff && run_blocks != nullptr && grid != nullptr
          ? command.plan.sample_of(*grid, openmp_threads())
          : std::nullopt;
  if (sample) {
    send_message(messages, MessageKind::sampling);
    const auto timed = [&](std::int64_t rounds) {
      restore_parameters(false);
      const std::int64_t from = now_ns();
      run_blocks(params_.data(), rounds * sample->threads);
      return now_ns() - from;
    };
    timed(sample->large);
    // Each size twice, alternately, the faster kept: one run slowed by another process (a
    // thread sharing a core at a barrier) would cut a candidate for nothing.
    std::int64_t small_ns = timed(sample->small), large_ns = timed(sample->large);
    small_ns = std::min(small_ns, timed(sample->small));
    large_ns = std::min(large_ns, timed(sample->large));
    const double estimate_ns =
        sample->estimate_ns(static_cast<double>(small_ns), static_cast<double>(large_ns));
    const std::string what =
        fmt::format("{} and {} of {} blocks in {:.4g} and {:.4g} ms",
                    sample->small * sample->threads, sample->large * sample->threads, *grid,
                    static_cast<double>(small_ns) / 1e6, static_cast<double>(large_ns) / 1e6);
    send_message(messages, MessageKind::sampled, 0, static_cast<std::int64_t>(estimate_ns),
                 what.c_str());
    if (command.plan.sample_cuts(estimate_ns)) {
      send_message(messages, MessageKind::done);
      _exit(0);
    }
    restore_parameters(true);
  }

  // The warm-up run also starts OpenMP's threads and faults the pages in. Its results are the
  // ones checked (outputs start poisoned only there), here, before the timed runs overwrite
  // them: no copy of them is made.
  std::int64_t start = now_ns();
  entry(params_.data());
  std::int64_t elapsed = now_ns() - start;
  const std::optional<std::string> mismatch =
      data_.first_mismatch([&](std::size_t i) { return buffers_[i].work; });
  send_message(messages, MessageKind::warmed_up, mismatch ? 1 : 0, elapsed,
               mismatch ? mismatch->c_str() : "");

  std::vector<std::int64_t> run_ns;
  run_ns.reserve(static_cast<std::size_t>(command.plan.max_runs));
  while (!command.plan.warm_up_decides(elapsed) && command.plan.wants_another(run_ns)) {
    restore_parameters(false);
    start = now_ns();
    entry(params_.data());
    elapsed = now_ns() - start;
    run_ns.push_back(elapsed);
    send_message(messages, MessageKind::timed_run, 0, elapsed);
  }
  send_message(messages, MessageKind::done);
  _exit(0);
}

RunOutcome ForkServer::run(const std::filesystem::path& object, const std::string& entry,
                           const RunPlan& plan) {
  Command command;
  std::string object_path = object.string();
  if (object_path.size() >= sizeof command.object || entry.size() >= sizeof command.entry) {
    return RunOutcome{.check = Check::compile_error,
                      .run_ns = {},
                      .message = "object path or entry name too long"};
  }
  std::strncpy(command.object, object_path.c_str(), sizeof command.object - 1);
  std::strncpy(command.entry, entry.c_str(), sizeof command.entry - 1);
  command.plan = plan;

  if (server_ < 0) start_server();
  if (send(commands_, &command, sizeof command, MSG_NOSIGNAL) != sizeof command) {
    // The server died since the last run (killed from outside): start another once.
    stop_server();
    start_server();
    if (send(commands_, &command, sizeof command, MSG_NOSIGNAL) != sizeof command) {
      stop_server();
      throw DeviceError(
          fmt::format("cpu device: the run server does not answer: {}", std::strerror(errno)));
    }
  }
  ++runs_started_;

  // After a kill, the server reports the child's end at once; waiting longer means it is stuck.
  constexpr auto kGrace = std::chrono::seconds(5);
  RunOutcome outcome;
  pid_t child = -1;
  bool killed = false;
  bool server_lost = false;
  bool loaded = false;
  bool warmed_up = false;
  bool done = false;
  std::string load_error;
  bool sampling = false;
  std::string sample;
  std::optional<double> estimate_ns;
  int status = 0;
  for (;;) {
    // Forking, restoring the parameters and loading the object are no run: only the runs
    // answer to the run limit (a cutoff's can be 100 ms, which a loaded machine can spend
    // before the warm-up starts).
    const std::chrono::nanoseconds wait = killed   ? std::chrono::nanoseconds(kGrace)
                                          : loaded ? plan.run_limit()
                                                   : plan.run_timeout;
    pollfd poll_fd{.fd = messages_, .events = POLLIN, .revents = 0};
    int ready = poll(&poll_fd, 1,
                     static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(wait).count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0 && !killed && child > 0) {
      kill(child, SIGKILL);
      killed = true;
      continue;
    }
    Message message;
    ssize_t received = ready > 0 ? recv(messages_, &message, sizeof message, 0) : -1;
    if (received != sizeof message) {
      // The server died or hangs (a candidate may kill it): the next run starts another.
      stop_server();
      if (!killed) server_lost = true;
      break;
    }
    if (message.kind == MessageKind::exited) {
      status = message.value;
      if (status == -1) {
        throw DeviceError(fmt::format("cpu device: the run server cannot fork: {}", message.text));
      }
      break;
    }
    switch (message.kind) {
      case MessageKind::started:
        child = message.value;
        break;
      case MessageKind::load_error:
        load_error = message.text;
        break;
      case MessageKind::loaded:
        loaded = true;
        break;
      case MessageKind::sampling:
        sampling = true;
        break;
      case MessageKind::sampled:
        estimate_ns = static_cast<double>(message.ns);
        sample = message.text;
        break;
      case MessageKind::warmed_up:
        warmed_up = true;
        outcome.warm_up_ns = message.ns;
        if (message.value != 0) outcome.mismatch = message.text;
        break;
      case MessageKind::timed_run:
        outcome.run_ns.push_back(message.ns);
        break;
      case MessageKind::done:
        done = true;
        break;
      case MessageKind::exited:
        break;
    }
  }

  std::string phase = !loaded                      ? "loading the compiled object"
                      : sampling && sample.empty() ? "the sampled runs"
                      : !warmed_up                 ? "the warm-up run"
                                   : fmt::format("timed run {}", outcome.run_ns.size() + 1);
  if (server_lost) {
    outcome.check = Check::fault;
    outcome.message = fmt::format("the run server was lost during {}", phase);
  } else if (killed) {
    outcome = loaded ? killed_at_run_limit(phase, plan) : killed_after(phase, plan.run_timeout);
  } else if (!load_error.empty()) {
    outcome.check = Check::compile_error;
    outcome.message = "cannot load the compiled object: " + load_error;
  } else if (WIFSIGNALED(status)) {
    outcome.check = Check::fault;
    outcome.message =
        fmt::format("killed by {} during {}", describe_signal(WTERMSIG(status)), phase);
  } else if (!done || WEXITSTATUS(status) != 0) {
    outcome.check = Check::fault;
    outcome.message = fmt::format("exited with status {} during {}", WEXITSTATUS(status), phase);
  } else if (!warmed_up && estimate_ns) {
    outcome = cut_by_sample(*estimate_ns, sample, plan);
  } else {
    outcome.check = Check::ok;
  }
  if (outcome.check != Check::ok) {
    outcome.run_ns.clear();
    outcome.mismatch.reset();
    outcome.warm_up_ns.reset();
  } else {
    outcome.estimate_ns = estimate_ns;
  }
  return outcome;
}

}  // namespace sculpt::device
