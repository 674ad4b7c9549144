#pragma once
// A checked definition as a backbone, for concrete sizes, through backbone::Builder: the sizes
// (then one size parameter per dimension whose range is not a declared size, such as
// `H - KH + 1`, bound to its value), the signature's scalars and inputs, the outputs, one
// logical dimension per dimension of the definition, then each statement's operations in
// order, reads of inputs as loads, tensors the definition computes passed on as values, and a
// store of each output after the statement that gives its final value.
#include <map>
#include <string>

#include "backbone/builder.h"
#include "backbone/kernel.h"
#include "backbone/sizes.h"
#include "frontend/tc_model.h"

namespace sculpt::frontend {

/// Strip-mining of the dimensions on some left-hand side (a matmul's output dimensions): two
/// tile levels, [2, 32] and [2, 8] (the paper used [2, 4] for the inner level; register tiles of
/// 8 keep a Hopper multiprocessor's FMA units busier than its shared-memory loads).
backbone::Tiling parallel_tiling();
/// Strip-mining of dimensions only reduced over: one level, [2, 32] (the depth of a
/// shared-memory tile or of an unrolled reduction).
backbone::Tiling reduction_tiling();

/// What the language leaves to sculpt.
struct BuildOptions {
  /// Strip-mining of dimensions by name. The others: parallel_tiling for dimensions on some
  /// left-hand side, reduction_tiling for those only reduced over.
  std::map<std::string, backbone::Tiling> tiling;
};

/// The backbone of `def` for `sizes`, which give every size of the definition and leave no range
/// empty (definition.h checks them first). Parameters come in order: the sizes as `sizes` lists
/// them, derived sizes, the signature, the outputs.
backbone::Kernel build_kernel(const Definition& def, const backbone::Sizes& sizes,
                              const BuildOptions& options = {});

}  // namespace sculpt::frontend
