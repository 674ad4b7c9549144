// Pass: instructions. Operands become registers (indexed by the iterations the value is read
// at), constants, parameters or index expressions; loads and stores get their affine index, a
// vector width where the access is contiguous and aligned along an innermost vector loop, and
// their cache operator; thread predicates keep threads beyond a smaller dimension idle and
// let one thread store what every thread of a level would store alike.
#include <algorithm>

#include "codegen/lowering.h"
#include "perf_model/vector_access.h"
#include "support/check.h"

namespace sculpt::codegen {

using backbone::DimId;
using backbone::InstId;

namespace {

RegisterRef own_ref(const Lowering& l, InstId inst) {
  RegisterRef ref{l.array_of[inst.value], {}};
  for (DimId dim : l.array_dims_of[inst.value]) ref.index_dims.push_back(l.loop_dim(dim));
  return ref;
}

/// The index of a temporary's store (along its mappings' sources) or load (destinations).
IndexExpr temp_index(const Lowering& l, const backbone::Instruction& inst) {
  for (const backbone::Communication& comm : l.kernel.comms()) {
    if (!comm.lowerable() || (comm.store != inst.id && comm.load != inst.id)) continue;
    IndexExpr index;
    for (backbone::DimMappingId m : comm.mappings) {
      const backbone::DimMapping& mapping = l.kernel.mapping(m);
      const DimId dim =
          comm.store == inst.id ? mapping.src : l.kernel.load_dim(comm.id, mapping.dst);
      index.add(l.loop_dim(dim), l.temp_stride[m.value]);
    }
    return index;
  }
  SCULPT_CHECK(false) << inst.name << " accesses a temporary it does not implement";
  return {};
}

/// A vector access along the instruction's innermost loop when that loop is a vector loop and
/// the access is one there (perf_model/vector_access.h: the rule the bound charges by).
void vectorize(const Lowering& l, const backbone::Instruction& inst, MemAccess& access) {
  const std::vector<int>& around = l.ancestors[inst.id.value];
  if (around.empty() || l.out.dims[around.back()].kind != LoopKind::kVector) return;
  const int v = around.back();
  const std::int64_t width = l.out.dims[v].size;
  std::vector<std::int64_t> coeffs{access.index.coeff(v)};
  for (const auto& [dim, coeff] : access.index.terms) {
    if (dim != v) coeffs.push_back(coeff);
  }
  const perf_model::AffineAccess affine{coeffs, access.index.constant,
                                        backbone::elem_type_bytes(inst.type)};
  if (!perf_model::is_vector_access(affine, 0, width)) return;
  access.vector_dim = v;
  access.width = static_cast<int>(width);
}

}  // namespace

void lower_instructions(Lowering& l) {
  const backbone::Kernel& kernel = l.kernel;
  for (const backbone::Instruction* inst : kernel.instructions()) {
    Instruction& out = l.out.instructions[l.inst_index[inst->id.value]];
    if (inst->has_value()) out.dest = own_ref(l, inst->id);
    for (const backbone::Operand& op : inst->operands) {
      Operand lowered;
      switch (op.kind) {
        case backbone::Operand::Kind::kConstant:
          lowered.kind = Operand::Kind::kConstant;
          lowered.constant = op.constant;
          break;
        case backbone::Operand::Kind::kParam:
          lowered.kind = Operand::Kind::kParam;
          lowered.param = static_cast<int>(op.param.value);
          break;
        case backbone::Operand::Kind::kIndex:
          lowered.kind = Operand::Kind::kIndex;
          lowered.index = l.logical_index(inst->id, op.index);
          break;
        case backbone::Operand::Kind::kValue: {
          const backbone::Kernel::Source source = kernel.source(op);
          lowered.kind = Operand::Kind::kRegister;
          SCULPT_CHECK(!l.is_init[source.inst.value])
              << inst->name << " reads the initial value of a reduction";
          lowered.reg.array = l.array_of[source.inst.value];
          for (DimId dim : l.array_dims_of[source.inst.value]) {
            lowered.reg.index_dims.push_back(l.reader_dim(dim, inst->id, source.comm));
          }
          break;
        }
        case backbone::Operand::Kind::kReduction:
          lowered.kind = Operand::Kind::kRegister;
          lowered.reg = own_ref(l, inst->id);
          break;
      }
      out.operands.push_back(std::move(lowered));
    }
    if (inst->access) {
      const backbone::MemRegion& mem = kernel.mem(inst->access->mem);
      MemAccess access;
      access.memory = l.memory_of[mem.id.value];
      const bool temp = mem.kind == backbone::MemRegion::Kind::kTemporary;
      access.index = temp ? temp_index(l, *inst) : l.logical_index(inst->id, inst->access->index);
      access.cache = temp && l.d.shared[mem.id.value] ? Cache::kAll : l.d.cache[inst->id.value];
      vectorize(l, *inst, access);
      out.access = std::move(access);
    }
    // Thread predicates: a thread dimension smaller than its level leaves threads idle.
    const std::vector<DimId> own = kernel.dims_of(inst->id);
    std::array<bool, 3> depends{false, false, false};
    for (int dim : l.ancestors[inst->id.value]) {
      const LoopDim& loop = l.out.dims[dim];
      if (loop.kind != LoopKind::kThread) continue;
      const bool is_own = std::any_of(loop.members.begin(), loop.members.end(), [&](DimId m) {
        return std::find(own.begin(), own.end(), m) != own.end();
      });
      if (!is_own) continue;
      depends[loop.level] = true;
      if (loop.size < l.out.block_size[loop.level])
        out.predicates.push_back({loop.level, loop.size});
    }
    if (inst->op == backbone::Operator::kStore) {
      for (int level = 0; level < 3; ++level) {
        if (!depends[level] && l.out.block_size[level] > 1) out.predicates.push_back({level, 0});
      }
    }
  }
}

}  // namespace sculpt::codegen
