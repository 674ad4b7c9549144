// Pass: memory. Parameters keep their layout; a temporary gets the layout its fixed choices
// imply (gpu_space::fixed_temp_layout, which the performance model reads too).
#include "codegen/lowering.h"
#include "gpu_space/fixed_choices.h"
#include "support/check.h"

namespace sculpt::codegen {

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
    const std::optional<backbone::Kernel::TempLayout> layout =
        gpu_space::fixed_temp_layout(l.candidate, mem->id);
    SCULPT_CHECK(layout) << "the layout of " << mem->name << " is not fixed";
    for (const auto& [m, stride] : layout->strides) l.temp_stride[m.value] = stride;
    l.memory_of[mem->id.value] = static_cast<int>(l.out.memories.size());
    l.out.memories.push_back(Memory{shared ? Memory::Kind::kShared : Memory::Kind::kGlobal,
                                    mem->name, mem->type, -1, layout->elements});
  }
}

}  // namespace sculpt::codegen
