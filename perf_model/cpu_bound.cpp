// The bound on the CPU device (model.h): the generated C runs a block per OpenMP iteration on
// one core, its threads one after another, with whatever vectors the C compiler makes; so only
// the work every thread of every block runs, over every core's peak, its arrays' traffic at the
// cache level that holds them, and the launch, are sure to be paid.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "perf_model/bounds.h"

namespace sculpt::perf_model {

namespace values = gpu_space::values;
namespace kind = gpu_space::values::dim_kind;

namespace {

constexpr spacegen::ValueSet kSequential = kind::LOOP | kind::UNROLL | kind::VECTOR;
/// The most iterations of a loop GCC unrolls in full at -O3 (max-completely-peel-times).
constexpr std::int64_t kFullyUnrolled = 16;

/// The fp32 operations (an FMA counting once) of one execution of an instruction.
double operations_of(const InstFacts& f) {
  double total = 0;
  for (InstrClass c : {InstrClass::fp32_fma, InstrClass::fp32_add, InstrClass::fp32_mul,
                       InstrClass::fp32_other, InstrClass::fp64, InstrClass::special}) {
    total += f.per_execution[static_cast<std::size_t>(c)];
  }
  return total;
}

/// What the threads of a block run of an instruction, at least: the iterations of its
/// sequential loops its value (or address) depends on (the others a compiler may hoist), in
/// each of the threads that run it. At a thread level the instruction iterates on, as many
/// threads as its dimension there; at any other level, every thread of the level, copies of one
/// value the C computes again, but for a store, which is predicated to one thread. A level an
/// open dimension may still take counts one thread.
struct PerThread {
  double iterations = 1;
  double threads = 1;
};

PerThread per_thread(const CandidateView& v, const InstFacts& f, bool copies) {
  PerThread out;
  std::uint32_t may_own = 0;  // levels one of its dimensions may take
  std::uint32_t own_levels = 0;
  // The sequential iterations of each loop its value depends on.
  struct Loop {
    std::uint32_t position;
    backbone::LogicalDimId logical;
    double iterations;
  };
  std::vector<Loop> loops;
  for (std::size_t k = 0; k < f.dims.size(); ++k) {
    const DimView& d = v.dim(f.dims[k]);
    if (d.may_be(kind::THREAD)) may_own |= d.levels;
    if (d.only(kind::THREAD) && std::has_single_bit(d.levels)) {
      out.threads *= static_cast<double>(d.lo);
      own_levels |= d.levels;
    } else if (f.dep_dim[k] && d.only(kSequential)) {
      if (loops.empty() || loops.back().position != f.dim_loop[k]) {
        loops.push_back({f.dim_loop[k], f.dim_logical[k], 1});
      }
      loops.back().iterations *= static_cast<double>(d.lo);
    }
  }
  // Two loops of one logical dimension may run over the same values: the larger counts.
  for (std::size_t i = 0; i < loops.size(); ++i) {
    const bool larger_elsewhere = std::any_of(loops.begin(), loops.end(), [&](const Loop& o) {
      return &o != &loops[i] && o.logical == loops[i].logical &&
             (o.iterations > loops[i].iterations ||
              (o.iterations == loops[i].iterations && o.position < loops[i].position));
    });
    if (!larger_elsewhere) out.iterations *= loops[i].iterations;
  }
  for (std::uint32_t l = 0; l < 3 && copies; ++l) {
    if (!((own_levels | may_own) & (1u << l)))
      out.threads *= static_cast<double>(v.level_size[l].lo);
  }
  return out;
}

}  // namespace

void cpu_bound(const CandidateView& v, const CpuRates& r, Layers layers, Bound& out) {
  const double blocks_lo = v.product_lo(v.dims_of_kind(kind::BLOCK, /*certain=*/true));
  out.counts.blocks = blocks_lo;
  out.counts.threads_per_block = static_cast<double>(v.block_threads.lo);
  double distinct = 0;  // fp32 operations of the kernel's distinct values
  double executed = 0;  // those the threads of every block run
  // Steps of the loops over a block's threads: the C visits every thread of the block, idle
  // ones included, once per iteration of the loops that hold a barrier around an instruction;
  // a step costs at least an fp32 lane (a vector of steps at most a vector instruction).
  double visits = 0;
  // Bytes the threads of every block load and store, each access at the L1 bandwidth at best,
  // as if it were part of a full vector: the iterations of the loops its address depends on
  // (when no two of them touch one element), on every thread of a level it does not iterate on
  // for a load, as for a value, on one for a store. GCC unrolls a loop over at most
  // kFullyUnrolled threads in full: it then merges a load's copies, and may forward a
  // temporary's stores to its loads, so those count once and not at all.
  double moved = 0;
  // Every loop that holds a barrier, once.
  std::vector<backbone::DimId> barriers;
  if (layers != Layers::floors) {
    for (const std::vector<backbone::DimId>& around : v.barrier_loops()) {
      for (backbone::DimId d : around) {
        if (std::find(barriers.begin(), barriers.end(), d) == barriers.end()) barriers.push_back(d);
      }
    }
  }
  for (const backbone::Instruction* inst : v.instructions()) {
    const InstFacts& f = v.facts.insts[inst->id.value];
    if (layers != Layers::floors) {
      std::vector<backbone::DimId> around;
      for (backbone::DimId d : barriers) {
        if (v.order(d, v.stmt(inst->id)) == values::order::OUTER) around.push_back(d);
      }
      const double iterations = v.product_lo(around);
      out.counts.barriers_per_block = std::max(out.counts.barriers_per_block, iterations);
      visits = std::max(visits, blocks_lo * static_cast<double>(v.block_threads.lo) * iterations);
    }
    const bool unrolled = v.block_threads.lo <= kFullyUnrolled;
    if ((f.is_load || f.is_store) && !(f.temporary && unrolled) && layers != Layers::floors) {
      const PerThread t = per_thread(v, f, f.is_load && !unrolled);
      moved += static_cast<double>(f.elem_bytes) * blocks_lo * t.threads *
               (f.injective ? t.iterations : 1);
    }
    const double operations = operations_of(f);
    if (operations == 0) continue;
    distinct += operations * f.distinct;
    if (layers == Layers::floors) continue;
    const PerThread t = per_thread(v, f, /*copies=*/true);
    executed += operations * blocks_lo * t.threads * t.iterations;
  }
  const double cores = r.cores.value;
  out.terms.push_back(Term{"fp32", Level::device,
                           distinct / (r.fp32_per_second.value * cores) * 1e9,
                           fmt::format("{:.4g} fp32 operations on {:g} cores", distinct, cores)});
  if (layers != Layers::floors) {
    // Blocks are what the cores share: a core runs whole blocks, so fewer blocks than cores leave
    // cores idle, and the busiest core runs its share rounded up.
    const double blocks_hi = v.product_hi(v.dims_of_kind(kind::BLOCK, /*certain=*/false));
    const double busiest =
        blocks_lo == blocks_hi ? std::ceil(blocks_lo / cores) : std::max(blocks_lo, 1.0) / cores;
    const double work = std::max(distinct / std::min(cores, blocks_hi),
                                 std::max(executed, visits) / blocks_lo * busiest);
    out.terms.push_back(
        Term{"threads", Level::sm, work / r.fp32_per_second.value * 1e9,
             fmt::format("{:.4g} fp32 operations run by the threads of {:g} blocks, {:.4g} "
                         "steps of their loops over threads; {:.4g} on the busiest core",
                         executed, blocks_lo, visits, work)});
    const double moved_by_busiest = moved / blocks_lo * busiest;
    out.terms.push_back(
        Term{"accesses", Level::sm, moved_by_busiest / (r.l1_bandwidth.value / cores) * 1e9,
             fmt::format("{:.4g} bytes loaded and stored by the threads of {:g} blocks; {:.4g} "
                         "by the busiest core, at its share of the L1 bandwidth",
                         moved, blocks_lo, moved_by_busiest)});
  }
  const double bytes = v.facts.compulsory_bytes;
  const double footprint = v.facts.footprint_bytes;
  struct CacheLevel {
    const char* name;
    double capacity;
    double bandwidth;
  };
  const CacheLevel levels[] = {{"l1", r.l1_bytes.value * r.cores.value, r.l1_bandwidth.value},
                               {"l2", r.l2_bytes.value * r.cores.value, r.l2_bandwidth.value},
                               {"l3", r.l3_bytes.value, r.l3_bandwidth.value},
                               {"dram", 0, r.dram_bandwidth.value}};
  const CacheLevel* at = &levels[3];
  for (const CacheLevel& level : levels) {
    if (footprint <= level.capacity) {
      at = &level;
      break;
    }
  }
  out.terms.push_back(Term{at->name, Level::device, bytes / at->bandwidth * 1e9,
                           fmt::format("{:.4g} bytes of arrays ({:.4g} bytes of footprint) at the "
                                       "bandwidth of the first level that holds them",
                                       bytes, footprint)});
  out.terms.push_back(
      Term{"launch", Level::device, r.launch_floor_ns.value, "an empty kernel's run"});
}

}  // namespace sculpt::perf_model
