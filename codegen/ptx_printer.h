#pragma once
// The PTX printer: a lowered kernel as a PTX module with one entry. Unrolled and vector loops
// are expanded (one named register per iteration of the dims a value is indexed by), sequential
// loops become branches (marked "nounroll", so that ptxas keeps them loops), threads read %tid,
// blocks decode %ctaid.x (the grid is 1-D), shared temporaries are .shared arrays and global
// ones module-level .global arrays.
#include <string>

#include "codegen/lowered.h"

namespace sculpt::codegen {

struct PtxOptions {
  /// Compute capability times 10: `.target sm_<n>`.
  int compute_capability = 90;
  /// PTX ISA version, as `major.minor`.
  std::string version = "8.0";
};

/// A PTX module whose entry `entry` takes the kernel's parameters in order (sizes as .s32,
/// scalars by value, arrays as .u64 global addresses), launched with a grid of
/// kernel.num_blocks() x 1 x 1 blocks of kernel.block_size threads and no dynamic shared memory.
std::string print_ptx(const LoweredKernel& kernel, const std::string& entry,
                      const PtxOptions& options = {});

}  // namespace sculpt::codegen
