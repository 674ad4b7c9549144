#include "codegen/lower.h"

#include <chrono>
#include <cstdlib>

#include "codegen/lowering.h"
#include "support/check.h"
#include "support/logging.h"

namespace sculpt::codegen {

using backbone::DimId;
using backbone::InstId;

Lowering::Lowering(const gpu_space::Candidate& c)
    : candidate(c),
      kernel(c.backbone().kernel()),
      d(read_decisions(c)),
      inst_index(kernel.inst_capacity(), -1),
      ancestors(kernel.inst_capacity()),
      array_of(kernel.inst_capacity(), -1),
      array_dims_of(kernel.inst_capacity()),
      is_init(kernel.inst_capacity(), false),
      memory_of(kernel.mem_capacity(), -1),
      temp_stride(kernel.mapping_capacity(), 0) {
  out.name = kernel.name();
}

bool Lowering::is_ancestor(int dim, InstId inst) const {
  const LoopDim& loop = out.dims[dim];
  if (loop.kind == LoopKind::kBlock) return true;  // blocks hold everything
  const std::vector<int>& around = ancestors[inst.value];
  return std::find(around.begin(), around.end(), dim) != around.end();
}

int Lowering::reader_dim(DimId producer_dim, InstId reader, backbone::CommId comm) const {
  int dim = loop_dim(producer_dim);
  if (comm.valid()) {
    for (backbone::DimMappingId m : kernel.comm(comm).mappings) {
      if (kernel.mapping(m).src == producer_dim) dim = loop_dim(kernel.mapping(m).dst);
    }
  }
  SCULPT_CHECK(is_ancestor(dim, reader))
      << kernel.inst(reader).name << " reads a value outside the loop of "
      << kernel.dim(producer_dim).name;
  return dim;
}

IndexExpr Lowering::logical_index(InstId inst, const backbone::AffineExpr& expr) const {
  IndexExpr index;
  index.constant = expr.constant;
  for (const backbone::AffineTerm& term : expr.terms) {
    const std::optional<backbone::LoopId> loop = kernel.loop_of(inst, term.logical);
    SCULPT_CHECK(loop) << kernel.inst(inst).name << " indexes by a dimension it is not in";
    // Strip-mining: each dimension steps over the product of the tiles inside it.
    std::int64_t step = term.coeff;
    const std::vector<DimId> dims = kernel.loop(*loop).dims();
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
      index.add(loop_dim(*it), step);
      step *= d.static_size[it->value];
    }
  }
  return index;
}

LoweredKernel lower(const gpu_space::Candidate& candidate) {
  const bool log = std::getenv("SCULPT_LOG_LOWERING") != nullptr;
  Lowering l(candidate);
  const std::pair<const char*, void (*)(Lowering&)> steps[] = {
      {"build the loop tree", build_loop_tree}, {"assign registers", assign_registers},
      {"lay out memory", lay_out_memory},       {"lower instructions", lower_instructions},
      {"place barriers", place_barriers},
  };
  for (const auto& [name, step] : steps) {
    const auto start = std::chrono::steady_clock::now();
    step(l);
    if (log) {
      spdlog::info(
          "lowering {}: {}: {:.3f} ms", l.out.name, name,
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count());
    }
  }
  if (log) spdlog::info("lowered {}:\n{}", l.out.name, l.out.dump());
  // The space bounds these; a candidate beyond them is a bug in the space.
  const gpu_space::DeviceDescription& device = candidate.backbone().device();
  SCULPT_CHECK(l.out.num_threads() <= device.max_threads_per_block)
      << l.out.name << ": " << l.out.num_threads() << " threads per block";
  for (int level = 0; level < 3; ++level) {
    SCULPT_CHECK(l.out.block_size[level] <= device.max_thread_level_size[level])
        << l.out.name << ": " << l.out.block_size[level] << " threads on level " << level;
  }
  SCULPT_CHECK(l.out.shared_bytes() <= device.shared_mem_per_block)
      << l.out.name << ": " << l.out.shared_bytes() << " bytes of shared memory";
  return std::move(l.out);
}

}  // namespace sculpt::codegen
