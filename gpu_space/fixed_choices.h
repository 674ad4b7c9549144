#pragma once
// What a candidate's fixed choices imply, for the passes that need facts whole: codegen's
// lowering of a fully specified candidate, and the performance model's exact counts on partial
// ones. Each answers nothing while a choice it reads is still open.
#include <cstdint>
#include <optional>

#include "backbone/kernel.h"
#include "gpu_space/space.h"

namespace sculpt::gpu_space {

/// The size of a dimension: its `size` choice, or for a dynamic dimension its logical size over
/// its loop's tile sizes.
std::optional<std::int64_t> fixed_size(const Candidate& candidate, backbone::DimId dim);

/// The layout of a lowered communication's temporary: a row-major array over its dim mappings.
/// In shared memory it holds one block's tile: a slot per iteration of each pair that is not
/// merged, and of each merged pair of thread dimensions (its threads run that iteration side by
/// side, each with its own value; limits.space counts the same). In global memory every pair has
/// its slots, merged ones too, so that blocks running the same code never share a slot with
/// different values. The pairs a vector access runs along go innermost (the load's, else the
/// store's), then those the load's threads of level x read along, so that a warp's accesses are
/// contiguous. Reads the temporary's memory space, its mappings' implementations, the kinds and
/// thread levels of their store and load dimensions, and their sizes.
std::optional<backbone::Kernel::TempLayout> fixed_temp_layout(const Candidate& candidate,
                                                              backbone::MemId temp);

}  // namespace sculpt::gpu_space
