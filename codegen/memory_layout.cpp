// Pass: memory. Parameters keep their layout; a temporary is row-major over its dim mappings.
// In shared memory it holds one block's tile: a slot per iteration of each pair that is not
// merged, and of each merged pair of thread dimensions (its threads run that iteration side by
// side, each with its own value; limits.space counts the same). In global memory every pair has its slots, merged ones too, so that blocks running
// the same code never share a slot with different values (see limits.space). The pairs a
// vector access runs along go innermost, so that the access is contiguous.
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
    auto vector_at = [&](DimMappingId m, bool load_side) {
      const backbone::DimMapping& mapping = kernel.mapping(m);
      return l.out.dims[l.loop_dim(load_side ? mapping.dst : mapping.src)].kind == LoopKind::kVector;
    };
    bool load_side = false;
    for (DimMappingId m : mem->layout_mappings) load_side = load_side || vector_at(m, true);
    const backbone::Kernel::TempLayout layout = kernel.temp_layout(
        mem->id,
        [&](DimMappingId m) {
          return !shared || l.d.mapping[m.value] != MappingImpl::kMerged ||
                 l.out.dims[l.loop_dim(kernel.mapping(m).src)].kind == LoopKind::kThread;
        },
        [&](backbone::DimId dim) { return l.d.static_size[dim.value]; },
        [&](DimMappingId m) { return vector_at(m, load_side); });
    for (const auto& [m, stride] : layout.strides) l.temp_stride[m.value] = stride;
    l.memory_of[mem->id.value] = static_cast<int>(l.out.memories.size());
    l.out.memories.push_back(Memory{shared ? Memory::Kind::kShared : Memory::Kind::kGlobal,
                                    mem->name, mem->type, -1, layout.elements});
  }
}

}  // namespace sculpt::codegen
