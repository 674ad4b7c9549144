#include "explorer/command.h"

#include <fmt/format.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace sculpt::explorer {

Command add_kernels_command(CLI::App& sculpt);       // command_kernels.cpp
Command add_estimate_command(CLI::App& sculpt);      // command_estimate.cpp
Command add_search_command(CLI::App& sculpt);        // command_search.cpp
Command add_replay_command(CLI::App& sculpt);        // command_replay.cpp
Command add_characterize_command(CLI::App& sculpt);  // command_characterize.cpp
Command add_bound_command(CLI::App& sculpt);         // command_bound.cpp
Command add_report_command(CLI::App& sculpt);        // command_report.cpp

namespace {

template <typename T>
CLI::Validator decimal_integer() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        T value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (error == std::errc() && stop == end) {
          text = std::to_string(value);  // "010" is ten: CLI11 would read it as octal
          return {};
        }
        const std::string range = std::is_signed_v<T>
                                      ? fmt::format("up to {}", std::numeric_limits<T>::max())
                                      : fmt::format("from 0 to {}", std::numeric_limits<T>::max());
        return "a decimal integer " + range + ", not '" + text + "'";
      },
      "");
}

/// Whether `text` is a number as the README writes them: decimal digits with an optional point and
/// exponent ("4", "0.25", ".5", "1e3"), not "0x10", "inf" or "nan", which strtod also reads.
bool is_decimal_number(std::string_view text) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  std::size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size();
}

void say_output_lost(const std::string& who, const std::string& why) {
  std::fprintf(stderr, "%s: cannot write the output: %s\n", who.c_str(), why.c_str());
}

}  // namespace

CLI::Validator decimal_int64() { return decimal_integer<std::int64_t>(); }
CLI::Validator decimal_int() { return decimal_integer<int>(); }
CLI::Validator decimal_uint64() { return decimal_integer<std::uint64_t>(); }

CLI::Validator decimal_number() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        return is_decimal_number(text) ? "" : "a decimal number (4, 0.25, 1e3), not '" + text + "'";
      },
      "");
}

CLI::Option* add_seed_option(CLI::App& app, std::uint64_t& seed, const std::string& description) {
  return app.add_option("--seed", seed, description)
      ->transform(decimal_uint64())
      ->capture_default_str();
}

CLI::Validator not_empty(const std::string& when_left_out) {
  return CLI::Validator(
      [when_left_out](std::string& text) -> std::string {
        return text.empty() ? "empty (leave it out for " + when_left_out + ")" : "";
      },
      "");
}

CLI::Option* add_size_option(CLI::App& app, std::string& size) {
  return app.add_option("--size", size, "Problem size, e.g. 1024x1024x1024 (default sizes)")
      ->check(not_empty("the kernel's default sizes"));
}

bool output_written(const std::string& who) {
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
  say_output_lost(who, std::strerror(errno));
  return false;
}

int run_command(const Command& command) {
  const std::string who = "sculpt " + command.app->get_name();
  try {
    const int code = command.run();
    return output_written(who) ? code : kExitUsage;
  } catch (const std::bad_alloc&) {
    // Devices check their problem against the machine's memory; this catches the rest.
    std::fprintf(stderr, "%s: out of memory\n", who.c_str());
  } catch (const std::system_error& e) {
    // fmt throws when a write to standard output fails; any other system_error is a bug.
    if (!std::ferror(stdout)) throw;
    say_output_lost(who, e.code().message());
  }
  return kExitUsage;
}

std::vector<Command> add_commands(CLI::App& sculpt) {
  // Subcommands (kernels, estimate, search, replay, report, characterize) register here as
  // the stages they need land.
  std::vector<Command> commands;
  commands.push_back(add_kernels_command(sculpt));
  commands.push_back(add_estimate_command(sculpt));
  commands.push_back(add_search_command(sculpt));
  commands.push_back(add_replay_command(sculpt));
  commands.push_back(add_characterize_command(sculpt));
  commands.push_back(add_bound_command(sculpt));
  commands.push_back(add_report_command(sculpt));
  return commands;
}

}  // namespace sculpt::explorer
