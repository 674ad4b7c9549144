#pragma once
// The names a kernel's parameters take in C and CUDA C (internal to codegen). A parameter is
// named by its user (a definition's `float(N) return` or `tid`), and its name must be neither a
// word of those languages nor a name the generated code or its headers give another meaning.
// PTX prefixes every parameter's name instead (`param_A`, `%prm_A`).
#include <string>
#include <vector>

#include "codegen/lowered.h"

namespace sculpt::codegen {

/// Per parameter of `k`, its identifier in C and CUDA C code whose entry is `entry`: its name
/// where that is free, else the name followed by as many `_` as make it free ("return" ->
/// "return_", "tmp0" -> "tmp0_" beside a temporary tmp0), a name that begins with `_` first
/// prefixed by `p` (C reserves some of those). Distinct, and distinct from every other name the
/// code declares or uses.
std::vector<std::string> parameter_identifiers(const LoweredKernel& k, const std::string& entry);

/// The variable holding the current index of a LoopDim in C and CUDA C: tx/ty/tz for threads,
/// b_<name> for blocks, i_<name> for loops.
std::string loop_index_name(const LoopDim& d);

/// Whether `name` is a word of C or C++, a name CUDA C or the headers generated code includes
/// define (`threadIdx`, `INFINITY`, `int64_t`), or one it calls (`fmaf`).
bool is_reserved_identifier(const std::string& name);

}  // namespace sculpt::codegen
