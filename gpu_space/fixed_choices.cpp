#include "gpu_space/fixed_choices.h"

#include <bit>

namespace sculpt::gpu_space {

using backbone::DimId;
using backbone::DimMappingId;
using backbone::Kernel;

namespace {

/// The one value left in an enum domain, or nothing.
std::optional<spacegen::ValueSet> fixed(spacegen::ValueSet domain) {
  if (!std::has_single_bit(domain)) return std::nullopt;
  return domain;
}

std::uint32_t stmt(const Kernel& kernel, DimId dim) { return kernel.stmt_id(dim).value; }

/// How a dimension of a layout's store or load is implemented, as far as the layout cares.
struct Side {
  spacegen::ValueSet kind = 0;
  bool thread_x = false;  // a thread dimension of level x
};

std::optional<Side> side(const Candidate& candidate, DimId dim) {
  const Kernel& kernel = candidate.backbone().kernel();
  const std::optional<spacegen::ValueSet> kind = fixed(candidate.get_dim_kind(stmt(kernel, dim)));
  if (!kind) return std::nullopt;
  Side s{*kind, false};
  if (*kind == values::dim_kind::THREAD) {
    const std::optional<spacegen::ValueSet> x =
        fixed(candidate.get_thread_mapping(stmt(kernel, dim), 0));
    if (!x) return std::nullopt;
    s.thread_x = *x == values::thread_mapping::MAPPED;
  }
  return s;
}

}  // namespace

std::optional<std::int64_t> fixed_size(const Candidate& candidate, DimId dim) {
  const Kernel& kernel = candidate.backbone().kernel();
  const backbone::Dimension& d = kernel.dim(dim);
  if (d.is_static()) {
    const spacegen::Interval size = candidate.get_size(stmt(kernel, dim));
    if (!size.fixed()) return std::nullopt;
    return size.lo;
  }
  const spacegen::Interval tiles = candidate.get_tile_product(d.logical.value);
  if (!tiles.fixed()) return std::nullopt;
  return kernel.logical_dim(d.logical).size / tiles.lo;
}

std::optional<Kernel::TempLayout> fixed_temp_layout(const Candidate& candidate,
                                                    backbone::MemId temp) {
  const Kernel& kernel = candidate.backbone().kernel();
  const backbone::MemRegion& mem = kernel.mem(temp);
  const std::optional<spacegen::ValueSet> space = fixed(candidate.get_mem_space(temp.value));
  if (!space) return std::nullopt;
  const bool shared = *space == values::mem_space::SHARED;
  const backbone::CommId comm = kernel.mapping(mem.layout_mappings.front()).comm;
  struct Pair {
    bool merged;
    Side store;
    Side load;
    std::int64_t size;
  };
  std::vector<Pair> pairs(kernel.mapping_capacity());
  bool vector_load = false;
  for (DimMappingId m : mem.layout_mappings) {
    const backbone::DimMapping& mapping = kernel.mapping(m);
    const std::optional<spacegen::ValueSet> impl = fixed(candidate.get_dim_mapping(m.value));
    const std::optional<Side> store = side(candidate, mapping.src);
    const std::optional<Side> load = side(candidate, kernel.load_dim(comm, mapping.dst));
    const std::optional<std::int64_t> size = fixed_size(candidate, mapping.src);
    if (!impl || !store || !load || !size) return std::nullopt;
    pairs[m.value] = {*impl == values::dim_mapping::MERGED, *store, *load, *size};
    vector_load = vector_load || load->kind == values::dim_kind::VECTOR;
  }
  return kernel.temp_layout(
      temp,
      [&](DimMappingId m) {
        const Pair& p = pairs[m.value];
        return !shared || !p.merged || p.store.kind == values::dim_kind::THREAD;
      },
      [&](DimId dim) {
        for (DimMappingId m : mem.layout_mappings) {
          if (kernel.mapping(m).src == dim) return pairs[m.value].size;
        }
        return std::int64_t{1};
      },
      [&](DimMappingId m) {
        const Pair& p = pairs[m.value];
        const Side& vector_side = vector_load ? p.load : p.store;
        if (vector_side.kind == values::dim_kind::VECTOR) return 2;
        return p.load.thread_x ? 1 : 0;
      });
}

}  // namespace sculpt::gpu_space
