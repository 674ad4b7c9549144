#include "backbone/kernel.h"

#include <algorithm>
#include <sstream>

#include "support/check.h"

namespace sculpt::backbone {

std::string_view elem_type_name(ElemType type) {
  switch (type) {
    case ElemType::kF32:
      return "f32";
    case ElemType::kF64:
      return "f64";
    case ElemType::kI32:
      return "i32";
  }
  return "?";
}

int64_t elem_type_bytes(ElemType type) { return type == ElemType::kF64 ? 8 : 4; }

std::string_view operator_name(Operator op) {
  switch (op) {
    case Operator::kMov:
      return "mov";
    case Operator::kAdd:
      return "add";
    case Operator::kSub:
      return "sub";
    case Operator::kMul:
      return "mul";
    case Operator::kDiv:
      return "div";
    case Operator::kFma:
      return "fma";
    case Operator::kMin:
      return "min";
    case Operator::kMax:
      return "max";
    case Operator::kExp:
      return "exp";
    case Operator::kSqrt:
      return "sqrt";
    case Operator::kCast:
      return "cast";
    case Operator::kLoad:
      return "load";
    case Operator::kStore:
      return "store";
    case Operator::kLt:
      return "lt";
    case Operator::kLe:
      return "le";
    case Operator::kGt:
      return "gt";
    case Operator::kGe:
      return "ge";
    case Operator::kEq:
      return "eq";
    case Operator::kNe:
      return "ne";
    case Operator::kSelect:
      return "select";
  }
  return "?";
}

int operator_arity(Operator op) {
  switch (op) {
    case Operator::kLoad:
      return 0;
    case Operator::kMov:
    case Operator::kExp:
    case Operator::kSqrt:
    case Operator::kCast:
    case Operator::kStore:
      return 1;
    case Operator::kFma:
    case Operator::kSelect:
      return 3;
    default:
      return 2;
  }
}

bool is_comparison(Operator op) { return op >= Operator::kLt && op <= Operator::kNe; }

std::vector<DimId> Loop::dims() const {
  std::vector<DimId> all{dynamic_dim};
  all.insert(all.end(), tile_dims.begin(), tile_dims.end());
  return all;
}

const std::vector<LoopId>& Instruction::reduction_loops() const {
  static const std::vector<LoopId> kNone;
  for (const Operand& operand : operands) {
    if (operand.kind == Operand::Kind::kReduction) return operand.reduction_loops;
  }
  return kNone;
}

int64_t MemRegion::num_elements() const {
  int64_t last = 0;
  for (size_t i = 0; i < extents.size(); ++i) last += (extents[i] - 1) * strides[i];
  return last + 1;
}

namespace {
template <typename T, typename IdT>
const T& checked_at(const std::vector<T>& objects, IdT id, const char* what) {
  SCULPT_CHECK(id.value < objects.size()) << what << " id " << id.value << " out of range";
  return objects[id.value];
}
}  // namespace

const Instruction& Kernel::inst(InstId id) const {
  return checked_at(data_->insts, id, "instruction");
}
const Dimension& Kernel::dim(DimId id) const { return checked_at(data_->dims, id, "dimension"); }
const Loop& Kernel::loop(LoopId id) const { return checked_at(data_->loops, id, "loop"); }
const LogicalDim& Kernel::logical_dim(LogicalDimId id) const {
  return checked_at(data_->logicals, id, "logical dimension");
}
const MemRegion& Kernel::mem(MemId id) const {
  return checked_at(data_->mems, id, "memory region");
}
const Parameter& Kernel::param(ParamId id) const {
  return checked_at(data_->params, id, "parameter");
}
const DimMapping& Kernel::mapping(DimMappingId id) const {
  return checked_at(data_->mappings, id, "dim mapping");
}
const Communication& Kernel::comm(CommId id) const {
  return checked_at(data_->comms, id, "communication");
}

Kernel::Kernel(std::string name) : data_(std::make_shared<Data>()) {
  data_->name = std::move(name);
}

Kernel::Source Kernel::source(const Operand& operand) const {
  if (operand.kind == Operand::Kind::kValue && operand.comm.valid() && lowered(operand.comm)) {
    const Communication& lowered_comm = comm(operand.comm);
    return {lowered_comm.load, lowered_comm.read};
  }
  return {operand.inst, operand.comm};
}

std::vector<ProgramNode> Kernel::present(const std::vector<ProgramNode>& nodes) const {
  std::vector<ProgramNode> out;
  out.reserve(nodes.size());
  for (const ProgramNode& node : nodes) {
    // A loop is present with its dimensions: the copies a load iterates on come with it.
    if (node.loop ? added(dim(loop(*node.loop).dynamic_dim)) : added(inst(*node.inst))) {
      out.push_back(node);
    }
  }
  return out;
}

std::vector<ProgramNode> Kernel::body() const { return present(data_->body); }

std::vector<ProgramNode> Kernel::body(LoopId loop) const {
  return present(data_->loop_bodies.at(loop.value));
}

void Kernel::statement_out_of_range(StmtId id) const {
  support::CheckFailure("id.value < data_->stmt_position.size()", __FILE__, __LINE__)
      << "statement id " << id.value << " out of range (" << data_->stmt_position.size() << ")";
}

void Kernel::number_statements() {
  data_->stmt_of_inst.assign(data_->insts.size(), StmtId());
  data_->stmt_of_dim.assign(data_->dims.size(), StmtId());
  data_->stmt_position.clear();
  auto next_id = [&] { return StmtId(static_cast<uint32_t>(data_->stmt_position.size())); };
  for (const bool present : {true, false}) {
    for (Instruction& inst : data_->insts) {
      if (inst.added_by.valid() == present) continue;
      inst.stmt_id_ = data_->stmt_of_inst[inst.id.value] = next_id();
      data_->stmt_position.push_back(inst.id.value);
    }
    for (Dimension& dim : data_->dims) {
      if (dim.added_by.valid() == present) continue;
      dim.stmt_id_ = data_->stmt_of_dim[dim.id.value] = next_id();
      data_->stmt_position.push_back(inst_capacity() + dim.id.value);
    }
  }
}

std::vector<const Instruction*> Kernel::instructions() const {
  std::vector<const Instruction*> out;
  for (const Instruction& inst : data_->insts) {
    if (added(inst)) out.push_back(&inst);
  }
  return out;
}

std::vector<const Instruction*> Kernel::mem_instructions() const {
  std::vector<const Instruction*> out;
  for (const Instruction& inst : data_->insts) {
    if (added(inst) && inst.is_mem()) out.push_back(&inst);
  }
  return out;
}

std::vector<const Dimension*> Kernel::dimensions() const {
  std::vector<const Dimension*> out;
  for (const Dimension& dim : data_->dims) {
    if (added(dim)) out.push_back(&dim);
  }
  return out;
}

std::vector<const Dimension*> Kernel::static_dims() const {
  std::vector<const Dimension*> out;
  for (const Dimension& dim : data_->dims) {
    if (added(dim) && dim.is_static()) out.push_back(&dim);
  }
  return out;
}

std::vector<const Statement*> Kernel::statements() const {
  std::vector<const Statement*> out;
  for (std::uint32_t s = 0; s < data_->stmt_position.size(); ++s) {
    const Statement& stmt = statement(StmtId(s));
    if (stmt.as_inst() ? added(*stmt.as_inst()) : added(*stmt.as_dim())) out.push_back(&stmt);
  }
  return out;
}

namespace {

/// The statement ids of the objects (pre-allocated ones included) that `keep` accepts.
template <typename Object, typename Keep>
std::vector<StmtId> stmt_ids_where(const std::vector<Object>& objects, Keep keep) {
  std::vector<StmtId> out;
  for (const Object& object : objects) {
    if (keep(object)) out.push_back(object.stmt_id());
  }
  return out;
}

}  // namespace

std::vector<StmtId> Kernel::inst_stmt_ids() const {
  return stmt_ids_where(data_->insts, [](const Instruction&) { return true; });
}

std::vector<StmtId> Kernel::mem_inst_stmt_ids() const {
  return stmt_ids_where(data_->insts, [](const Instruction& inst) { return inst.is_mem(); });
}

std::vector<StmtId> Kernel::dim_stmt_ids() const {
  return stmt_ids_where(data_->dims, [](const Dimension&) { return true; });
}

std::vector<StmtId> Kernel::static_dim_stmt_ids() const {
  return stmt_ids_where(data_->dims, [](const Dimension& dim) { return dim.is_static(); });
}

std::vector<const MemRegion*> Kernel::mem_regions() const {
  std::vector<const MemRegion*> out;
  for (const MemRegion& mem : data_->mems) {
    if (added(mem)) out.push_back(&mem);
  }
  return out;
}

std::vector<const DimMapping*> Kernel::dim_mappings() const {
  std::vector<const DimMapping*> out;
  for (const DimMapping& mapping : data_->mappings) {
    if (added(mapping)) out.push_back(&mapping);
  }
  return out;
}

std::vector<const LogicalDim*> Kernel::logical_dims() const {
  std::vector<const LogicalDim*> out;
  for (const LogicalDim& logical : data_->logicals) out.push_back(&logical);
  return out;
}

std::vector<const Dimension*> Kernel::tile_dims(LogicalDimId logical) const {
  std::vector<const Dimension*> out;
  for (LoopId loop_id : logical_dim(logical).loops) {
    for (DimId dim : loop(loop_id).tile_dims) {
      if (added(data_->dims[dim.value])) out.push_back(&data_->dims[dim.value]);
    }
  }
  return out;
}

std::vector<DimId> Kernel::dims_of(InstId id) const {
  std::vector<DimId> out;
  for (LoopId loop_id : inst(id).loops) {
    const std::vector<DimId> dims = loop(loop_id).dims();
    out.insert(out.end(), dims.begin(), dims.end());
  }
  return out;
}

std::optional<LoopId> Kernel::loop_of(InstId id, LogicalDimId logical) const {
  for (LoopId loop_id : inst(id).loops) {
    if (loop(loop_id).logical == logical) return loop_id;
  }
  return std::nullopt;
}

std::vector<std::pair<DimId, int64_t>> Kernel::access_strides(
    InstId id, const std::function<int64_t(DimId)>& static_size) const {
  const Instruction& mem_inst = inst(id);
  SCULPT_CHECK(mem_inst.access) << mem_inst.name << " accesses no memory";
  std::vector<std::pair<DimId, int64_t>> strides;
  for (LoopId loop_id : mem_inst.loops) {
    const Loop& loop = this->loop(loop_id);
    int64_t logical_stride = 0;
    for (const AffineTerm& term : mem_inst.access->index.terms) {
      if (term.logical == loop.logical) logical_stride += term.coeff;
    }
    // Inner to outer: each dimension steps over the product of the tile sizes inside it.
    std::vector<std::pair<DimId, int64_t>> loop_strides;
    int64_t step = logical_stride;
    for (auto it = loop.tile_dims.rbegin(); it != loop.tile_dims.rend(); ++it) {
      loop_strides.emplace_back(*it, step);
      step *= static_size(*it);
    }
    loop_strides.emplace_back(loop.dynamic_dim, step);
    strides.insert(strides.end(), loop_strides.rbegin(), loop_strides.rend());
  }
  return strides;
}

int64_t Kernel::dynamic_size(DimId dim_id, const std::function<int64_t(DimId)>& static_size) const {
  const Dimension& dynamic = dim(dim_id);
  SCULPT_CHECK(!dynamic.is_static()) << dynamic.name << " is a static dimension";
  int64_t tiles = 1;
  for (DimId tile : loop(dynamic.loop).tile_dims) tiles *= static_size(tile);
  return logical_dim(dynamic.logical).size / tiles;
}

Kernel::TempLayout Kernel::temp_layout(MemId temp, const std::function<bool(DimMappingId)>& indexed,
                                       const std::function<int64_t(DimId)>& dim_size,
                                       const std::function<int(DimMappingId)>& inner) const {
  const MemRegion& region = mem(temp);
  SCULPT_CHECK(region.kind == MemRegion::Kind::kTemporary) << region.name << " is no temporary";
  std::vector<DimMappingId> order = region.layout_mappings;
  if (inner) {
    std::stable_sort(order.begin(), order.end(),
                     [&](DimMappingId a, DimMappingId b) { return inner(a) < inner(b); });
  }
  TempLayout layout;
  layout.strides.resize(order.size());
  for (size_t i = order.size(); i-- > 0;) {
    const DimMappingId id = order[i];
    layout.strides[i] = {id, indexed(id) ? layout.elements : 0};
    if (indexed(id)) layout.elements *= dim_size(mapping(id).src);
  }
  return layout;
}

std::vector<LoopId> Kernel::storage_loops(InstId id) const {
  std::vector<LoopId> loops;
  const std::vector<LoopId>& reduced = inst(id).reduction_loops();
  for (LoopId loop : inst(id).loops) {
    if (std::find(reduced.begin(), reduced.end(), loop) == reduced.end()) loops.push_back(loop);
  }
  return loops;
}

std::vector<LoopId> Kernel::value_index_loops(InstId producer, InstId reader,
                                              CommId comm_id) const {
  const std::vector<LoopId>& reader_loops = inst(reader).loops;
  std::vector<LoopId> index_loops;
  for (LoopId loop : storage_loops(producer)) {
    if (std::find(reader_loops.begin(), reader_loops.end(), loop) != reader_loops.end()) {
      index_loops.push_back(loop);
      continue;
    }
    SCULPT_CHECK(comm_id.valid()) << inst(reader).name << " reads " << inst(producer).name
                                  << " outside of its loop L" << loop.value;
    const auto& pairs = comm(comm_id).loop_pairs;
    auto it = std::find_if(pairs.begin(), pairs.end(),
                           [&](const auto& pair) { return pair.first == loop; });
    SCULPT_CHECK(it != pairs.end()) << "loop L" << loop.value << " is not communicated";
    index_loops.push_back(it->second);
  }
  return index_loops;
}

DimId Kernel::load_dim(CommId comm_id, DimId consumer_dim) const {
  for (DimMappingId m : comm(comm(comm_id).read).mappings) {
    if (mapping(m).dst == consumer_dim) return mapping(m).src;
  }
  return consumer_dim;
}

std::optional<int64_t> Kernel::size_value(std::string_view name) const {
  for (const Parameter& param : data_->params) {
    if (param.kind == Parameter::Kind::kSize && param.name == name) return param.size_value;
  }
  return std::nullopt;
}

namespace {

std::string affine_to_string(const Kernel& kernel, const AffineExpr& expr) {
  std::ostringstream out;
  bool first = true;
  for (const AffineTerm& term : expr.terms) {
    if (!first) out << " + ";
    first = false;
    if (term.coeff != 1) out << term.coeff << "*";
    out << kernel.logical_dim(term.logical).name;
  }
  if (expr.constant != 0 || first) out << (first ? "" : " + ") << expr.constant;
  return out.str();
}

std::string operand_to_string(const Kernel& kernel, const Operand& operand) {
  std::ostringstream out;
  switch (operand.kind) {
    case Operand::Kind::kConstant:
      out << operand.constant;
      break;
    case Operand::Kind::kParam:
      out << kernel.param(operand.param).name;
      break;
    case Operand::Kind::kIndex:
      out << "idx(" << affine_to_string(kernel, operand.index) << ")";
      break;
    case Operand::Kind::kValue:
      out << kernel.inst(kernel.source(operand).inst).name;
      break;
    case Operand::Kind::kReduction:
      out << "reduce(init " << kernel.inst(operand.inst).name << ")";
  }
  if (const CommId comm_id = kernel.source(operand).comm; comm_id.valid()) {
    out << "[";
    const Communication& comm = kernel.comm(comm_id);
    for (size_t i = 0; i < comm.loop_pairs.size(); ++i) {
      out << (i ? ", " : "") << "L" << comm.loop_pairs[i].first.value << "->L"
          << comm.loop_pairs[i].second.value;
    }
    out << "]";
  }
  return out.str();
}

void print_body(const Kernel& kernel, const std::vector<ProgramNode>& body, int depth,
                std::ostringstream& out) {
  const std::string indent(2 * depth, ' ');
  for (const ProgramNode& node : body) {
    if (node.loop) {
      const Loop& loop = kernel.loop(*node.loop);
      const LogicalDim& logical = kernel.logical_dim(loop.logical);
      out << indent << "loop L" << loop.id.value << " " << logical.name << " < " << logical.size
          << " dims";
      for (DimId dim : loop.dims()) out << " " << kernel.dim(dim).name;
      out << "\n";
      print_body(kernel, kernel.body(*node.loop), depth + 1, out);
      continue;
    }
    const Instruction& inst = kernel.inst(*node.inst);
    out << indent << inst.name << " = " << operator_name(inst.op) << "."
        << elem_type_name(inst.type);
    if (inst.access) {
      out << " " << kernel.mem(inst.access->mem).name << "["
          << affine_to_string(kernel, inst.access->index) << "]";
    }
    for (const Operand& operand : inst.operands) out << " " << operand_to_string(kernel, operand);
    out << "\n";
  }
}

}  // namespace

std::string Kernel::to_string() const {
  std::ostringstream out;
  out << "kernel " << data_->name << "(";
  for (size_t i = 0; i < data_->params.size(); ++i) {
    const Parameter& param = data_->params[i];
    out << (i ? ", " : "") << param.name;
    if (param.kind == Parameter::Kind::kSize) out << "=" << param.size_value;
    if (param.kind == Parameter::Kind::kArray) out << "[]";
    out << ":" << elem_type_name(param.type);
  }
  out << ")\n";
  print_body(*this, body(), 1, out);
  return out.str();
}

std::string too_large_to_search(const Kernel& kernel) {
  if (kernel.dim_capacity() > kMaxDimensions) {
    return "its " + std::to_string(kernel.dim_capacity()) +
           " loop dimensions (a copy of each index for each instruction, their tiles, and those "
           "of the temporaries it may use) are more than the " +
           std::to_string(kMaxDimensions) + " a search takes";
  }
  if (kernel.inst_capacity() > kMaxInstructions) {
    return "its " + std::to_string(kernel.inst_capacity()) +
           " instructions (with the loads and stores of the temporaries it may use) are more "
           "than the " +
           std::to_string(kMaxInstructions) + " a search takes";
  }
  return {};
}

}  // namespace sculpt::backbone
