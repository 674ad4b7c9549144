#pragma once
// The zoo's kernels as the C++ zoo wrote them before the definition language could: backbones
// built with backbone::Builder and hand-written references, kept as oracles that the kernels
// the registry builds from zoo.tc are held to (tests/frontend/zoo_test.cpp). They carry no
// description or sizes: the registry's are the kernel's.
#include <span>
#include <string_view>
#include <vector>

#include "backbone/builder.h"
#include "backbone/kernel_info.h"
#include "frontend/tc_builder.h"

namespace sculpt::hand_written {

// The names every family file builds its kernels with.
using backbone::Array;
using backbone::Builder;
using backbone::Dim;
using backbone::ElemType;
using backbone::HostArgs;
using backbone::Kernel;
using backbone::MemRegion;
using backbone::Size;
using backbone::Sizes;
using backbone::Value;
using frontend::parallel_tiling;
using frontend::reduction_tiling;

/// Every zoo kernel the language defines, by hand.
std::span<const backbone::KernelInfo> kernels();

/// The hand-written kernel `name`, or nullptr.
const backbone::KernelInfo* find(std::string_view name);

// Each family file adds its kernels.
void add_axpy(std::vector<backbone::KernelInfo>& kernels);
void add_batched_matmul(std::vector<backbone::KernelInfo>& kernels);
void add_matvec(std::vector<backbone::KernelInfo>& kernels);
void add_mlp(std::vector<backbone::KernelInfo>& kernels);

}  // namespace sculpt::hand_written
