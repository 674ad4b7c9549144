// Pass: memory. Parameters keep their layout; a temporary is row-major over its dim mappings.
// In shared memory it holds one block's tile: a slot per iteration of each pair that is not
// merged, and of each merged pair of thread dimensions (its threads run that iteration side by
// side, each with its own value; limits.space counts the same). In global memory every pair has its slots, merged ones too, so that blocks running
// the same code never share a slot with different values (see limits.space). The pairs a
// vector access runs along go innermost, then those threads of level x read along.
#include "codegen/lowering.h"
#include "support/check.h"

namespace sculpt::codegen {

using backbone::DimMappingId;

void lay_out_memory(Lowering& l) {
  const backbone::Kernel& kernel = l.kernel;
  for (const backbone::Parameter& param : kernel.params()) {
    Param p;
    p.name = param.name;
    p.type = param.type;
    p.is_array = param.kind == backbone::Parameter::Kind::kArray;
    p.is_size = param.kind == backbone::Parameter::Kind::kSize;
    p.size_value = param.size_value;
    l.out.params.push_back(p);
    if (!p.is_array) continue;
    const backbone::MemRegion& mem = kernel.mem(param.mem);
    l.memory_of[mem.id.value] = static_cast<int>(l.out.memories.size());
    l.out.memories.push_back(
        Memory{Memory::Kind::kParam, mem.name, mem.type, static_cast<int>(param.id.value), 0});
  }
  for (const backbone::MemRegion* mem : kernel.mem_regions()) {
    if (mem->kind != backbone::MemRegion::Kind::kTemporary) continue;
    const bool shared = l.d.shared[mem->id.value];
    // Innermost: the pair a vector access runs along (the load's, else the store's), then the
    // load's pair on thread level x, so that a warp's loads are contiguous (no bank conflicts).
    const backbone::CommId comm = kernel.mapping(mem->layout_mappings.front()).comm;
    auto load_loop = [&](DimMappingId m) {
      return l.out.dims[l.loop_dim(kernel.load_dim(comm, kernel.mapping(m).dst))];
    };
    auto store_loop = [&](DimMappingId m) { return l.out.dims[l.loop_dim(kernel.mapping(m).src)]; };
    bool vector_load = false;
    for (DimMappingId m : mem->layout_mappings) {
      vector_load = vector_load || load_loop(m).kind == LoopKind::kVector;
    }
    auto rank = [&](DimMappingId m) {
      const LoopDim& vector_side = vector_load ? load_loop(m) : store_loop(m);
      if (vector_side.kind == LoopKind::kVector) return 2;
      const LoopDim& load = load_loop(m);
      return load.kind == LoopKind::kThread && load.level == 0 ? 1 : 0;
    };
    const backbone::Kernel::TempLayout layout = kernel.temp_layout(
        mem->id,
        [&](DimMappingId m) {
          return !shared || l.d.mapping[m.value] != MappingImpl::kMerged ||
                 store_loop(m).kind == LoopKind::kThread;
        },
        [&](backbone::DimId dim) { return l.d.static_size[dim.value]; }, rank);
    for (const auto& [m, stride] : layout.strides) l.temp_stride[m.value] = stride;
    l.memory_of[mem->id.value] = static_cast<int>(l.out.memories.size());
    l.out.memories.push_back(Memory{shared ? Memory::Kind::kShared : Memory::Kind::kGlobal,
                                    mem->name, mem->type, -1, layout.elements});
  }
}

}  // namespace sculpt::codegen
