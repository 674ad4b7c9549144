#include "explorer/command.h"

namespace sculpt::explorer {

std::vector<Command> add_commands(CLI::App& /*sculpt*/) {
  // Subcommands (kernels, estimate, search, replay, report, characterize) register here as
  // the stages they need land.
  return {};
}

}  // namespace sculpt::explorer
