#pragma once
// Ctrl-C (SIGINT) and SIGTERM during a long command: the first one asks the command to stop, as
// if its budget had run out; a second one takes the default action (the process ends at once).
// The device's worker processes ignore both (device/process.cpp), so a Ctrl-C in a terminal, which
// reaches the whole process group, does not turn the candidate being measured into a fault.
#include <csignal>

namespace sculpt::explorer {

class StopOnSignal {
 public:
  /// Catches SIGINT and SIGTERM, but not where they are ignored (a background job's SIGINT).
  /// One instance at a time.
  StopOnSignal();
  /// Puts the previous dispositions back.
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  /// The signal that asked to stop, or 0.
  int signal() const;
  bool requested() const { return signal() != 0; }

 private:
  struct sigaction previous_interrupt_ {};
  struct sigaction previous_terminate_ {};
};

}  // namespace sculpt::explorer
