#pragma once
// What the model knows of a kernel before any choice (internal to perf_model): per instruction,
// the PTX it becomes, the logical dimensions its value or address depends on, how many distinct
// values it computes, its footprint; per array, the traffic no implementation avoids. Every
// object a lowering may add is included, so that one KernelFacts serves a whole search.
#include <cstdint>
#include <vector>

#include "backbone/kernel.h"
#include "perf_model/instruction_class.h"

namespace sculpt::perf_model {

/// How long an instruction makes its consumers wait, by what executes it.
enum class LatencyKind { none, fp32, fp64, special, global_load, temp_load };

struct InstFacts {
  /// Warp instructions of each class one execution issues (an exp is a mul and an ex2, a sqrt
  /// a seed and its refinement; a vector access is one instruction whatever its width).
  ClassCounts per_execution{};
  LatencyKind latency = LatencyKind::none;
  bool is_load = false;
  bool is_store = false;
  /// The accessed region is a temporary of a lowered communication.
  bool temporary = false;
  std::int64_t elem_bytes = 4;
  /// The logical dimensions the instruction's value (or, for an access of an array, its
  /// address) depends on: iterations of other loops repeat the same work, which a compiler may
  /// hoist or merge.
  std::vector<backbone::LogicalDimId> deps;
  /// Its dimensions (those of its loops, outer to inner) and, for each, whether its logical
  /// dimension is one of `deps`.
  std::vector<backbone::DimId> dims;
  std::vector<bool> dep_dim;
  /// For each of `dims`, its loop's position among the instruction's loops and its logical
  /// dimension: a lowered temporary's load runs in its consumer's loops and its own copy loops,
  /// two loops of one logical dimension.
  std::vector<std::uint32_t> dim_loop;
  std::vector<backbone::LogicalDimId> dim_logical;
  /// Distinct values (or addresses) computed: the product of the logical sizes of `deps`.
  double distinct = 1;
  /// Reductions: the iterations of one accumulator's chain (the product of the reduction
  /// loops' logical sizes) and the dimensions of those loops; 1 and none otherwise.
  double reduction_length = 1;
  std::vector<backbone::DimId> reduction_dims;
  /// Dimensions of the loops indexing the value (the loops but the reduced ones).
  std::vector<backbone::DimId> storage_dims;
  /// Accesses of the kernel's arrays: the 32-byte sectors the access touches over its whole
  /// iteration space (at least).
  double footprint_sectors = 0;
  /// Accesses: every point of the iteration space touches its own element (an array's index
  /// is a mixed radix; a temporary holds one element per value it copies), so no two
  /// iterations share a load or a store.
  bool injective = false;
};

struct KernelFacts {
  explicit KernelFacts(const backbone::Kernel& kernel);

  std::vector<InstFacts> insts;  ///< by InstId
  /// Arrays of the signature: bytes every run must move at least once (reads of inputs, writes
  /// of outputs), as sectors of 32 bytes; and their sum.
  std::vector<double> array_sectors;  ///< by MemId (0 for temporaries)
  double compulsory_bytes = 0;
  /// Bytes of every array of the signature together (what must fit in a cache to stay there).
  double footprint_bytes = 0;
};

}  // namespace sculpt::perf_model
