#include "codegen/decisions.h"

#include <bit>
#include <cstdlib>
#include <numeric>

#include "support/check.h"

namespace sculpt::codegen {

using backbone::DimId;
using backbone::Kernel;
using backbone::StmtId;
namespace values = gpu_space::values;

namespace {

/// The single value left in a fully specified enum domain.
spacegen::ValueSet only_value(spacegen::ValueSet domain, const char* what, std::uint32_t id) {
  SCULPT_CHECK(std::has_single_bit(domain)) << what << "(" << id << ") is not fixed";
  return domain;
}

[[noreturn]] void unknown_value(const char* choice, spacegen::ValueSet value) {
  SCULPT_CHECK(false) << "a value of " << choice << " codegen does not know: " << value;
  std::abort();
}

// The space's values as codegen names them, matched by name (the generated constants), so that
// reordering a value list in a .space file changes nothing here and renaming or removing a value
// fails the build.

Order order_of(spacegen::ValueSet value) {
  switch (value) {
    case values::order::BEFORE:
      return Order::kBefore;
    case values::order::AFTER:
      return Order::kAfter;
    case values::order::INNER:
      return Order::kInner;
    case values::order::OUTER:
      return Order::kOuter;
    case values::order::MERGED:
      return Order::kMerged;
  }
  unknown_value("order", value);
}

LoopKind loop_kind_of(spacegen::ValueSet value) {
  switch (value) {
    case values::dim_kind::LOOP:
      return LoopKind::kLoop;
    case values::dim_kind::UNROLL:
      return LoopKind::kUnroll;
    case values::dim_kind::VECTOR:
      return LoopKind::kVector;
    case values::dim_kind::THREAD:
      return LoopKind::kThread;
    case values::dim_kind::BLOCK:
      return LoopKind::kBlock;
  }
  unknown_value("dim_kind", value);
}

MappingImpl mapping_of(spacegen::ValueSet value) {
  switch (value) {
    case values::dim_mapping::MERGED:
      return MappingImpl::kMerged;
    case values::dim_mapping::REGISTERS:
      return MappingImpl::kRegisters;
    case values::dim_mapping::THREADS:
      return MappingImpl::kThreads;
    case values::dim_mapping::MEMORY:
      return MappingImpl::kMemory;
  }
  unknown_value("dim_mapping", value);
}

Cache cache_of(spacegen::ValueSet value) {
  switch (value) {
    case values::cache::CACHE_ALL:
      return Cache::kAll;
    case values::cache::CACHE_GLOBAL:
      return Cache::kGlobal;
    case values::cache::READ_ONLY:
      return Cache::kReadOnly;
    case values::cache::STREAMING:
      return Cache::kStreaming;
  }
  unknown_value("cache", value);
}

std::int64_t only_size(spacegen::Interval interval, const char* what, std::uint32_t id) {
  SCULPT_CHECK(interval.fixed()) << what << "(" << id << ") is not fixed";
  return interval.lo;
}

int find(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

}  // namespace

Order Decisions::order(StmtId a, StmtId b) const {
  SCULPT_CHECK(a != b) << "order of statement " << a.value << " with itself";
  return static_cast<Order>(orders_[std::size_t{a.value} * stmts_ + b.value]);
}

Decisions read_decisions(const gpu_space::Candidate& candidate) {
  SCULPT_CHECK(!candidate.conflict()) << "lowering a dead candidate";
  SCULPT_CHECK(!candidate.first_open_instance()) << "lowering a candidate with open choices";
  Decisions d;
  const Kernel& kernel = candidate.backbone().kernel();
  d.kernel = &kernel;
  const std::uint32_t dims = kernel.dim_capacity();
  auto stmt = [&](DimId id) { return kernel.stmt_id(id).value; };

  // Statements present: the instructions and dimensions added so far.
  std::vector<StmtId> present;
  for (const backbone::Statement* s : kernel.statements()) present.push_back(s->stmt_id());
  d.stmts_ = kernel.stmt_capacity();
  d.orders_.assign(std::size_t{d.stmts_} * d.stmts_, 0);
  for (StmtId a : present) {
    for (StmtId b : present) {
      if (a == b) continue;
      d.orders_[std::size_t{a.value} * d.stmts_ + b.value] = static_cast<std::uint8_t>(
          order_of(only_value(candidate.get_order(a.value, b.value), "order", a.value)));
    }
  }

  // Sizes: static ones are choices, a dynamic one divides its logical size by its loop's tiles.
  d.static_size.assign(dims, 0);
  for (const backbone::Dimension* dim : kernel.static_dims()) {
    d.static_size[dim->id.value] =
        only_size(candidate.get_size(stmt(dim->id)), "size", dim->id.value);
  }
  for (const backbone::Dimension* dim : kernel.dimensions()) {
    if (dim->is_static()) continue;
    d.static_size[dim->id.value] =
        kernel.dynamic_size(dim->id, [&](DimId t) { return d.static_size[t.value]; });
  }

  // Classes of merged dimensions.
  const std::vector<const backbone::Dimension*> added = kernel.dimensions();
  std::vector<int> parent(dims);
  std::iota(parent.begin(), parent.end(), 0);
  for (const backbone::Dimension* a : added) {
    for (const backbone::Dimension* b : added) {
      if (a->id < b->id && d.order(StmtId(stmt(a->id)), StmtId(stmt(b->id))) == Order::kMerged) {
        parent[find(parent, static_cast<int>(b->id.value))] =
            find(parent, static_cast<int>(a->id.value));
      }
    }
  }
  d.class_of.assign(dims, -1);
  for (const backbone::Dimension* dim : added) {
    const std::uint32_t a = dim->id.value;
    const int root = find(parent, static_cast<int>(a));
    if (d.class_of[root] < 0) {
      d.class_of[root] = static_cast<int>(d.classes.size());
      d.classes.emplace_back();
    }
    d.class_of[a] = d.class_of[root];
    LoopDim& loop = d.classes[d.class_of[a]];
    if (loop.members.empty()) loop.name = kernel.dim(DimId(a)).name;
    loop.members.push_back(DimId(a));
  }
  for (std::size_t c = 0; c < d.classes.size(); ++c) {
    LoopDim& loop = d.classes[c];
    const DimId first = loop.members.front();
    loop.kind =
        loop_kind_of(only_value(candidate.get_dim_kind(stmt(first)), "dim_kind", first.value));
    loop.size = d.static_size[first.value];
    for (DimId member : loop.members) {
      SCULPT_CHECK(d.static_size[member.value] == loop.size)
          << "merged dimensions " << loop.name << " and " << kernel.dim(member).name
          << " differ in size";
    }
    if (loop.kind == LoopKind::kThread) {
      for (std::uint32_t l = 0; l < 3; ++l) {
        if (candidate.get_thread_mapping(stmt(first), l) == values::thread_mapping::MAPPED) {
          loop.level = static_cast<int>(l);
        }
      }
      SCULPT_CHECK(loop.level >= 0) << "thread dimension " << loop.name << " has no level";
    }
  }
  for (std::uint32_t l = 0; l < 3; ++l) {
    d.level_size[l] =
        std::max<std::int64_t>(1, only_size(candidate.get_level_size(l), "level_size", l));
  }

  for (const backbone::DimMapping* m : kernel.dim_mappings()) {
    d.mapping.push_back(
        mapping_of(only_value(candidate.get_dim_mapping(m->id.value), "dim_mapping", m->id.value)));
  }
  d.shared.assign(kernel.mem_capacity(), false);
  for (const backbone::MemRegion* mem : kernel.mem_regions()) {
    d.shared[mem->id.value] = candidate.get_mem_space(mem->id.value) == values::mem_space::SHARED;
  }
  d.cache.assign(kernel.inst_capacity(), Cache::kAll);
  for (const backbone::Instruction* inst : kernel.mem_instructions()) {
    const std::uint32_t id = kernel.stmt_id(inst->id).value;
    d.cache[inst->id.value] =
        cache_of(only_value(candidate.get_cache(id), "cache", inst->id.value));
  }
  return d;
}

}  // namespace sculpt::codegen
