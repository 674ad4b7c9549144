// The `sculpt` command line: parses the options, sets up logging and runs one subcommand.
#include <cstdio>

#include "explorer/command.h"
#include "support/logging.h"

int main(int argc, char** argv) {
  using namespace sculpt::explorer;
  CLI::App app{
      "sculpt: find fast GPU kernels by searching spaces of partially specified "
      "implementations"};
  app.name("sculpt");
  app.set_version_flag("--version", std::string("sculpt ") + SCULPT_VERSION);
  int verbosity = 0;
  app.add_flag("-v,--verbose", verbosity, "More logging (repeat for debug and trace)");
  app.require_subcommand(0, 1);
  const std::vector<Command> commands = add_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  sculpt::support::init_logging(verbosity);
  for (const Command& command : commands) {
    if (command.app->parsed()) return run_command(command);
  }
  std::fputs(app.help().c_str(), stdout);
  return output_written("sculpt") ? kExitOk : kExitUsage;
}
