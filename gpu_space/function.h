#pragma once
// The host side of the GPU space: what its `.space` files call `$fun`. A `Function` is a kernel
// (copied by a candidate on its first lowering) plus facts computed once per search and shared
// by every candidate: the isl dependences and static predicates over every object, those that
// lowerings add included, so that the hot paths of propagation only read tables.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <ranges>
#include <span>
#include <vector>

#include "backbone/dependences.h"
#include "backbone/kernel.h"
#include "gpu_space/device_description.h"

namespace sculpt::gpu_space {

/// Whether `ids` lists `id`.
template <typename Id>
bool lists(std::span<const Id> ids, Id id) {
  return std::ranges::find(ids, id) != ids.end();
}

/// Ranges of backbone objects over spans of their ids (no allocation in propagation loops).
inline auto dims_of_ids(const backbone::Kernel& kernel, std::span<const backbone::DimId> ids) {
  return std::views::transform(ids, [k = &kernel](backbone::DimId id) { return &k->dim(id); });
}
inline auto insts_of_ids(const backbone::Kernel& kernel, std::span<const backbone::InstId> ids) {
  return std::views::transform(ids, [k = &kernel](backbone::InstId id) { return &k->inst(id); });
}
inline auto mappings_of_ids(const backbone::Kernel& kernel,
                            std::span<const backbone::DimMappingId> ids) {
  return std::views::transform(
      ids, [k = &kernel](backbone::DimMappingId id) { return &k->mapping(id); });
}

/// A hardware thread level: x (id 0, fastest within a warp), y, z.
struct ThreadLevel {
  std::uint32_t id = 0;
  const char* name = "";
  std::int64_t max_size = 1;
};

/// Facts about one kernel that no lowering changes (see function.cpp for their definitions).
struct KernelFacts;

class Function {
 public:
  /// Computes the dependences and the static facts of `kernel` (before any lowering).
  Function(backbone::Kernel kernel, DeviceDescription device);

  const backbone::Kernel& kernel() const { return kernel_; }
  const DeviceDescription& device() const;
  const backbone::Dependences& dependences() const;

  // Set iterators and getters that backbone::Kernel does not provide.
  std::vector<const backbone::Statement*> statements() const { return kernel_.statements(); }
  auto thread_levels() const {
    return std::views::transform(levels(), [](const ThreadLevel& l) { return &l; });
  }
  const ThreadLevel& thread_level(std::uint32_t id) const { return levels()[id]; }
  std::array<const backbone::Dimension*, 1> mapping_src(const backbone::DimMapping* m) const {
    return {&kernel_.dim(m->src)};
  }
  std::array<const backbone::Dimension*, 1> mapping_dst(const backbone::DimMapping* m) const {
    return {&kernel_.dim(m->dst)};
  }
  auto static_mapping_src(const backbone::DimMapping* m) const {
    return dims_of_ids(kernel_, std::span(&m->src, kernel_.dim(m->src).is_static() ? 1 : 0));
  }
  auto static_mapping_dst(const backbone::DimMapping* m) const {
    return dims_of_ids(kernel_, std::span(&m->dst, kernel_.dim(m->dst).is_static() ? 1 : 0));
  }
  auto mappings_from(const backbone::Dimension* d) const {
    return mappings_of_ids(kernel_, mappings_from_ids(d));
  }
  auto mappings_to(const backbone::Dimension* d) const {
    return mappings_of_ids(kernel_, mappings_to_ids(d));
  }
  auto first_tile_dims(const backbone::LogicalDim* l) const {
    return dims_of_ids(kernel_, std::span(kernel_.loop(l->loops.front()).tile_dims));
  }
  bool is_first_tile_dim(const backbone::LogicalDim* l, const backbone::Dimension* d) const {
    return d->is_static() && d->loop == l->loops.front();
  }
  auto first_tile_logicals(const backbone::Dimension* d) const {
    const bool first = is_first_tile_dim(&kernel_.logical_dim(d->logical), d);
    return std::views::transform(
        std::span(&d->logical, first ? 1 : 0),
        [k = &kernel_](backbone::LogicalDimId id) { return &k->logical_dim(id); });
  }
  auto temp_mappings(const backbone::MemRegion* mem) const {
    return mappings_of_ids(kernel_, std::span(mem->layout_mappings));
  }
  bool is_temp_mapping(const backbone::MemRegion* mem, const backbone::DimMapping* m) const;
  auto temps_of(const backbone::DimMapping* m) const {
    const backbone::Communication& comm = kernel_.comm(m->comm);
    return std::views::transform(std::span(&comm.temp, comm.lowerable() ? 1 : 0),
                                 [k = &kernel_](backbone::MemId id) { return &k->mem(id); });
  }

