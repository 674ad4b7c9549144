// Logging set-up: SCULPT_LOG_LEVEL overrides the verbosity, and a name spdlog does not know is
// ignored with a warning (spdlog reads it as `off`, which would silence the warnings as well).
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string>

#include "support/logging.h"

namespace sculpt::support {
namespace {

// One test: init_logging registers the process's logger once.
TEST(Logging, AnUnknownLevelIsIgnoredWithAWarning) {
  ASSERT_EQ(setenv("SCULPT_LOG_LEVEL", "verbose", 1), 0);
  testing::internal::CaptureStderr();
  init_logging(1);
  spdlog::default_logger()->flush();
  const std::string err = testing::internal::GetCapturedStderr();
  unsetenv("SCULPT_LOG_LEVEL");
  EXPECT_EQ(spdlog::get_level(), spdlog::level::info);
  EXPECT_NE(err.find("SCULPT_LOG_LEVEL 'verbose' is none of trace, debug, info, warn, err, "
                     "critical, off: ignored"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace sculpt::support
