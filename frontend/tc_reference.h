#pragma once
// The CPU reference of a definition: an interpreter over its statements, in order. Each
// statement computes every element of its tensor: its expression in double (operations of
// int32 type truncate as C's do), a reduction accumulated in double over its reduced indices in
// increasing order, the result rounded to the tensor's element type. An expression is evaluated
// for a batch of elements at once (consecutive values of the last left-hand index), the rows of a
// statement in parallel; outputs are computed in their arguments' elements.
#include "backbone/host_args.h"
#include "backbone/sizes.h"
#include "frontend/tc_model.h"

namespace sculpt::frontend {

/// Computes the outputs of `def` in `args` from its inputs and scalars, for `sizes`.
void run_reference(const Definition& def, const backbone::Sizes& sizes, backbone::HostArgs& args);

}  // namespace sculpt::frontend
