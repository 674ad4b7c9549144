#pragma once
// How the `sculpt` subcommands plug into the binary: each one adds its CLI11 subcommand to
// the application and returns the function that runs it once the command line is parsed.
#include <functional>
#include <vector>

#include <CLI/CLI.hpp>

namespace sculpt::explorer {

/// Process exit codes shared by every subcommand.
enum ExitCode : int {
  kExitOk = 0,
  kExitNothingValid = 1,   // a search found no valid candidate
  kExitUsage = 2,          // usage or input error (bad flag, unknown kernel, corrupt log)
  kExitInterrupted = 128,  // plus the signal that stopped a search (130 for a Ctrl-C), as shells do
};

struct Command {
  CLI::App* app;
  std::function<int()> run;
};

/// Every subcommand's registration, in the order `sculpt --help` lists them.
std::vector<Command> add_commands(CLI::App& sculpt);

}  // namespace sculpt::explorer
