#include "explorer/command.h"

#include <charconv>

namespace sculpt::explorer {

Command add_kernels_command(CLI::App& sculpt);   // command_kernels.cpp
Command add_estimate_command(CLI::App& sculpt);  // command_estimate.cpp
Command add_search_command(CLI::App& sculpt);    // command_search.cpp

CLI::Option* add_seed_option(CLI::App& app, std::uint64_t& seed, const std::string& description) {
  const CLI::Validator whole_uint64(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        if (error == std::errc() && stop == end) return {};
        return "a seed is an integer from 0 to 18446744073709551615, not '" + text + "'";
      },
      "");
  return app.add_option("--seed", seed, description)->check(whole_uint64)->capture_default_str();
}

CLI::Option* add_size_option(CLI::App& app, std::string& size) {
  const CLI::Validator not_empty(
      [](std::string& text) -> std::string {
        return text.empty() ? "empty (leave --size out for the kernel's default sizes)" : "";
      },
      "");
  return app.add_option("--size", size, "Problem size, e.g. 1024x1024x1024 (default sizes)")
      ->check(not_empty);
}

std::vector<Command> add_commands(CLI::App& sculpt) {
  // Subcommands (kernels, estimate, search, replay, report, characterize) register here as
  // the stages they need land.
  std::vector<Command> commands;
  commands.push_back(add_kernels_command(sculpt));
  commands.push_back(add_estimate_command(sculpt));
  commands.push_back(add_search_command(sculpt));
  return commands;
}

}  // namespace sculpt::explorer
