#include "explorer/command.h"

namespace sculpt::explorer {

Command add_kernels_command(CLI::App& sculpt);   // command_kernels.cpp
Command add_estimate_command(CLI::App& sculpt);  // command_estimate.cpp
Command add_search_command(CLI::App& sculpt);    // command_search.cpp

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
