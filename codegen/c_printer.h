#pragma once
// The C printer: a lowered kernel as one C function for the CPU device. Blocks are the
// iterations of an OpenMP loop; the threads of a block run one after another, in phases split at
// the block's barriers, so each thread keeps its registers in arrays indexed by its thread
// number; shared temporaries are per-block arrays; vector loops are plain loops the C compiler
// can vectorise.
#include <string>

#include "codegen/lowered.h"

namespace sculpt::codegen {

/// C source defining `void <entry>(void** params)`: params[i] points to the i-th parameter's
/// value (for an array, to the pointer to its first element), as for cuLaunchKernel.
std::string print_c(const LoweredKernel& kernel, const std::string& entry);

}  // namespace sculpt::codegen
