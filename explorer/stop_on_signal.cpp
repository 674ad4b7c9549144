#include "explorer/stop_on_signal.h"

#include <atomic>

#include "support/check.h"

namespace sculpt::explorer {
namespace {

// Lock-free, hence safe to store from a signal handler.
std::atomic<int> caught{0};
std::atomic<bool> installed{false};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void note_signal(int signal) { caught.store(signal); }

void catch_unless_ignored(int signal, struct sigaction* previous) {
  sigaction(signal, nullptr, previous);
  if (previous->sa_handler == SIG_IGN) return;
  struct sigaction action {};
  action.sa_handler = note_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESETHAND: the second signal takes the default action. SA_RESTART: the threads the signal
  // lands on go on with their system calls.
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(signal, &action, nullptr);
}

}  // namespace

StopOnSignal::StopOnSignal() {
  SCULPT_CHECK(!installed.exchange(true)) << "one StopOnSignal at a time";
  caught.store(0);
  catch_unless_ignored(SIGINT, &previous_interrupt_);
  catch_unless_ignored(SIGTERM, &previous_terminate_);
}

StopOnSignal::~StopOnSignal() {
  sigaction(SIGINT, &previous_interrupt_, nullptr);
  sigaction(SIGTERM, &previous_terminate_, nullptr);
  installed.store(false);
}

int StopOnSignal::signal() const { return caught.load(); }

}  // namespace sculpt::explorer
