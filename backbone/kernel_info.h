#pragma once
// A kernel as every stage after the backbone sees it: its sizes (names, defaults, small test
// values), a builder of its backbone for concrete sizes and a CPU reference. The zoo (zoo/zoo.h)
// and the definitions of the front end (frontend/definition.h) both give one.
#include <functional>
#include <string>
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

}  // namespace sculpt::backbone
