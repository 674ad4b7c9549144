#pragma once
// Logging goes through spdlog; binaries call init_logging once with the verbosity the user
// asked for. Messages go to stderr so that stdout stays for results.
#include <spdlog/spdlog.h>

namespace sculpt::support {

/// verbosity: 0 warnings, 1 info, 2 debug, 3 trace. SCULPT_LOG_LEVEL (spdlog names) overrides.
void init_logging(int verbosity);

}  // namespace sculpt::support
