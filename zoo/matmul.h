#pragma once
// Matrix multiplications C = A . B in C++ (row-major, m x k times k x n), with A or B stored
// transposed or A's elements strided: the zoo's strided_matmul, which the definition language
// cannot say (it has no strided layouts), and the hand-written oracles of the matmul family
// that the tests hold the definitions to.
#include <cstdint>
#include <string>
#include <vector>

#include "backbone/kernel_info.h"

namespace sculpt::zoo {

struct MatmulLayout {
  bool transpose_a = false;  // A stored k x m
  bool transpose_b = false;  // B stored n x k (TC's tmm)
  int64_t a_stride = 1;      // distance between consecutive elements of A
};

/// The kernel `name`: its backbone built in C++ and its hand-written reference.
backbone::KernelInfo matmul_kernel(std::string name, std::string description, MatmulLayout layout,
                                   std::vector<backbone::SizeSpec> sizes);

}  // namespace sculpt::zoo
