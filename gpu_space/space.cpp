#include "gpu_space/space.h"

namespace sculpt::gpu_space {

std::unique_ptr<Candidate> make_root(backbone::Kernel kernel, const DeviceDescription& device) {
  auto fun = std::make_shared<Function>(std::move(kernel), device);
  auto root = std::make_unique<Candidate>(fun, Candidate::make_layout(*fun));
  (void)root->initialize();  // a conflict stays recorded in the candidate
  return root;
}

}  // namespace sculpt::gpu_space
