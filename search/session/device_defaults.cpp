#include "search/session/device_defaults.h"

namespace sculpt::search {

namespace {

// On a GPU, the most performance-critical choices come first, as in the primary paper's search
// (section 5): the shape of the tiles, then how dimensions run (blocks, threads, vectors,
// unrolled), how loop nests communicate and where arrays live, then the order of statements and
// the cache directives, which refine what the others set. The opening picks the lowest bound of
// 32 rollouts: before any time is measured, the bound is all a search knows. Screening is off:
// the bound tells candidates apart, the effect of screening there is not measured yet, and its
// walks delay what the GPU is fed.
constexpr DeviceDefaults kGpu{
    "tile_product,size,dim_kind,thread_mapping,level_used,dim_mapping,temp_slot,mem_space,order,"
    "cache",
    32, 1, 0};

// On the CPU, the most performance-critical first as measured there: over 1,349 evaluations of
// matmul 256x256x32, the values of dim_mapping, mem_space, thread_mapping, dim_kind and order
// moved the mean log time most (up to 0.8 decades), tile sizes least (0.2); a tree search
// learns its first decisions best. No opening: the bound takes its fp32 floor over most of the
// space, so it has nothing to choose by (in two `cpu_search_test` runs with it, one of five MCTS
// runs each stayed above 50 us, the others 23 to 28 us). Screening among 8 rollouts: the bound
// ties over most of the space, and the device compiles a candidate for longer than eight walks
// take. A kernel's default sizes are a GPU's: a search of them would evaluate a few candidates
// a minute (matmul 1024^3: 4); at most 2^24 points (matmul 256^3) it explores the space in
// minutes.
constexpr DeviceDefaults kCpu{
    "dim_mapping,mem_space,thread_mapping,dim_kind,order,tile_product,size,level_used,temp_slot,"
    "cache",
    1, 8, std::int64_t{1} << 24};

}  // namespace

const DeviceDefaults& defaults_for(device::Kind kind) {
  // The stand-in device stands in for a GPU.
  return kind == device::Kind::cpu ? kCpu : kGpu;
}

}  // namespace sculpt::search
