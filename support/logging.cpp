#include "support/logging.h"

#include <cstdlib>
#include <string_view>

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
    // from_str reads any unknown name as `off`: a typo would silence the warnings too.
    const spdlog::level::level_enum level = spdlog::level::from_str(env);
    if (level != spdlog::level::off || std::string_view(env) == "off") {
      spdlog::set_level(level);
    } else {
      spdlog::warn(
          "SCULPT_LOG_LEVEL '{}' is none of trace, debug, info, warn, err, critical, off: "
          "ignored",
          env);
    }
  }
}

}  // namespace sculpt::support
