// StopOnSignal: the first SIGINT or SIGTERM asks to stop; a signal the process ignored stays
// ignored; the previous dispositions come back.
#include "explorer/stop_on_signal.h"

#include <gtest/gtest.h>

#include <csignal>

namespace sculpt::explorer {
namespace {

extern "C" void do_nothing(int) {}

sighandler_t disposition(int signal) {
  struct sigaction current {};
  sigaction(signal, nullptr, &current);
  return current.sa_handler;
}

TEST(StopOnSignal, TheFirstSignalAsksToStop) {
  const sighandler_t before = std::signal(SIGINT, do_nothing);
  {
    StopOnSignal stop;
    EXPECT_FALSE(stop.requested());
    std::raise(SIGINT);
    EXPECT_TRUE(stop.requested());
    EXPECT_EQ(stop.signal(), SIGINT);
    // A second one would end the process.
    EXPECT_EQ(disposition(SIGINT), SIG_DFL);
  }
  EXPECT_EQ(disposition(SIGINT), do_nothing);
  {
    StopOnSignal stop;
    EXPECT_FALSE(stop.requested());
    std::raise(SIGTERM);
    EXPECT_EQ(stop.signal(), SIGTERM);
  }
  std::signal(SIGINT, before);
}

TEST(StopOnSignal, AnIgnoredSignalStaysIgnored) {
  const sighandler_t before = std::signal(SIGINT, SIG_IGN);
  {
    StopOnSignal stop;
    std::raise(SIGINT);
    EXPECT_FALSE(stop.requested());
  }
  EXPECT_EQ(disposition(SIGINT), SIG_IGN);
  std::signal(SIGINT, before);
}

}  // namespace
}  // namespace sculpt::explorer
