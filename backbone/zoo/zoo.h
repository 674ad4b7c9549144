#pragma once
// The kernel zoo: a registry of kernels by name, each with its sizes (names, defaults, small
// test values), a builder of its backbone for concrete sizes and a hand-written CPU reference.
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backbone/host_args.h"
#include "backbone/kernel.h"
#include "backbone/sizes.h"

namespace sculpt::backbone {

struct PaperSize {
  std::string source;  // which paper and experiment
  std::string size;    // e.g. "256x256x32"
};

struct KernelInfo {
  std::string name;
  std::string description;
  std::vector<SizeSpec> sizes;  // in the order of the `--size` string
  std::function<Kernel(const Sizes&)> build;
  /// Computes the outputs from the inputs in `args` (f64 accumulation, outputs rounded to
  /// their element type).
  std::function<void(const Sizes&, HostArgs&)> reference;
  /// Problem sizes the papers sculpt compares with measured (Telamon, Tensor Comprehensions,
  /// Diesel, FlexTensor), as `--size` strings.
  std::vector<PaperSize> paper_sizes = {};
};

/// Every zoo kernel, in the order `sculpt kernels` lists them.
std::span<const KernelInfo> kernel_zoo();

/// The zoo kernel called `name`, or nullptr.
const KernelInfo* find_kernel(std::string_view name);

/// A kernel and problem size chosen on a command line, or what is wrong with them.
struct ZooLookup {
  const KernelInfo* info = nullptr;
  Sizes sizes;
  std::string error;  // "unknown kernel 'x' (known: ...)" or the size parser's message
  bool ok() const { return error.empty(); }
};

/// Finds `name` in the zoo and parses `size` for it (empty: the default sizes).
ZooLookup lookup_kernel(std::string_view name, std::string_view size);

}  // namespace sculpt::backbone
