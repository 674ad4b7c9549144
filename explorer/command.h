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
  kExitNothingValid = 1,  // a search found no valid candidate
  // A usage, input or output error (bad flag, unknown kernel, corrupt log, full disk).
  kExitUsage = 2,
  kExitInterrupted = 128,  // plus the signal that stopped a search (130 for a Ctrl-C), as shells do
};

struct Command {
  CLI::App* app;
  std::function<int()> run;
};

/// The transform of integer options: decimal digits (and a minus sign for signed types) within
/// the range of the type. CLI11 alone reads "0x10" as 16, "010" as 8, takes "-1" as an unsigned
/// 2^64 - 1, and makes a value past the range the largest one.
CLI::Validator decimal_int64();
CLI::Validator decimal_uint64();
CLI::Validator decimal_int();
/// The check of a real option: decimal ("4", "0.25", "1e3"), not hexadecimal, "inf" or "nan",
/// which CLI11 alone reads.
CLI::Validator decimal_number();

/// The check of an option whose empty value (an unset shell variable) would otherwise mean its
/// default: `when_left_out` says what leaving the option out means.
CLI::Validator not_empty(const std::string& when_left_out);

/// `--seed` of a subcommand: a 64-bit unsigned integer, written out in full.
CLI::Option* add_seed_option(CLI::App& app, std::uint64_t& seed, const std::string& description);

/// `--size` of a subcommand: a zoo kernel's sizes ("1024x1024x1024"); left out, the kernel's
/// defaults. An empty value (an unset shell variable) is an error, not the defaults.
CLI::Option* add_size_option(CLI::App& app, std::string& size);

/// Runs a parsed subcommand: its exit code, or kExitUsage with one message when memory ran out
/// or its output could not be written (a full disk, a closed standard output), rather than a
/// crash or a silent success.
int run_command(const Command& command);

/// Whether what went to standard output got there (flushed); says why not on stderr otherwise,
/// as `who`.
bool output_written(const std::string& who);

/// Every subcommand's registration, in the order `sculpt --help` lists them.
std::vector<Command> add_commands(CLI::App& sculpt);

}  // namespace sculpt::explorer
