// Standard output that cannot be written (a full disk, a closed descriptor) ends every command
// with one message and exit code 2: not a crash when fmt's write fails, nor a silent success when
// the loss happens at the last flush.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/explorer/run_sculpt.h"

namespace sculpt::explorer {
namespace {

/// Runs a command line with standard output on /dev/full (which refuses every write).
Outcome run_on_full_disk(const std::vector<std::string>& args) {
  std::fflush(stdout);
  const int saved = dup(STDOUT_FILENO);
  const int full = open("/dev/full", O_WRONLY);
  EXPECT_GE(full, 0) << "no /dev/full";
  dup2(full, STDOUT_FILENO);
  close(full);
  CLI::App app{"sculpt"};
  const std::vector<Command> commands = add_commands(app);
  std::vector<const char*> argv{"sculpt"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  Outcome outcome;
  testing::internal::CaptureStderr();
  for (const Command& command : commands) {
    if (command.app->parsed()) outcome.code = run_command(command);
  }
  outcome.err = testing::internal::GetCapturedStderr();
  std::clearerr(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  return outcome;
}

TEST(Output, AFullDiskIsAnErrorNotACrash) {
  // Longer than stdout's buffer: fmt's own write fails (and throws) before the last flush.
  const Outcome outcome = run_on_full_disk({"kernels", "mlp2", "--backbone", "--dependences"});
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_EQ(outcome.err, "sculpt kernels: cannot write the output: No space left on device\n");
}

TEST(Output, AFullDiskAtTheLastFlushIsAnErrorToo) {
  const Outcome outcome = run_on_full_disk({"kernels"});
  EXPECT_EQ(outcome.code, kExitUsage);
  EXPECT_EQ(outcome.err, "sculpt kernels: cannot write the output: No space left on device\n");
}

TEST(Output, WrittenOutputIsNoError) {
  const Outcome outcome = run_sculpt({"kernels"});
  EXPECT_EQ(outcome.code, kExitOk);
  EXPECT_EQ(outcome.err, "");
  EXPECT_NE(outcome.out.find("matmul"), std::string::npos);
}

}  // namespace
}  // namespace sculpt::explorer
