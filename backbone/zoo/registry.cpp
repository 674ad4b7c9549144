#include "backbone/zoo/families.h"

namespace sculpt::backbone {

namespace zoo {
Tiling matmul_tiling() { return Tiling{{Tiling::range(2, 32), Tiling::range(2, 8)}}; }
Tiling reduction_tiling() { return Tiling{{Tiling::range(2, 32)}}; }
}  // namespace zoo

std::span<const KernelInfo> kernel_zoo() {
  static const std::vector<KernelInfo> kZoo = [] {
    std::vector<KernelInfo> zoo;
    zoo::add_axpy(zoo);
    zoo::add_matmul(zoo);
    zoo::add_batched_matmul(zoo);
    zoo::add_matvec(zoo);
    zoo::add_mlp(zoo);
    return zoo;
  }();
  return kZoo;
}

const KernelInfo* find_kernel(std::string_view name) {
  for (const KernelInfo& info : kernel_zoo()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

ZooLookup lookup_kernel(std::string_view name, std::string_view size) {
  ZooLookup lookup;
  lookup.info = find_kernel(name);
  if (!lookup.info) {
    std::string known;
    for (const KernelInfo& info : kernel_zoo()) known += " " + info.name;
    lookup.error = "unknown kernel '" + std::string(name) + "' (known:" + known + ")";
    return lookup;
  }
  SizeParse parse = parse_sizes(size, lookup.info->sizes);
  lookup.sizes = std::move(parse.sizes);
  lookup.error = std::move(parse.error);
  return lookup;
}

}  // namespace sculpt::backbone
