#include "search/candidate_evaluator.h"

#include "codegen/c_printer.h"
#include "codegen/lower.h"
#include "codegen/ptx_printer.h"
#include "support/check.h"

namespace sculpt::search {

device::Language device_language(std::string_view device) {
  return device == "cuda" ? device::Language::ptx : device::Language::c;
}

device::LaunchConfig launch_config(const codegen::LoweredKernel& lowered) {
  SCULPT_CHECK(lowered.num_blocks() < (std::int64_t{1} << 31)) << "too many blocks for a 1-D grid";
  device::LaunchConfig launch;
  launch.grid = {static_cast<std::uint32_t>(lowered.num_blocks()), 1, 1};
  for (int l = 0; l < 3; ++l) launch.block[l] = static_cast<std::uint32_t>(lowered.block_size[l]);
  return launch;
}

device::KernelCode kernel_code(const gpu_space::Candidate& candidate, device::Language language,
                               const std::string& entry) {
  const codegen::LoweredKernel lowered = codegen::lower(candidate);
  device::KernelCode code;
  code.language = language;
  code.entry = entry;
  if (language == device::Language::c) {
    code.source = codegen::print_c(lowered, entry);
    return code;
  }
  codegen::PtxOptions ptx;
  ptx.compute_capability = candidate.backbone().device().compute_capability;
  code.source = codegen::print_ptx(lowered, entry, ptx);
  code.launch = launch_config(lowered);
  return code;
}

DeviceEvaluator::DeviceEvaluator(device::Evaluator& device,
                                 std::shared_ptr<const device::Problem> problem)
    : device_(device), problem_(std::move(problem)), language_(device_language(device.name())) {}

Submission DeviceEvaluator::prepare(const spacegen::CandidateBase& candidate,
                                    double bound_ns) const {
  return {kernel_code(static_cast<const gpu_space::Candidate&>(candidate), language_, "candidate"),
          bound_ns, candidate.hash()};
}

}  // namespace sculpt::search
