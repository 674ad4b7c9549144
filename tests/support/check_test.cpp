#include "support/check.h"

#include <gtest/gtest.h>

namespace {

TEST(Check, PassingCheckDoesNothing) { SCULPT_CHECK(1 + 1 == 2) << "arithmetic"; }

TEST(CheckDeathTest, FailingCheckAbortsWithMessage) {
  const int answer = 41;
  EXPECT_DEATH(SCULPT_CHECK(answer == 42) << "answer was " << answer,
               "internal error: check failed: answer == 42: answer was 41");
}

}  // namespace
