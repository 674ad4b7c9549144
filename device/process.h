#pragma once
// Process plumbing shared by the devices' isolated servers and workers: the caller forks them
// so that a crash or a hang in candidate code (or in a GPU context it poisons) never reaches it.
#include <sys/types.h>

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sculpt::device {

/// Forks a server process that runs `body`, then exits. The server keeps stdin, stderr and the
/// descriptors in `kept` (others would keep the caller's sockets and pipes from closing), sends
/// stdout to /dev/null (its output would mix with what the caller prints), dies with the calling
/// thread (PR_SET_PDEATHSIG), writes no core dump, and has the default handlers for fault
/// signals and no signal blocked, so that a crash ends as a signal seen by waitpid. Fork it
/// before it needs threads or a GPU context: only the calling thread is copied. Throws
/// DeviceError, prefixed with `device`, when fork fails.
pid_t fork_server_process(std::span<const int> kept, const std::function<void()>& body,
                          std::string_view device);

/// The CPUs this process may run on (its affinity mask; all online CPUs when it cannot be read).
std::vector<int> allowed_cpus();

/// Kills `pid` with SIGKILL and waits for it.
void kill_and_reap(pid_t pid);

/// "SIGSEGV (Segmentation fault)".
std::string describe_signal(int signal);

}  // namespace sculpt::device
