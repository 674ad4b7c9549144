#include "support/check.h"

#include <gtest/gtest.h>

namespace {

// A passing check costs its condition only: the message after it is not even built.
TEST(Check, APassingCheckNeitherStopsNorBuildsItsMessage) {
  int built = 0;
  const auto message = [&] {
    ++built;
    return "arithmetic";
  };
  SCULPT_CHECK(1 + 1 == 2) << message();
  EXPECT_EQ(built, 0);
}

TEST(CheckDeathTest, FailingCheckAbortsWithMessage) {
  const int answer = 41;
  EXPECT_DEATH(SCULPT_CHECK(answer == 42) << "answer was " << answer,
               "internal error: check failed: answer == 42: answer was 41");
}

}  // namespace
