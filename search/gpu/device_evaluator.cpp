#include "search/gpu/device_evaluator.h"

#include "codegen/device_code.h"
#include "gpu_space/space.h"

namespace sculpt::search {

DeviceEvaluator::DeviceEvaluator(device::Evaluator& device,
                                 std::shared_ptr<const device::Problem> problem)
    : device_(device),
      problem_(std::move(problem)),
      language_(device::language_of(device.kind())) {}

Submission DeviceEvaluator::prepare(const spacegen::CandidateBase& candidate,
                                    double bound_ns) const {
  return {codegen::kernel_code(static_cast<const gpu_space::Candidate&>(candidate), language_,
                               "candidate"),
          bound_ns, candidate.hash()};
}

}  // namespace sculpt::search
