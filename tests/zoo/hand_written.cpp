#include "tests/zoo/hand_written.h"

#include "zoo/matmul.h"

namespace sculpt::hand_written {

std::span<const backbone::KernelInfo> kernels() {
  static const std::vector<backbone::KernelInfo> kKernels = [] {
    std::vector<backbone::KernelInfo> kernels;
    add_axpy(kernels);
    // The matmul family is strided_matmul's builder and reference at unit stride.
    kernels.push_back(zoo::matmul_kernel("matmul", "", {}, {}));
    kernels.push_back(zoo::matmul_kernel("matmul_ta", "", {true, false, 1}, {}));
    kernels.push_back(zoo::matmul_kernel("matmul_tb", "", {false, true, 1}, {}));
    add_batched_matmul(kernels);
    add_matvec(kernels);
    add_mlp(kernels);
    return kernels;
  }();
  return kKernels;
}

const backbone::KernelInfo* find(std::string_view name) {
  for (const backbone::KernelInfo& info : kernels()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

}  // namespace sculpt::hand_written
