#pragma once
// What the search's learnt model (additive_model.h) reads of a fully specified candidate: the
// shape of the code it becomes. The choices themselves (moves) name objects of one way to build
// the kernel: two candidates that lower to the same loops around their multiply-add, one merging
// dimensions the other keeps apart, share few moves, so what a search learnt of one family
// tells nothing of the other. The code they become is what the device runs; over three CPU
// searches of matmul 256x256x32 (480 candidates), a model of these features fitted to a search's
// first 50 times ranked its next 110 with a Spearman correlation of 0.68-0.82 (moves:
// 0.42-0.64), and one fitted to two searches ranked the third's at 0.72-0.81 (moves: 0.34-0.72).
#include <cstdint>
#include <vector>

#include "backbone/kernel.h"
#include "codegen/lowered.h"
#include "search/model/features.h"

namespace sculpt::search {

/// The features of `lowered` (a candidate of `kernel`), as keys of the additive model, each held
/// or not: for each instruction, the two innermost sequential loops around it of more than one
/// iteration (their depth, logical dimension and kind, with and without their size), or that
/// it has none, and how many loops over threads are around it; the number of blocks and of
/// threads per block.
std::vector<std::uint64_t> code_features(const codegen::LoweredKernel& lowered,
                                         const backbone::Kernel& kernel);

/// The code features of candidates of the GPU space (gpu_space::Candidate).
class CodeFeatures final : public Features {
 public:
  std::vector<std::uint64_t> of(const spacegen::CandidateBase& candidate) const override;
};

}  // namespace sculpt::search
