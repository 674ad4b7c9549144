#pragma once
// The decisions of a fully specified candidate, read once into plain values: which dimensions
// are merged, what each class of merged dimensions became, how each dim mapping and memory
// region is implemented, the cache operator of each access and the pairwise order.
#include <cstdint>
#include <vector>

#include "backbone/kernel.h"
#include "codegen/lowered.h"
#include "gpu_space/space.h"

namespace sculpt::codegen {

enum class Order { kBefore, kAfter, kInner, kOuter, kMerged };
enum class MappingImpl { kMerged, kRegisters, kThreads, kMemory };

struct Decisions {
  const backbone::Kernel* kernel = nullptr;
  /// Classes of merged dimensions with their kind, size and level (block levels unset).
  std::vector<LoopDim> classes;
  std::vector<int> class_of;              // by DimId
  std::vector<MappingImpl> mapping;       // by DimMappingId
  std::vector<bool> shared;               // by MemId: a temporary in shared memory
  std::vector<Cache> cache;               // by InstId (memory instructions)
  std::vector<std::int64_t> static_size;  // by DimId: the size of every dimension
  std::array<std::int64_t, 3> level_size{1, 1, 1};

  /// The relation of two distinct statements.
  Order order(backbone::StmtId a, backbone::StmtId b) const;

  std::vector<std::uint8_t> orders_;  // dense [stmt][stmt]
  std::uint32_t stmts_ = 0;
};

/// Reads the decisions of `candidate`, which must be fully specified and alive (checked).
Decisions read_decisions(const gpu_space::Candidate& candidate);

}  // namespace sculpt::codegen
