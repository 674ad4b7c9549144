#include "perf_model/candidate_view.h"

#include <algorithm>
#include <bit>

namespace sculpt::perf_model {

namespace values = gpu_space::values;
using backbone::DimId;

bool DimView::fixed() const { return std::has_single_bit(kinds) && lo == hi; }

CandidateView::CandidateView(const gpu_space::Candidate& c, const KernelFacts& f)
    : candidate(c),
      kernel(c.backbone().kernel()),
      facts(f),
      fully_specified(!c.first_open_instance()),
      index_(kernel.dim_capacity(), -1),
      insts_(kernel.instructions()) {
  for (const backbone::Dimension* d : kernel.dimensions()) {
    DimView v;
    v.id = d->id;
    v.stmt = kernel.stmt_id(d->id).value;
    v.kinds = c.get_dim_kind(v.stmt);
    if (d->is_static()) {
      const spacegen::Interval size = c.get_size(v.stmt);
      v.lo = size.lo;
      v.hi = size.hi;
      if (v.may_be(values::dim_kind::THREAD)) {
        for (std::uint32_t l = 0; l < 3; ++l) {
          if (c.get_thread_mapping(v.stmt, l) & values::thread_mapping::MAPPED) v.levels |= 1u << l;
        }
      }
    } else {
      // The remainder of the logical size once its loop's tiles are taken.
      const spacegen::Interval tiles = c.get_tile_product(d->logical.value);
      const std::int64_t size = kernel.logical_dim(d->logical).size;
      v.lo = size / tiles.hi;
      v.hi = size / tiles.lo;
    }
    index_[d->id.value] = static_cast<int>(dims_.size());
    dims_.push_back(v);
  }
  shape_fixed = true;
  for (std::uint32_t l = 0; l < 3; ++l) {
    level_size[l] = c.get_level_size(l);
    level_size[l].lo = std::max<std::int64_t>(1, level_size[l].lo);
    level_size[l].hi = std::max<std::int64_t>(1, level_size[l].hi);
    shape_fixed = shape_fixed && level_size[l].fixed();
  }
  block_threads = c.get_block_threads();
  block_threads.lo = std::max<std::int64_t>(1, block_threads.lo);
  block_threads.hi = std::clamp<std::int64_t>(block_threads.hi, block_threads.lo,
                                              c.backbone().device().max_threads_per_block);
}

double CandidateView::product_lo(std::span<const DimId> dims,
                                 std::span<const DimId> counted) const {
  std::vector<DimId> classes(counted.begin(), counted.end());
  double product = 1;
  for (DimId d : dims) {
    const bool apart = std::none_of(classes.begin(), classes.end(), [&](DimId e) {
      return e == d || (order(d, dim(e).stmt) & values::order::MERGED);
    });
    if (!apart) continue;
    classes.push_back(d);
    product *= static_cast<double>(dim(d).lo);
  }
  return product;
}

double CandidateView::product_hi(std::span<const DimId> dims) const {
  std::vector<DimId> classes;
  double product = 1;
  for (DimId d : dims) {
    const bool merged = std::any_of(classes.begin(), classes.end(), [&](DimId e) {
      return order(d, dim(e).stmt) == values::order::MERGED;
    });
    if (merged) continue;
    classes.push_back(d);
    product *= static_cast<double>(dim(d).hi);
  }
  return product;
}

std::vector<DimId> CandidateView::dims_of_kind(spacegen::ValueSet kinds, bool certain) const {
  std::vector<DimId> out;
  for (const DimView& d : dims_) {
    if (certain ? d.only(kinds) : d.may_be(kinds)) out.push_back(d.id);
  }
  return out;
}

std::vector<std::vector<DimId>> CandidateView::barrier_loops() const {
  std::vector<std::vector<DimId>> out;
  if (block_threads.lo <= 1) return out;
  for (const backbone::Communication& comm : kernel.comms()) {
    if (!comm.lowerable() || !kernel.lowered(comm.id)) continue;
    const std::uint32_t store = stmt(comm.store);
    const std::uint32_t load = stmt(comm.load);
    std::vector<DimId>& around = out.emplace_back();
    for (const DimView& d : dims_) {
      if (d.only(values::dim_kind::LOOP | values::dim_kind::UNROLL) &&
          order(d.id, store) == values::order::OUTER && order(d.id, load) == values::order::OUTER) {
        around.push_back(d.id);
      }
    }
  }
  return out;
}

}  // namespace sculpt::perf_model
