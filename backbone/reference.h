#pragma once
// The CPU semantics of a backbone: a generic interpreter that runs the default loop nests in
// program order. Every zoo kernel also has a hand-written reference (zoo/); tests check the two
// against each other, and evaluators compare device outputs with either.
#include "backbone/host_args.h"
#include "backbone/kernel.h"

namespace sculpt::backbone {

/// `value` as an instruction of `type` keeps it: rounded to float, or truncated to int32.
double round_to(ElemType type, double value);

/// Whether comparison `op` (is_comparison) holds for `a` and `b`, as in C (`!=` holds for NaN).
bool compare(Operator op, double a, double b);

/// Runs `kernel` on `args` (arrays by name, scalars by name; sizes come from the kernel).
/// Values are computed in double and rounded to their instruction's element type after each
/// instruction; temporaries of lowered communications are allocated internally. Meant for small
/// sizes: every instruction's value is kept for every iteration of its (non-reduced) loops.
void interpret(const Kernel& kernel, HostArgs& args);

}  // namespace sculpt::backbone
