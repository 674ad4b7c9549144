#pragma once
// The C printer: a lowered kernel as C for the CPU device. The entry function runs the blocks as
// the iterations of an OpenMP loop, each a call to a function for one block; the threads of a
// block run one after another, in phases split at the block's barriers. A register used by one
// phase only is a local array of that phase (per thread in turn); the others, indexed by thread,
// and the shared temporaries are local arrays of the block (on the heap past a size). Array
// parameters are distinct buffers (`restrict`), those never stored to `const`. Unrolled and
// vector loops that hold no sequential loop are fully unrolled (`#pragma GCC unroll`), so that
// the compiler keeps registers in machine registers and vectorises the copies.
#include <cstdint>
#include <string>

#include "codegen/lowered.h"

namespace sculpt::codegen {

struct COptions {
  /// A block's storage (registers kept from one phase to the next, shared temporaries) up to
  /// this many bytes lives on the stack of the OpenMP thread that runs the block; beyond, on its
  /// heap. OpenMP threads get the default thread stack (8 MiB under the usual `ulimit -s`); the
  /// GPU's limits allow 1,024 threads of 512 registers, 2 MiB of f32.
  std::int64_t max_stack_bytes = 512 * 1024;
};

/// C source defining `void <entry>(void** params)`: params[i] points to the i-th parameter's
/// value (for an array, to the pointer to its first element), as for cuLaunchKernel. Also
/// `void <entry>_blocks(void** params, int64_t blocks)`, which runs the grid's first `blocks`
/// blocks only, and `const int64_t <entry>_grid`, the grid's size: a device times a few blocks
/// to estimate a whole run (device::kSampledEntrySuffix).
std::string print_c(const LoweredKernel& kernel, const std::string& entry,
                    const COptions& options = {});

}  // namespace sculpt::codegen
