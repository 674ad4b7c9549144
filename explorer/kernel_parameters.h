#pragma once
// What a found kernel's code takes (sculpt::Parameter), from the kernel it was found for: the
// library call hands it with the code, so that a run can lay out and check its arguments.
#include <vector>

#include "backbone/kernel.h"
#include "explorer/sculpt_types.h"

namespace sculpt::explorer {

/// `kernel`'s parameters in signature order, its sizes bound to their values.
std::vector<Parameter> parameters_of(const backbone::Kernel& kernel);

}  // namespace sculpt::explorer
