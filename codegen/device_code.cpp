#include "codegen/device_code.h"

#include "codegen/c_printer.h"
#include "codegen/lower.h"
#include "codegen/ptx_printer.h"
#include "support/check.h"

namespace sculpt::codegen {

LaunchConfig launch_config(const LoweredKernel& lowered) {
  SCULPT_CHECK(lowered.num_blocks() < (std::int64_t{1} << 31)) << "too many blocks for a 1-D grid";
  LaunchConfig launch;
  launch.grid = {static_cast<std::uint32_t>(lowered.num_blocks()), 1, 1};
  for (int l = 0; l < 3; ++l) launch.block[l] = static_cast<std::uint32_t>(lowered.block_size[l]);
  return launch;
}

KernelCode kernel_code(const gpu_space::Candidate& candidate, Language language,
                       const std::string& entry) {
  const LoweredKernel lowered = lower(candidate);
  KernelCode code;
  code.language = language;
  code.entry = entry;
  if (language == Language::c) {
    code.source = print_c(lowered, entry);
    return code;
  }
  PtxOptions ptx;
  ptx.compute_capability = candidate.backbone().device().compute_capability;
  code.source = print_ptx(lowered, entry, ptx);
  code.launch = launch_config(lowered);
  return code;
}

}  // namespace sculpt::codegen
