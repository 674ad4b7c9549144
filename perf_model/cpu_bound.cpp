// The bound on the CPU device (model.h): the generated C runs a block per OpenMP iteration on
// one core, its threads one after another, with whatever vectors the C compiler makes; so only
// the kernel's distinct work over every core's peak, its arrays' traffic at the cache level that
// holds them, and the launch, are sure to be paid.
#include <fmt/format.h>

#include <algorithm>

#include "perf_model/bounds.h"

namespace sculpt::perf_model {

namespace kind = gpu_space::values::dim_kind;

void cpu_bound(const CandidateView& v, const CpuRates& r, Layers layers, Bound& out) {
  double operations = 0;  // fp32 operations, an FMA counting once
  for (const backbone::Instruction* inst : v.instructions()) {
    const InstFacts& f = v.facts.insts[inst->id.value];
    double per_execution = 0;
    for (InstrClass c : {InstrClass::fp32_fma, InstrClass::fp32_add, InstrClass::fp32_mul,
                         InstrClass::fp32_other, InstrClass::fp64, InstrClass::special}) {
      per_execution += f.per_execution[static_cast<std::size_t>(c)];
    }
    operations += per_execution * f.distinct;
  }
  // Blocks are what the cores share: fewer blocks than cores leave cores idle.
  double cores = r.cores.value;
  if (layers != Layers::floors) {
    cores = std::min(cores, v.product_hi(v.dims_of_kind(kind::BLOCK, /*certain=*/false)));
  }
  out.terms.push_back(Term{"fp32", Level::device,
                           operations / (r.fp32_per_second.value * cores) * 1e9,
                           fmt::format("{:.4g} fp32 operations on {:g} cores", operations, cores)});
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
