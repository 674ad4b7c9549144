#pragma once
// How the `sculpt` subcommands plug into the binary: each one adds its CLI11 subcommand to
// the application and returns the function that runs it once the command line is parsed.
#include <cstdint>
#include <functional>
#include <string>
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

/// `--seed` of a subcommand: a 64-bit unsigned integer, written out in full (CLI11 alone takes
/// "-1" and numbers past 2^64 - 1 as some other seed).
CLI::Option* add_seed_option(CLI::App& app, std::uint64_t& seed, const std::string& description);

/// `--size` of a subcommand: a zoo kernel's sizes ("1024x1024x1024"); left out, the kernel's
/// defaults. An empty value (an unset shell variable) is an error, not the defaults.
CLI::Option* add_size_option(CLI::App& app, std::string& size);

/// Every subcommand's registration, in the order `sculpt --help` lists them.
std::vector<Command> add_commands(CLI::App& sculpt);

}  // namespace sculpt::explorer
