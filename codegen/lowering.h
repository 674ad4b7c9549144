#pragma once
// What the lowering passes share while they build a LoweredKernel (internal to codegen). Each
// pass is one function declared here and defined in its own file; lower.cpp runs them in order.
#include <map>
#include <vector>

#include "codegen/decisions.h"
#include "codegen/lowered.h"

namespace sculpt::codegen {

struct Lowering {
  const gpu_space::Candidate& candidate;
  const backbone::Kernel& kernel;
  Decisions d;
  LoweredKernel out;
  /// By InstId: the instruction's index in out.instructions, -1 for objects not added.
  std::vector<int> inst_index;
  /// By InstId: the LoopDims around the instruction, outer to inner (block dims excluded).
  std::vector<std::vector<int>> ancestors;
  /// By InstId: the register array holding the instruction's value (a reduction's init writes
  /// the reduction's array), and the instruction's own dims indexing that array.
  std::vector<int> array_of;
  std::vector<std::vector<backbone::DimId>> array_dims_of;
  /// By InstId: initialises a reduction (its value is the reduction's accumulator).
  std::vector<bool> is_init;
  /// By MemId: the index in out.memories; by DimMappingId: its stride in its temporary.
  std::vector<int> memory_of;
  std::vector<std::int64_t> temp_stride;

  explicit Lowering(const gpu_space::Candidate& c);

  int loop_dim(backbone::DimId dim) const { return d.class_of[dim.value]; }
  bool is_ancestor(int dim, backbone::InstId inst) const;
  /// The LoopDim of `reader`'s context holding the iteration of `producer_dim` that the reader
  /// consumes: the producer's dim itself when the reader sits in it, else the partner of
  /// `producer_dim` in `comm`.
  int reader_dim(backbone::DimId producer_dim, backbone::InstId reader,
                 backbone::CommId comm) const;
  /// The index expression of an affine function of logical dimensions, seen from `inst`.
  IndexExpr logical_index(backbone::InstId inst, const backbone::AffineExpr& expr) const;
};

/// Builds the loop tree from `order`: out.dims, out.block_dims, out.block_size, out.body with
/// one instruction node per instruction (instructions themselves come later), and ancestors.
void build_loop_tree(Lowering& l);
/// Gives every value a register array (out.registers, array_of, array_dims_of).
void assign_registers(Lowering& l);
/// Lays out the arrays and temporaries (out.memories, memory_of, temp_stride).
void lay_out_memory(Lowering& l);
/// Lowers operands, destinations, accesses (vectorised where they can be) and predicates.
void lower_instructions(Lowering& l);
/// Places the block barriers that temporaries in memory need between threads.
void place_barriers(Lowering& l);

}  // namespace sculpt::codegen
