#pragma once
// The problem a search measures candidates on: a zoo kernel at given sizes, as a device sees it
// (parameters in signature order, seeded inputs, the zoo's CPU reference, the tolerance its
// reductions call for).
#include <cstdint>
#include <memory>

#include "backbone/kernel.h"
#include "backbone/kernel_info.h"
#include "device/problem.h"

namespace sculpt::search {

/// `kernel` must be `info.build(sizes)`. Scalars get seeded values in [0.5, 1.5) with a random
/// sign; the reference is `info.reference`.
std::shared_ptr<const device::Problem> make_problem(const backbone::KernelInfo& info,
                                                    const backbone::Sizes& sizes,
                                                    const backbone::Kernel& kernel,
                                                    std::uint64_t seed);

/// Terms summed into an output element, along every chain of reductions (for the tolerance).
std::int64_t reduction_length(const backbone::Kernel& kernel);

}  // namespace sculpt::search
