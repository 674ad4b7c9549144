#pragma once
// Data dependences of a backbone, computed with isl on its default program, and what they imply
// for the implementation space (gpu_space turns them into initial domain restrictions).
//
// Model: each instruction's iteration domain spans its loops (logical indices, concrete sizes);
// the schedule is the default program order; accesses are the memory accesses of loads and
// stores plus the values flowing between instructions, each value being an array indexed by its
// producer's loops (minus reduced loops: a reduction keeps one accumulator per non-reduced
// iteration, which its init writes first). Flow and output dependences are exact (last writer,
// through `isl_union_access_info_compute_flow`); anti dependences are memory-based (every earlier
// read of a location written later), which is conservative.
#include <string>
#include <vector>

#include "backbone/kernel.h"

namespace sculpt::backbone {

enum class DepKind { kFlow, kAnti, kOutput };

/// One dependence relation between two instructions through one array or value.
struct Dependence {
  DepKind kind = DepKind::kFlow;
  InstId src;
  InstId dst;
  std::string array;     // a memory region's name, or "value of <instruction>"
  std::string relation;  // the isl relation, for logs and tests
};

/// What a loop of the default program may become, given the dependences between iterations of
/// that loop at equal iterations of the loops enclosing it.
enum class LoopKind {
  kParallel,    // no dependence between its iterations: BLOCK, THREAD, VECTOR allowed
  kReduction,   // only a recognised reduction's accumulator (read of its own previous value,
                // with an init instruction, partial values unread inside the loop)
  kSequential,  // carries another dependence: LOOP or UNROLL only
};
std::string_view loop_kind_name(LoopKind kind);

struct Dependences {
  /// By DimId: every dimension of a loop gets the loop's kind.
  std::vector<LoopKind> dim_kinds;
  /// By LoopId.
  std::vector<LoopKind> loop_kinds;
  /// (before, after): instruction pairs with a dependence not carried by a loop both sit in, so
  /// `before` must stay before `after` (at equal iterations of their common loops). Sorted.
  std::vector<std::pair<InstId, InstId>> ordered;
  /// Pairs of dimensions of the same logical dimension and tile level in different nests that
  /// must not be merged: a dependence goes from an iteration of the first to an earlier one of
  /// the second. Sorted, each pair once with the smaller id first.
  std::vector<std::pair<DimId, DimId>> no_merge;
  /// Pairs of dimensions as in `no_merge` that may be merged, but a dependence then goes from
  /// one iteration of the merged dimension to a later one: merged, they must stay sequential.
  std::vector<std::pair<DimId, DimId>> merge_carries;
  /// (outer, inner): dimensions of loops both sitting around the same instructions whose
  /// interchange would reverse a dependence, so `inner` must stay nested inside `outer`. Sorted.
  std::vector<std::pair<DimId, DimId>> must_nest;
  /// Every dependence found, for logs and tests.
  std::vector<Dependence> all;

  LoopKind dim_kind(DimId dim) const { return dim_kinds.at(dim.value); }
  LoopKind loop_kind(LoopId loop) const { return loop_kinds.at(loop.value); }
  bool must_order(InstId before, InstId after) const;
  bool can_merge(DimId a, DimId b) const;
  std::string to_string(const Kernel& kernel) const;
};

/// Computes the dependences of the instructions present in `kernel` (before any lowering).
Dependences compute_dependences(const Kernel& kernel);

}  // namespace sculpt::backbone
