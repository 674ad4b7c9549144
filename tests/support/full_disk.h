#pragma once
// A full disk for tests, played by a file size limit (no root, no mount): while a FullDisk lives,
// writes past `bytes` fail with EFBIG, SIGXFSZ being ignored, instead of ending the process.
#include <sys/resource.h>

#include <csignal>

namespace sculpt::test {

class FullDisk {
 public:
  explicit FullDisk(rlim_t bytes) : handler_(std::signal(SIGXFSZ, SIG_IGN)) {
    getrlimit(RLIMIT_FSIZE, &previous_);
    const rlimit full{bytes, previous_.rlim_max};
    setrlimit(RLIMIT_FSIZE, &full);
  }
  ~FullDisk() {
    setrlimit(RLIMIT_FSIZE, &previous_);
    std::signal(SIGXFSZ, handler_);
  }
  FullDisk(const FullDisk&) = delete;
  FullDisk& operator=(const FullDisk&) = delete;

 private:
  sighandler_t handler_;
  rlimit previous_{};
};

}  // namespace sculpt::test
