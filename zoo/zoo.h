#pragma once
// The kernel zoo: a registry of kernels by name, each with its sizes (names, defaults, small test
// values), the problem sizes of the papers, a builder of its backbone for concrete sizes and a
// CPU reference. Kernels the definition language can say are built from their definitions
// (zoo.tc, embedded in the binary), backbone and reference both; the others (strided_matmul)
// from C++.
#include <span>
#include <string>
#include <string_view>

#include "backbone/kernel_info.h"

namespace sculpt::zoo {

/// Every zoo kernel, in the order `sculpt kernels` lists them.
std::span<const backbone::KernelInfo> kernel_zoo();

/// The zoo kernel called `name`, or nullptr.
const backbone::KernelInfo* find_kernel(std::string_view name);

/// A kernel and problem size chosen on a command line, or what is wrong with them.
struct ZooLookup {
  const backbone::KernelInfo* info = nullptr;
  backbone::Sizes sizes;
  std::string error;  // "unknown kernel 'x' (known: ...)" or the size parser's message
  bool ok() const { return error.empty(); }
};

/// Finds `name` in the zoo and parses `size` for it (empty: the default sizes).
ZooLookup lookup_kernel(std::string_view name, std::string_view size);

/// The text of zoo.tc, the definitions of the zoo's kernels.
std::string_view zoo_definitions();

}  // namespace sculpt::zoo
