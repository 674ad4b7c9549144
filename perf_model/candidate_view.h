#pragma once
// A candidate's domains as the model reads them (internal to perf_model): for every dimension
// present, the kinds it may still take, its size range and the thread levels it may use; the
// block's shape; and products of sizes over sets of dimensions counted once per class of merged
// dimensions, the smallest or the largest the candidate still allows.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "gpu_space/space.h"
#include "perf_model/kernel_facts.h"

namespace sculpt::perf_model {

struct DimView {
  backbone::DimId id;
  std::uint32_t stmt = 0;
  spacegen::ValueSet kinds = 0;
  std::int64_t lo = 1;
  std::int64_t hi = 1;
  /// Thread levels it may be mapped to (bit l for level l), for a dimension that may be a thread.
  std::uint32_t levels = 0;

  bool may_be(spacegen::ValueSet kind) const { return (kinds & kind) != 0; }
  /// Only `kinds` are left.
  bool only(spacegen::ValueSet kind) const { return (kinds & ~kind) == 0; }
  bool fixed() const;
};

class CandidateView {
 public:
  CandidateView(const gpu_space::Candidate& candidate, const KernelFacts& facts);

  const gpu_space::Candidate& candidate;
  const backbone::Kernel& kernel;
  const KernelFacts& facts;
  /// Every choice is fixed.
  bool fully_specified = false;

  const DimView& dim(backbone::DimId id) const { return dims_[index_[id.value]]; }
  bool present(backbone::DimId id) const { return index_[id.value] >= 0; }
  std::span<const DimView> dims() const { return dims_; }
  const std::vector<const backbone::Instruction*>& instructions() const { return insts_; }

  /// The relation of a dimension to a statement: `order`'s domain.
  spacegen::ValueSet order(backbone::DimId a, std::uint32_t b_stmt) const {
    return candidate.get_order(dims_[index_[a.value]].stmt, b_stmt);
  }
  std::uint32_t stmt(backbone::InstId inst) const { return kernel.stmt_id(inst).value; }

  /// Threads of levels x, y, z, and of the block.
  std::array<spacegen::Interval, 3> level_size{};
  spacegen::Interval block_threads{1, 1};
  /// Whether every level's size is fixed (the block's shape is known).
  bool shape_fixed = false;

  /// The product of the smallest sizes of `dims`, one per class of dimensions that cannot be
  /// merged any more (a dimension that may still merge with one counted is not): at most the
  /// product over their classes in any implementation left. `counted` starts the classes
  /// counted (their sizes not included).
  double product_lo(std::span<const backbone::DimId> dims,
                    std::span<const backbone::DimId> counted = {}) const;
  /// The product of the largest sizes of `dims`, skipping only those certainly merged with one
  /// counted: at least the product over their classes in any implementation left.
  double product_hi(std::span<const backbone::DimId> dims) const;

  /// Dimensions certainly (`certain`) or possibly of one of `kinds`.
  std::vector<backbone::DimId> dims_of_kind(spacegen::ValueSet kinds, bool certain) const;

  /// Per lowered temporary, the sequential loops certainly around both its store and its load:
  /// those that hold its barrier (codegen/barriers.cpp), once the block has threads to wait
  /// for (none with one thread).
  std::vector<std::vector<backbone::DimId>> barrier_loops() const;

 private:
  std::vector<DimView> dims_;
  std::vector<int> index_;  ///< by DimId: position in dims_, -1 when absent
  std::vector<const backbone::Instruction*> insts_;
};

}  // namespace sculpt::perf_model
