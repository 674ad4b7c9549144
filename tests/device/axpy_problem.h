#pragma once
// The problem both devices' tests run most: y = a * x + y over `size` floats, a = 3.
#include <cstdint>
#include <memory>

#include "device/problem.h"

namespace sculpt::device::testing_problems {

inline std::shared_ptr<const Problem> axpy_problem(std::int32_t size) {
  auto problem = std::make_shared<Problem>();
  problem->name = "axpy";
  problem->params = {
      ScalarParam{"n", size}, ScalarParam{"a", 3.0f},
      ArrayParam{.name = "x", .type = ElementType::f32, .count = size},
      ArrayParam{.name = "y", .type = ElementType::f32, .count = size, .role = Role::inout}};
  problem->reference = [](const Arguments& args) {
    const float a = args.scalar<float>(1);
    const auto x = args.array<float>(2);
    const auto y = args.array<float>(3);
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = a * x[i] + y[i];
  };
  return problem;
}

}  // namespace sculpt::device::testing_problems
