// support::FileLock: a second process waits while the first holds the lock, and takes it once
// the first lets it go; an unopenable path locks nothing rather than failing.
#include "support/file_lock.h"

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace sculpt::support {
namespace {

using Clock = std::chrono::steady_clock;

TEST(FileLock, ASecondProcessWaitsForTheFirst) {
  const std::filesystem::path path = testing::TempDir() + "sculpt-file-lock-test.lock";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const FileLock held(path);
    (void)!write(ready[1], "x", 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    _exit(0);
  }
  char byte;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  const auto start = Clock::now();
  {
    const FileLock mine(path);
    EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(200));
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  close(ready[0]);
  close(ready[1]);
  std::filesystem::remove(path);
}

TEST(FileLock, AnUnopenablePathLocksNothing) {
  const auto start = Clock::now();
  const FileLock none("/nonexistent-sculpt-dir/x.lock");
  const FileLock again("/nonexistent-sculpt-dir/x.lock");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
}

}  // namespace
}  // namespace sculpt::support
