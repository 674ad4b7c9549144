#pragma once
// Runs the built `sculpt` under mpirun for the distributed tests: on this machine over the
// loopback network (the TCP transport a cluster's nodes use, not shared memory), as root if need
// be, with more ranks than cores.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace sculpt::distributed {

/// `mpirun -np RANKS sculpt ARGS...`, with `environment` ("NAME=value") set on every rank.
inline std::vector<std::string> mpirun(int ranks, const std::vector<std::string>& args,
                                       const std::vector<std::string>& environment = {}) {
  std::vector<std::string> line = {SCULPT_MPIEXEC,
                                   "--allow-run-as-root",
                                   "--oversubscribe",
                                   "--mca",
                                   "btl",
                                   "self,tcp",
                                   "--mca",
                                   "btl_tcp_if_include",
                                   "lo",
                                   "-np",
                                   std::to_string(ranks)};
  for (const std::string& variable : environment) {
    line.push_back("-x");
    line.push_back(variable);
  }
  line.push_back(std::string(SCULPT_BINARY_DIR) + "/bin/sculpt");
  line.insert(line.end(), args.begin(), args.end());
  return line;
}

/// Starts `line` with its standard output and error into `output`; its process id.
inline pid_t start(const std::vector<std::string>& line, const std::filesystem::path& output) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    for (const std::string& a : line) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (std::freopen(output.c_str(), "w", stdout) == nullptr) _exit(126);
    dup2(fileno(stdout), fileno(stderr));
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

/// Waits for `pid`: its exit code, or 128 + the signal that ended it.
inline int finish(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Finished {
  int code = 0;
  std::string output;
};

/// Runs `line` to its end.
inline Finished run(const std::vector<std::string>& line, const std::filesystem::path& output) {
  Finished r;
  r.code = finish(start(line, output));
  r.output = read_text(output);
  return r;
}

}  // namespace sculpt::distributed
