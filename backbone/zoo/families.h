#pragma once
// Each zoo file adds its family of kernels to the registry (registry.cpp).
#include <vector>

#include "backbone/builder.h"
#include "backbone/zoo/zoo.h"

namespace sculpt::backbone::zoo {

void add_axpy(std::vector<KernelInfo>& zoo);
void add_matmul(std::vector<KernelInfo>& zoo);
void add_batched_matmul(std::vector<KernelInfo>& zoo);
void add_matvec(std::vector<KernelInfo>& zoo);
void add_mlp(std::vector<KernelInfo>& zoo);

/// Strip-mining of the paper's matmul for m and n: two tile levels, [2, 32] and [2, 4].
Tiling matmul_tiling();

}  // namespace sculpt::backbone::zoo
