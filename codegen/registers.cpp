// Pass: registers. A value lives in one register per iteration of the unrolled or vectorised
// dimensions that index it (its own storage dims of those kinds); a reduction's init writes
// straight into the reduction's accumulators, which it thereby initialises.
#include <algorithm>

#include "codegen/lowering.h"
#include "support/check.h"

namespace sculpt::codegen {

using backbone::DimId;
using backbone::InstId;
using backbone::LoopId;

namespace {

bool register_indexed(LoopKind kind) {
  return kind == LoopKind::kUnroll || kind == LoopKind::kVector;
}

}  // namespace

void assign_registers(Lowering& l) {
  const backbone::Kernel& kernel = l.kernel;
  for (const backbone::Instruction* inst : kernel.instructions()) {
    for (const backbone::Operand& op : inst->operands) {
      if (op.kind == backbone::Operand::Kind::kReduction) l.is_init[op.inst.value] = true;
    }
  }
  for (const backbone::Instruction* inst : kernel.instructions()) {
    if (!inst->has_value() || l.is_init[inst->id.value]) continue;
    RegisterArray array;
    array.name = "r_" + inst->name;
    array.type = inst->type;
    std::vector<DimId> own;
    for (LoopId loop : kernel.storage_loops(inst->id)) {
      for (DimId dim : kernel.loop(loop).dims()) {
        if (register_indexed(l.out.dims[l.loop_dim(dim)].kind)) own.push_back(dim);
      }
    }
    // Outer to inner, as the instruction sees its dims.
    const std::vector<int>& around = l.ancestors[inst->id.value];
    auto depth = [&](DimId dim) {
      return std::find(around.begin(), around.end(), l.loop_dim(dim)) - around.begin();
    };
    std::sort(own.begin(), own.end(), [&](DimId a, DimId b) { return depth(a) < depth(b); });
    for (DimId dim : own) array.dims.push_back(l.loop_dim(dim));
    l.array_of[inst->id.value] = static_cast<int>(l.out.registers.size());
    l.array_dims_of[inst->id.value] = std::move(own);
    l.out.registers.push_back(std::move(array));
  }
  // Inits write their reduction's accumulators: the init's dim mapped to each of them.
  for (const backbone::Instruction* inst : kernel.instructions()) {
    for (const backbone::Operand& op : inst->operands) {
      if (op.kind != backbone::Operand::Kind::kReduction) continue;
      const InstId init = op.inst;
      std::vector<DimId> init_dims;
      for (DimId reduction_dim : l.array_dims_of[inst->id.value]) {
        DimId found;
        if (op.comm.valid()) {
          for (backbone::DimMappingId m : kernel.comm(op.comm).mappings) {
            if (kernel.mapping(m).dst == reduction_dim) found = kernel.mapping(m).src;
          }
        }
        if (!found.valid()) found = reduction_dim;  // a loop both sit in
        SCULPT_CHECK(l.is_ancestor(l.loop_dim(found), init))
            << kernel.inst(init).name << " does not run in the dimension initialising "
            << kernel.dim(reduction_dim).name;
        SCULPT_CHECK(l.out.dims[l.loop_dim(found)].size ==
                     l.out.dims[l.loop_dim(reduction_dim)].size)
            << "init dimension sizes differ";
        init_dims.push_back(found);
      }
      l.array_of[init.value] = l.array_of[inst->id.value];
      l.array_dims_of[init.value] = std::move(init_dims);
    }
  }
}

}  // namespace sculpt::codegen
