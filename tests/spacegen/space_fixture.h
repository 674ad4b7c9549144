#pragma once
// Builds a candidate of a generated test space over a test backbone.
#include <gtest/gtest.h>

#include <memory>

#include "tests/spacegen/test_backbone.h"

namespace sculpt::spacegen::test {

/// A fresh candidate of space `Space` (a generated `Candidate`) over `fun`, initialized.
template <typename Space>
std::unique_ptr<Space> make_candidate(const Backbone& fun, Status* status = nullptr) {
  auto shared = std::make_shared<Backbone>(fun);
  auto candidate = std::make_unique<Space>(shared, Space::make_layout(*shared));
  Status s = candidate->initialize();
  if (status != nullptr) {
    *status = s;
  } else {
    EXPECT_EQ(s, Status::Ok) << (candidate->conflict() ? candidate->conflict()->to_string() : "");
  }
  return candidate;
}

}  // namespace sculpt::spacegen::test
