#pragma once
// Runs candidate shared objects in child processes so that a crash or a hang never reaches the
// caller, which never loads candidate code itself.
//
// The parameters of one problem live in shared memory mapped before a small server process is
// forked. For each run the server forks again: that child restores the inputs, poisons the
// outputs, loads the object, runs it once (the warm-up, whose results it compares with the
// reference, where they are), then repeats timed runs, reporting each time through a socket.
// Forking from the single-threaded server, not from the caller's threads, keeps `dlopen` and OpenMP
// in the child clear of locks another thread held at fork time.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "device/evaluator.h"
#include "device/problem_data.h"
#include "device/run_plan.h"

namespace sculpt::device {

class ForkServer {
 public:
  /// Maps the problem's buffers and starts the server. `data` must outlive this object.
  explicit ForkServer(const ProblemData& data);
  ~ForkServer();
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;

  /// Runs `entry` of `object` as `plan` says. Not thread-safe: one run at a time.
  RunOutcome run(const std::filesystem::path& object, const std::string& entry,
                 const RunPlan& plan);

  /// Runs started so far (each in a fresh child); servers started, restarts included.
  int runs_started() const { return runs_started_; }
  int servers_started() const { return servers_started_; }

 private:
  struct Buffer {
    void* work = nullptr;  ///< what the kernel reads and writes
    std::size_t bytes = 0;
    std::size_t mapped = 0;
  };

  struct Command;

  void start_server();
  void stop_server();
  [[noreturn]] void serve(int commands, int messages);
  [[noreturn]] void run_child(int messages, const Command& command);
  void restore_parameters(bool all);

  const ProblemData& data_;
  std::vector<Buffer> buffers_;
  /// The kernel's `params`: each entry points to a buffer pointer or to a scalar's bytes.
  std::vector<void*> pointers_;
  std::vector<void*> params_;
  std::vector<std::vector<std::byte>> scalars_;

  pid_t server_ = -1;
  int commands_ = -1;  ///< our end of the command socket
  int messages_ = -1;  ///< our end of the message socket
  int runs_started_ = 0;
  int servers_started_ = 0;
};

}  // namespace sculpt::device
