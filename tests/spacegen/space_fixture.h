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

/// A backbone of `count` dimensions of size 1.
inline Backbone unit_dims(int count) {
  Backbone fun;
  for (int d = 0; d < count; ++d) fun.add_dim({1});
  return fun;
}

}  // namespace sculpt::spacegen::test
