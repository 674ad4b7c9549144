#include "perf_model/kernel_facts.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "support/check.h"

namespace sculpt::perf_model {

using backbone::ElemType;
using backbone::InstId;
using backbone::Instruction;
using backbone::LogicalDimId;
using backbone::LoopId;
using backbone::Operand;
using backbone::Operator;

namespace {

constexpr double kSectorBytes = 32;

void add(ClassCounts& counts, InstrClass c, double n = 1) {
  counts[static_cast<std::size_t>(c)] += n;
}

/// The PTX an instruction becomes (codegen/ptx_printer.cpp), by class.
ClassCounts per_execution(const Instruction& inst) {
  ClassCounts counts{};
  const bool f32 = inst.type == ElemType::kF32;
  const bool f64 = inst.type == ElemType::kF64;
  auto arithmetic = [&](InstrClass fp32_class) {
    add(counts, f32 ? fp32_class : f64 ? InstrClass::fp64 : InstrClass::integer);
  };
  switch (inst.op) {
    case Operator::kMov:
    case Operator::kCast:
      break;  // copies and conversions: a compiler may fold them away
    case Operator::kAdd:
    case Operator::kSub:
      arithmetic(InstrClass::fp32_add);
      break;
    case Operator::kMul:
      arithmetic(InstrClass::fp32_mul);
      break;
    case Operator::kFma:
      arithmetic(InstrClass::fp32_fma);
      break;
    case Operator::kDiv:
    case Operator::kMin:
    case Operator::kMax:
      arithmetic(InstrClass::fp32_other);
      break;
    case Operator::kLt:
    case Operator::kLe:
    case Operator::kGt:
    case Operator::kGe:
    case Operator::kEq:
    case Operator::kNe:
    case Operator::kSelect:
      // A setp (control, left uncharged: a compiler may fuse it into its user) and a selp,
      // which selects bits on the integer pipe whatever their type.
      add(counts, InstrClass::integer);
      break;
    case Operator::kExp:
      add(counts, InstrClass::fp32_mul);  // exp(x) = ex2(x * log2(e))
      add(counts, InstrClass::special);
      break;
    case Operator::kSqrt:
      // sqrt.rn is a sequence: ptxas seeds it with MUFU.RSQ (RSQ64H for f64) and refines the
      // seed by Heron's step, two FMULs and two FFMAs for f32 (longer in DMULs and DFMAs for
      // f64, two charged). What a positive finite input runs: a lower bound but for a warp
      // whose every input is 0, negative, infinite or NaN, which branches around the step.
      add(counts, InstrClass::special);
      if (f64) {
        add(counts, InstrClass::fp64, 2);
      } else {
        add(counts, InstrClass::fp32_mul, 2);
        add(counts, InstrClass::fp32_fma, 2);
      }
      break;
    case Operator::kLoad:
    case Operator::kStore:
      break;  // by memory space, once the candidate says where a temporary lives
  }
  return counts;
}

LatencyKind latency_kind(const Instruction& inst, bool temporary) {
  switch (inst.op) {
    case Operator::kMov:
    case Operator::kCast:
    case Operator::kStore:
      return LatencyKind::none;
    case Operator::kLoad:
      return temporary ? LatencyKind::temp_load : LatencyKind::global_load;
    case Operator::kExp:
    case Operator::kSqrt:  // at least the seed's and one fp32 operation's (the step's are more)
      return LatencyKind::special;
    default:
      return inst.type == ElemType::kF64 ? LatencyKind::fp64 : LatencyKind::fp32;
  }
}

void add_logicals(std::vector<LogicalDimId>& to, const backbone::AffineExpr& expr) {
  for (const backbone::AffineTerm& term : expr.terms) {
    if (term.coeff != 0) to.push_back(term.logical);
  }
}

void normalize(std::vector<LogicalDimId>& dims) {
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
}

/// The logical dimensions an instruction's value depends on (memoised over `deps`).
const std::vector<LogicalDimId>& value_deps(const backbone::Kernel& kernel, InstId id,
                                            std::vector<std::vector<LogicalDimId>>& deps,
                                            std::vector<bool>& done) {
  if (done[id.value]) return deps[id.value];
  done[id.value] = true;  // the backbone's value flow is acyclic
  const Instruction& inst = kernel.inst(id);
  std::vector<LogicalDimId> out;
  if (inst.op == Operator::kLoad) {
    const backbone::MemRegion& mem = kernel.mem(inst.access->mem);
    if (mem.kind == backbone::MemRegion::Kind::kTemporary) {
      // A temporary's load reads the producer's value, in copies of the consumer's loops.
      const backbone::Communication& comm = kernel.comm(mem.added_by);
      out = value_deps(kernel, comm.producer, deps, done);
    } else {
      add_logicals(out, inst.access->index);
    }
  } else if (inst.op == Operator::kStore) {
    // A store's work is its address (a temporary's: the stored value's dimensions).
    const backbone::MemRegion& mem = kernel.mem(inst.access->mem);
    if (mem.kind == backbone::MemRegion::Kind::kTemporary) {
      out = value_deps(kernel, kernel.comm(mem.added_by).producer, deps, done);
    } else {
      add_logicals(out, inst.access->index);
    }
  } else {
    for (const Operand& op : inst.operands) {
      switch (op.kind) {
        case Operand::Kind::kIndex:
          add_logicals(out, op.index);
          break;
        case Operand::Kind::kValue:
        case Operand::Kind::kReduction: {
          const std::vector<LogicalDimId>& from = value_deps(kernel, op.inst, deps, done);
          out.insert(out.end(), from.begin(), from.end());
          for (LoopId loop : op.reduction_loops) out.push_back(kernel.loop(loop).logical);
          break;
        }
        case Operand::Kind::kConstant:
        case Operand::Kind::kParam:
          break;
      }
    }
  }
  normalize(out);
  // Only the instruction's own loops can make its iterations differ.
  std::vector<LogicalDimId> own;
  for (LogicalDimId l : out) {
    if (kernel.loop_of(id, l)) own.push_back(l);
  }
  deps[id.value] = std::move(own);
  return deps[id.value];
}

/// What an affine access touches over its iteration space.
struct Footprint {
  double elements = 0;  ///< distinct elements
  double sectors = 0;   ///< distinct 32-byte sectors
  bool injective = true;
};

Footprint footprint(const backbone::Kernel& kernel, const Instruction& inst) {
  struct Term {
    std::int64_t coeff;
    std::int64_t size;
  };
  std::vector<Term> terms;
  for (const backbone::AffineTerm& t : inst.access->index.terms) {
    if (t.coeff != 0 && kernel.loop_of(inst.id, t.logical)) {
      terms.push_back({std::abs(t.coeff), kernel.logical_dim(t.logical).size});
    }
  }
  std::sort(terms.begin(), terms.end(),
            [](const Term& a, const Term& b) { return a.coeff < b.coeff; });
  // Mixed radix (each coefficient beyond the span of the smaller ones): every point distinct.
  bool injective = true;
  std::int64_t span = 0;
  double points = 1;
  double largest = 1;
  for (const Term& t : terms) {
    injective = injective && t.coeff > span;
    span += t.coeff * (t.size - 1);
    points *= static_cast<double>(t.size);
    largest = std::max(largest, static_cast<double>(t.size));
  }
  const double elements = injective ? points : largest;
  const double bytes = static_cast<double>(backbone::elem_type_bytes(inst.type));
  // Elements at least a sector apart never share one.
  const bool apart =
      !terms.empty() && static_cast<double>(terms.front().coeff) * bytes >= kSectorBytes;
  const double sectors = apart ? elements : std::ceil(elements * bytes / kSectorBytes);
  return {elements, sectors, injective};
}

}  // namespace

KernelFacts::KernelFacts(const backbone::Kernel& kernel)
    : insts(kernel.inst_capacity()), array_sectors(kernel.mem_capacity(), 0) {
  std::vector<std::vector<LogicalDimId>> deps(kernel.inst_capacity());
  std::vector<bool> done(kernel.inst_capacity(), false);
  std::vector<double> array_elements(kernel.mem_capacity(), 0);
  for (std::uint32_t i = 0; i < kernel.inst_capacity(); ++i) {
    const Instruction& inst = kernel.inst(InstId(i));
    InstFacts& f = insts[i];
    f.is_load = inst.op == Operator::kLoad;
    f.is_store = inst.op == Operator::kStore;
    f.temporary =
        inst.access && kernel.mem(inst.access->mem).kind == backbone::MemRegion::Kind::kTemporary;
    f.elem_bytes = backbone::elem_type_bytes(inst.type);
    f.per_execution = per_execution(inst);
    f.latency = latency_kind(inst, f.temporary);
    // A temporary holds one element per value it copies.
    f.injective = f.temporary;
    f.deps = value_deps(kernel, inst.id, deps, done);
    for (std::uint32_t position = 0; position < inst.loops.size(); ++position) {
      const LoopId loop = inst.loops[position];
      const bool dep = std::binary_search(f.deps.begin(), f.deps.end(), kernel.loop(loop).logical);
      if (dep)
        f.distinct *= static_cast<double>(kernel.logical_dim(kernel.loop(loop).logical).size);
      for (backbone::DimId d : kernel.loop(loop).dims()) {
        f.dims.push_back(d);
        f.dep_dim.push_back(dep);
        f.dim_loop.push_back(position);
        f.dim_logical.push_back(kernel.loop(loop).logical);
      }
    }
    for (LoopId loop : inst.reduction_loops()) {
      f.reduction_length *= static_cast<double>(kernel.logical_dim(kernel.loop(loop).logical).size);
      for (backbone::DimId d : kernel.loop(loop).dims()) f.reduction_dims.push_back(d);
    }
    for (LoopId loop : kernel.storage_loops(inst.id)) {
      for (backbone::DimId d : kernel.loop(loop).dims()) f.storage_dims.push_back(d);
    }
    if (inst.access && !f.temporary) {
      const Footprint touched = footprint(kernel, inst);
      f.footprint_sectors = touched.sectors;
      f.injective = touched.injective;
      const std::uint32_t mem = inst.access->mem.value;
      array_sectors[mem] = std::max(array_sectors[mem], touched.sectors);
      array_elements[mem] = std::max(array_elements[mem], touched.elements);
    }
  }
  for (const backbone::MemRegion* mem : kernel.mem_regions()) {
    if (mem->kind == backbone::MemRegion::Kind::kTemporary) continue;
    compulsory_bytes += array_sectors[mem->id.value] * kSectorBytes;
    footprint_bytes +=
        array_elements[mem->id.value] * static_cast<double>(backbone::elem_type_bytes(mem->type));
  }
}

}  // namespace sculpt::perf_model