  /// The initialisation of a reduction (none for other instructions), and the reverse.
  auto reduction_init(const backbone::Instruction* r) const {
    return insts_of_ids(kernel_, reduction_init_ids(r));
  }
  bool is_reduction_init(const backbone::Instruction* r, const backbone::Instruction* i) const {
    return lists(reduction_init_ids(r), i->id);
  }
  auto reductions_initialised_by(const backbone::Instruction* init) const {
    return insts_of_ids(kernel_, reductions_initialised_by_ids(init));
  }
  /// The dimensions of a reduction's loops (none for other instructions), and the reverse.
  auto reduction_loop_dims(const backbone::Instruction* r) const {
    return dims_of_ids(kernel_, reduction_loop_dim_ids(r));
  }
  bool is_reduction_loop_dim(const backbone::Instruction* r, const backbone::Dimension* d) const {
    return lists(reduction_loop_dim_ids(r), d->id);
  }
  auto reductions_over(const backbone::Dimension* d) const {
    return insts_of_ids(kernel_, reductions_over_ids(d));
  }

  // Universes.
  /// Products of one tile size per level of `l` that divide its size, ascending.
  const std::vector<std::int64_t>& tile_products(const backbone::LogicalDim* l) const;

  // Static predicates (definitions in function.cpp).
  bool is_parallel(const backbone::Dimension* d) const;
  bool can_vectorize(const backbone::Dimension* d) const;
  std::int64_t max_vector_width(const backbone::Dimension* d) const;
  bool same_tile_level(const backbone::Dimension* a, const backbone::Dimension* b) const;
  bool share_instruction(const backbone::Dimension* a, const backbone::Dimension* b) const;
  /// Whether a, b, c are the levels x, y, z in this order.
  bool in_level_order(const ThreadLevel* a, const ThreadLevel* b, const ThreadLevel* c) const {
    return a->id == 0 && b->id == 1 && c->id == 2;
  }
  bool owns(const backbone::Dimension* d, const backbone::Statement* s) const;
  bool can_merge(const backbone::Dimension* a, const backbone::Dimension* b) const;
  bool merge_carries(const backbone::Dimension* a, const backbone::Dimension* b) const;
  bool must_precede(const backbone::Instruction* a, const backbone::Instruction* b) const;
  bool must_nest(const backbone::Dimension* outer, const backbone::Dimension* inner) const;
  bool reduces_after_init(const backbone::Dimension* d, const backbone::Instruction* init) const;
  bool repeats_reduction(const backbone::Dimension* x, const backbone::Instruction* r,
                         const backbone::Instruction* init) const;
  bool may_repeat_reduction(const backbone::Dimension* x, const backbone::Dimension* own,
                            const backbone::Instruction* r,
                            const backbone::Instruction* init) const;
  bool reads_reduction_over(const backbone::Instruction* reader,
                            const backbone::Dimension* d) const;
  bool lowerable(const backbone::DimMapping* m) const;
  bool same_communication(const backbone::DimMapping* a, const backbone::DimMapping* b) const;
  bool is_static_mapping(const backbone::DimMapping* m) const;
  bool is_read_only_load(const backbone::Instruction* i) const;
  bool accesses(const backbone::Instruction* i, const backbone::MemRegion* mem) const;
  bool indexes_value(const backbone::Dimension* d, const backbone::Instruction* i) const;
  bool holds_registers(const backbone::Instruction* i) const;
  /// Shared memory per block in elements of the widest temporary.
  std::int64_t shared_element_limit() const;

  // Lowerings (triggers).
  int lower_communication(const backbone::DimMapping* m);

 private:
  std::span<const ThreadLevel> levels() const;
  std::span<const backbone::DimMappingId> mappings_from_ids(const backbone::Dimension* d) const;
  std::span<const backbone::DimMappingId> mappings_to_ids(const backbone::Dimension* d) const;
  std::span<const backbone::InstId> reduction_init_ids(const backbone::Instruction* r) const;
  std::span<const backbone::InstId> reductions_initialised_by_ids(
      const backbone::Instruction* init) const;
  std::span<const backbone::DimId> reduction_loop_dim_ids(const backbone::Instruction* r) const;
  std::span<const backbone::InstId> reductions_over_ids(const backbone::Dimension* d) const;

  backbone::Kernel kernel_;
  std::shared_ptr<const KernelFacts> facts_;
};

}  // namespace sculpt::gpu_space
