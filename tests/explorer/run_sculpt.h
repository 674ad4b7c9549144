#pragma once
// Runs a `sculpt` command line in-process through the explorer's command registry and captures
// its exit code and output, for the command tests.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "explorer/command.h"

namespace sculpt::explorer {

struct Outcome {
  int code = 0;
  std::string out;
  std::string err;
};

inline Outcome run_sculpt(std::vector<std::string> args) {
  CLI::App app{"sculpt"};
  app.require_subcommand(0, 1);
  const std::vector<Command> commands = add_commands(app);
  args.insert(args.begin(), "sculpt");
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  Outcome outcome;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  for (const Command& command : commands) {
    if (command.app->parsed()) outcome.code = run_command(command);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  outcome.out = testing::internal::GetCapturedStdout();
  outcome.err = testing::internal::GetCapturedStderr();
  return outcome;
}

}  // namespace sculpt::explorer
