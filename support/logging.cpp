#include "support/logging.h"

#include <cstdlib>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace sculpt::support {

void init_logging(int verbosity) {
  auto logger = spdlog::stderr_color_mt("sculpt");
  logger->set_pattern("[%H:%M:%S.%e] [%^%l%$] %v");
  spdlog::set_default_logger(logger);
  static constexpr spdlog::level::level_enum levels[] = {
      spdlog::level::warn, spdlog::level::info, spdlog::level::debug, spdlog::level::trace};
  spdlog::set_level(levels[verbosity < 0 ? 0 : verbosity > 3 ? 3 : verbosity]);
  if (const char* env = std::getenv("SCULPT_LOG_LEVEL")) {
    spdlog::set_level(spdlog::level::from_str(env));
  }
}

}  // namespace sculpt::support
