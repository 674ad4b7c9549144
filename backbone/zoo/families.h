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

/// Strip-mining of the output dimensions of matmul-like kernels: two tile levels, [2, 32] and
/// [2, 8] (the paper used [2, 4] for the inner level; register tiles of 8 keep a Hopper
/// multiprocessor's FMA units busier than its shared-memory loads).
Tiling matmul_tiling();
/// Strip-mining of reduction dimensions: one level, [2, 32] (the depth of a shared-memory tile
/// or of an unrolled reduction).
Tiling reduction_tiling();

}  // namespace sculpt::backbone::zoo
