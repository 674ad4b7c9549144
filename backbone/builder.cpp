#include "backbone/builder.h"

#include <algorithm>

#include "support/check.h"

namespace sculpt::backbone {

std::vector<int64_t> Tiling::range(int64_t lo, int64_t hi) {
  std::vector<int64_t> values;
  for (int64_t v = lo; v <= hi; ++v) values.push_back(v);
  return values;
}

Index operator+(Index index, int64_t constant) {
  index.expr.constant += constant;
  return index;
}

Index operator-(Index index, int64_t constant) { return std::move(index) + (-constant); }

Index operator+(Index lhs, const Index& rhs) {
  for (const AffineTerm& term : rhs.expr.terms) lhs.expr.terms.push_back(term);
  lhs.expr.constant += rhs.expr.constant;
  return lhs;
}

Index operator*(int64_t coeff, Index index) {
  for (AffineTerm& term : index.expr.terms) term.coeff *= coeff;
  index.expr.constant *= coeff;
  return index;
}

Builder::Builder(std::string kernel_name) : kernel_(std::move(kernel_name)) {}

Size Builder::size(std::string name, int64_t value) {
  SCULPT_CHECK(value > 0) << "size " << name << " must be positive, got " << value;
  Parameter param;
  param.id = ParamId(static_cast<uint32_t>(data().params.size()));
  param.name = std::move(name);
  param.kind = Parameter::Kind::kSize;
  param.type = ElemType::kI32;
  param.size_value = value;
  data().params.push_back(param);
  return Size{param.id, value};
}

Value Builder::scalar(std::string name, ElemType type) {
  Parameter param;
  param.id = ParamId(static_cast<uint32_t>(data().params.size()));
  param.name = std::move(name);
  param.kind = Parameter::Kind::kScalar;
  param.type = type;
  data().params.push_back(param);
  Value value;
  value.kind = Operand::Kind::kParam;
  value.param = param.id;
  value.type = type;
  return value;
}

Array Builder::array(std::string name, ElemType type, std::vector<Size> shape, MemRegion::Kind kind,
                     std::vector<int64_t> strides) {
  SCULPT_CHECK(kind != MemRegion::Kind::kTemporary) << "temporaries come from lowerings";
  MemRegion mem;
  mem.id = MemId(static_cast<uint32_t>(data().mems.size()));
  mem.name = name;
  mem.kind = kind;
  mem.type = type;
  for (const Size& extent : shape) mem.extents.push_back(extent.value);
  if (strides.empty()) {
    strides.assign(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i].value;
  }
  SCULPT_CHECK(strides.size() == shape.size()) << "array " << name << ": one stride per extent";
  mem.strides = std::move(strides);
  Parameter param;
  param.id = ParamId(static_cast<uint32_t>(data().params.size()));
  param.name = std::move(name);
  param.kind = Parameter::Kind::kArray;
  param.type = type;
  param.mem = mem.id;
  mem.param = param.id;
  data().params.push_back(param);
  data().mems.push_back(mem);
  return Array{mem.id};
}

Dim Builder::dim(std::string name, Size size, const Tiling& tiling) {
  LogicalDim logical;
  logical.id = LogicalDimId(static_cast<uint32_t>(data().logicals.size()));
  logical.name = std::move(name);
  logical.size_param = size.param;
  logical.size = size.value;
  for (const std::vector<int64_t>& candidates : tiling.levels) {
    std::vector<int64_t> sizes{1};
    for (int64_t c : candidates) {
      if (c > 1 && size.value % c == 0) sizes.push_back(c);
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    logical.tile_sizes.push_back(std::move(sizes));
  }
  data().logicals.push_back(std::move(logical));
  return Dim{data().logicals.back().id};
}

LoopId Builder::new_loop(LogicalDimId logical_id, std::optional<LoopId> parent) {
  LogicalDim& logical = data().logicals.at(logical_id.value);
  Loop loop;
  loop.id = LoopId(static_cast<uint32_t>(data().loops.size()));
  loop.logical = logical_id;
  loop.parent = parent;
  const std::string base = logical.name + std::to_string(loop.id.value);
  for (int level = -1; level < static_cast<int>(logical.tile_sizes.size()); ++level) {
    Dimension dim;
    dim.id = DimId(static_cast<uint32_t>(data().dims.size()));
    dim.loop = loop.id;
    dim.logical = logical_id;
    dim.level = level;
    if (level < 0) {
      dim.name = base;
      loop.dynamic_dim = dim.id;
    } else {
      dim.name = base + "_t" + std::to_string(level);
      dim.possible_sizes = logical.tile_sizes[level];
      loop.tile_dims.push_back(dim.id);
    }
    data().dims.push_back(std::move(dim));
  }
  logical.loops.push_back(loop.id);
  data().loops.push_back(std::move(loop));
  data().loop_bodies.emplace_back();
  return data().loops.back().id;
}

std::vector<ProgramNode>& Builder::current_body() {
  return open_.empty() ? data().body : data().loop_bodies[open_.back().value];
}

void Builder::open(Dim dim) {
  for (LoopId loop : open_) {
    SCULPT_CHECK(data().loops[loop.value].logical != dim.id)
        << "dimension " << kernel_.logical_dim(dim.id).name << " is already open";
  }
  std::optional<LoopId> parent;
  if (!open_.empty()) parent = open_.back();
  const LoopId loop = new_loop(dim.id, parent);
  current_body().push_back(ProgramNode{loop, std::nullopt});
  open_.push_back(loop);
}

void Builder::close() {
  SCULPT_CHECK(!open_.empty()) << "close() without a matching open()";
  open_.pop_back();
}

Value Builder::constant(double value, std::optional<ElemType> type) {
  Value v;
  v.kind = Operand::Kind::kConstant;
  v.constant = value;
  v.type = type;
  return v;
}

Value Builder::index(Index index) {
  Value v;
  v.kind = Operand::Kind::kIndex;
  v.index = std::move(index.expr);
  v.type = ElemType::kI32;
  return v;
}

Value Builder::reduce(const Value& init, const std::vector<Dim>& dims) {
  SCULPT_CHECK(init.kind == Operand::Kind::kValue || init.kind == Operand::Kind::kConstant)
      << "a reduction starts from an instruction's value or a constant";
  Value v = init;
  v.kind = Operand::Kind::kReduction;
  for (Dim dim : dims) v.reduced.push_back(dim.id);
  return v;
}

std::vector<LogicalDimId> Builder::value_dims(const Value& value) const {
  std::vector<LogicalDimId> dims;
  switch (value.kind) {
    case Operand::Kind::kIndex:
      for (const AffineTerm& term : value.index.terms) dims.push_back(term.logical);
      break;
    case Operand::Kind::kValue: {
      const Instruction& producer = kernel_.inst(value.inst);
      const std::vector<LoopId>& reduced = producer.reduction_loops();
      for (LoopId loop : producer.loops) {
        if (std::find(reduced.begin(), reduced.end(), loop) != reduced.end()) continue;
        dims.push_back(kernel_.loop(loop).logical);
      }
      break;
    }
    case Operand::Kind::kReduction:
      if (value.inst.valid()) {
        Value init;
        init.kind = Operand::Kind::kValue;
        init.inst = value.inst;
        dims = value_dims(init);
      }
      dims.insert(dims.end(), value.reduced.begin(), value.reduced.end());
      break;
    default:
      break;
  }
  return dims;
}

CommId Builder::connect(InstId producer_id, InstId consumer_id, int position,
                        Communication::Kind kind) {
  const Instruction& producer = kernel_.inst(producer_id);
  const Instruction& consumer = kernel_.inst(consumer_id);
  const std::vector<LoopId>& reduced = producer.reduction_loops();
  Communication comm;
  comm.kind = kind;
  comm.producer = producer_id;
  comm.consumer = consumer_id;
  comm.operand = position;
  for (LoopId loop : producer.loops) {
    if (std::find(consumer.loops.begin(), consumer.loops.end(), loop) != consumer.loops.end()) {
      continue;  // a loop both sit in: same iteration, nothing to communicate
    }
    if (std::find(reduced.begin(), reduced.end(), loop) != reduced.end()) continue;  // final value
    const std::optional<LoopId> target = kernel_.loop_of(consumer_id, kernel_.loop(loop).logical);
    SCULPT_CHECK(target) << consumer.name << " reads " << producer.name << " outside its loop L"
                         << loop.value;
    comm.loop_pairs.emplace_back(loop, *target);
  }
  if (comm.loop_pairs.empty()) return CommId();
  comm.id = CommId(static_cast<uint32_t>(data().comms.size()));
  for (const auto& [src_loop, dst_loop] : comm.loop_pairs) {
    const std::vector<DimId> src_dims = kernel_.loop(src_loop).dims();
    const std::vector<DimId> dst_dims = kernel_.loop(dst_loop).dims();
    for (size_t i = 0; i < src_dims.size(); ++i) {
      const DimMapping mapping{DimMappingId(static_cast<uint32_t>(data().mappings.size())),
                               src_dims[i], dst_dims[i], comm.id};
      comm.mappings.push_back(mapping.id);
      data().mappings.push_back(mapping);
    }
  }
  data().comms.push_back(std::move(comm));
  return data().comms.back().id;
}

Operand Builder::make_operand(const Value& value, InstId consumer, int position) {
  Operand operand;
  operand.kind = value.kind;
  operand.constant = value.constant;
  operand.param = value.param;
  operand.index = value.index;
  operand.inst = value.inst;
  if (value.kind == Operand::Kind::kValue) {
    operand.comm = connect(value.inst, consumer, position, Communication::Kind::kValue);
  } else if (value.kind == Operand::Kind::kReduction) {
    for (LogicalDimId logical : value.reduced) {
      const std::optional<LoopId> loop = kernel_.loop_of(consumer, logical);
      SCULPT_CHECK(loop) << "reduced dimension outside the reduction's nest";
      operand.reduction_loops.push_back(*loop);
    }
    operand.comm = connect(value.inst, consumer, position, Communication::Kind::kReductionInit);
  }
  return operand;
}

InstId Builder::add_inst(Operator op, std::vector<Value> operands, std::optional<ElemType> type,
                         const std::vector<Index>& index, std::optional<Access> access) {
  SCULPT_CHECK(static_cast<int>(operands.size()) == operator_arity(op))
      << operator_name(op) << " takes " << operator_arity(op) << " operands";
  for (const Value& value : operands) {
    if (!type) type = value.type;
  }
  if (!type) type = ElemType::kF32;

  // The nest: every logical dim of the indices and operands without an open loop, in creation
  // order, reduced dims innermost.
  std::vector<LogicalDimId> needed;
  std::vector<LogicalDimId> reduced;
  for (const Index& i : index) {
    for (const AffineTerm& term : i.expr.terms) needed.push_back(term.logical);
  }
  for (const Value& value : operands) {
    for (LogicalDimId logical : value_dims(value)) needed.push_back(logical);
    reduced.insert(reduced.end(), value.reduced.begin(), value.reduced.end());
  }
  auto is_shared = [&](LogicalDimId logical) {
    return std::any_of(open_.begin(), open_.end(),
                       [&](LoopId loop) { return kernel_.loop(loop).logical == logical; });
  };
  auto is_reduced = [&](LogicalDimId logical) {
    return std::find(reduced.begin(), reduced.end(), logical) != reduced.end();
  };
  std::sort(needed.begin(), needed.end(), [&](LogicalDimId a, LogicalDimId b) {
    return std::pair(is_reduced(a), a) < std::pair(is_reduced(b), b);
  });
  needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
  std::erase_if(needed, is_shared);

  // A reduction starting from a constant gets its init instruction, in its own nest over the
  // reduction's dims that are not reduced (the paper's `c = mov 0` in (m_i, n_i)).
  for (Value& value : operands) {
    if (value.kind != Operand::Kind::kReduction || value.inst.valid()) continue;
    std::vector<Index> init_dims;
    for (LogicalDimId logical : needed) {
      if (!is_reduced(logical)) init_dims.push_back(Index(Dim{logical}));
    }
    Value init = constant(value.constant, type);
    const InstId init_id = add_inst(Operator::kMov, {init}, type, init_dims, std::nullopt);
    value.inst = init_id;
  }

  Instruction inst;
  inst.id = InstId(static_cast<uint32_t>(data().insts.size()));
  inst.op = op;
  inst.type = *type;
  inst.access = std::move(access);
  inst.name = std::string(operator_name(op)) + std::to_string(inst.id.value);
  inst.loops = open_;
  // Bodies are looked up again after each new loop: creating one may move them.
  auto body_of = [&](std::optional<LoopId> loop) -> std::vector<ProgramNode>& {
    return loop ? data().loop_bodies[loop->value] : data().body;
  };
  for (LogicalDimId logical : needed) {
    std::optional<LoopId> parent;
    if (!inst.loops.empty()) parent = inst.loops.back();
    const LoopId loop = new_loop(logical, parent);
    body_of(parent).push_back(ProgramNode{loop, std::nullopt});
    inst.loops.push_back(loop);
  }
  std::optional<LoopId> innermost;
  if (!inst.loops.empty()) innermost = inst.loops.back();
  body_of(innermost).push_back(ProgramNode{std::nullopt, inst.id});
  data().insts.push_back(std::move(inst));
  const InstId id = data().insts.back().id;
  for (size_t i = 0; i < operands.size(); ++i) {
    Operand operand = make_operand(operands[i], id, static_cast<int>(i));
    data().insts[id.value].operands.push_back(std::move(operand));
  }
  return id;
}

namespace {
Value value_of(InstId inst, ElemType type) {
  Value v;
  v.kind = Operand::Kind::kValue;
  v.inst = inst;
  v.type = type;
  return v;
}

AffineExpr flatten(const MemRegion& mem, const std::vector<Index>& index) {
  SCULPT_CHECK(index.size() == mem.extents.size())
      << mem.name << " has " << mem.extents.size() << " dimensions, accessed with " << index.size()
      << " indices";
  AffineExpr flat;
  for (size_t i = 0; i < index.size(); ++i) {
    for (const AffineTerm& term : index[i].expr.terms) {
      flat.terms.push_back({term.logical, term.coeff * mem.strides[i]});
    }
    flat.constant += index[i].expr.constant * mem.strides[i];
  }
  return flat;
}
}  // namespace

Value Builder::load(Array array, const std::vector<Index>& index) {
  const MemRegion& mem = kernel_.mem(array.mem);
  const ElemType type = mem.type;
  const InstId id =
      add_inst(Operator::kLoad, {}, type, index, Access{array.mem, flatten(mem, index)});
  return value_of(id, type);
}

void Builder::store(Array array, const std::vector<Index>& index, const Value& value) {
  const MemRegion& mem = kernel_.mem(array.mem);
  add_inst(Operator::kStore, {value}, mem.type, index, Access{array.mem, flatten(mem, index)});
}

Value Builder::mov(const Value& a) { return emit(Operator::kMov, {a}); }

Value Builder::emit(Operator op, std::vector<Value> operands, std::optional<ElemType> type) {
  const InstId id = add_inst(op, std::move(operands), type, {}, std::nullopt);
  return value_of(id, kernel_.inst(id).type);
}

Value Builder::add(const Value& a, const Value& b) { return emit(Operator::kAdd, {a, b}); }
Value Builder::sub(const Value& a, const Value& b) { return emit(Operator::kSub, {a, b}); }
Value Builder::mul(const Value& a, const Value& b) { return emit(Operator::kMul, {a, b}); }
Value Builder::div(const Value& a, const Value& b) { return emit(Operator::kDiv, {a, b}); }
Value Builder::min(const Value& a, const Value& b) { return emit(Operator::kMin, {a, b}); }
Value Builder::max(const Value& a, const Value& b) { return emit(Operator::kMax, {a, b}); }

Value Builder::fma(const Value& a, const Value& b, const Value& c) {
  return emit(Operator::kFma, {a, b, c});
}

Value Builder::exp(const Value& a) { return emit(Operator::kExp, {a}); }
Value Builder::sqrt(const Value& a) { return emit(Operator::kSqrt, {a}); }

Value Builder::compare(Operator op, const Value& a, const Value& b) {
  SCULPT_CHECK(is_comparison(op)) << operator_name(op) << " is not a comparison";
  return emit(op, {a, b});
}

Value Builder::select(const Value& cond, const Value& a, const Value& b) {
  // Of the branches' type: the condition's is only that of the comparison it holds.
  return emit(Operator::kSelect, {cond, a, b}, a.type ? a.type : b.type);
}

Value Builder::cast(const Value& a, ElemType type) { return emit(Operator::kCast, {a}, type); }

void Builder::preallocate_lowering(Communication& comm) {
  const Instruction& producer = kernel_.inst(comm.producer);
  const Instruction& consumer = kernel_.inst(comm.consumer);
  // `comm` lives among the communications, which grow below: its id outlives it.
  const CommId comm_id = comm.id;

  MemRegion temp;
  temp.id = MemId(static_cast<uint32_t>(data().mems.size()));
  temp.name = "tmp" + std::to_string(comm_id.value);
  temp.kind = MemRegion::Kind::kTemporary;
  temp.type = producer.type;
  temp.added_by = comm_id;
  for (const auto& pair : comm.loop_pairs) {
    const LogicalDim& logical = kernel_.logical_dim(kernel_.loop(pair.first).logical);
    temp.layout.push_back(logical.id);
    temp.extents.push_back(logical.size);
  }
  temp.strides.assign(temp.extents.size(), 1);
  for (size_t i = temp.extents.size(); i-- > 1;) {
    temp.strides[i - 1] = temp.strides[i] * temp.extents[i];
  }
  temp.layout_mappings = comm.mappings;
  AffineExpr index;
  for (size_t i = 0; i < temp.layout.size(); ++i) {
    index.terms.push_back({temp.layout[i], temp.strides[i]});
  }

  // The store runs once the producer's value is final: outside its reduction loops that the
  // consumer does not share.
  Instruction store;
  store.id = InstId(static_cast<uint32_t>(data().insts.size()));
  store.name = "st_" + temp.name;
  store.op = Operator::kStore;
  store.type = producer.type;
  store.added_by = comm_id;
  const std::vector<LoopId>& reduced = producer.reduction_loops();
  for (LoopId loop : producer.loops) {
    const bool shared =
        std::find(consumer.loops.begin(), consumer.loops.end(), loop) != consumer.loops.end();
    if (!shared && std::find(reduced.begin(), reduced.end(), loop) != reduced.end()) break;
    store.loops.push_back(loop);
  }
  Operand value;
  value.kind = Operand::Kind::kValue;
  value.inst = producer.id;
  store.operands.push_back(value);
  store.access = Access{temp.id, index};

  // The load iterates on the consumer's loops that index the value: those it shares with the
  // producer, and copies of the others, nested in the same order, so that an implementation may
  // read the temporary once for several iterations of the consumer's loops, and in vectors.
  Instruction load;
  load.id = InstId(store.id.value + 1);
  load.name = "ld_" + temp.name;
  load.op = Operator::kLoad;
  load.type = producer.type;
  load.added_by = comm_id;
  load.access = Access{temp.id, index};
  const InstId consumer_id = consumer.id;
  const int operand = comm.operand;
  const std::vector<LoopId> index_loops =
      kernel_.value_index_loops(producer.id, consumer.id, comm_id);
  std::vector<std::pair<LoopId, LoopId>> copies;  // load loop -> consumer loop
  for (LoopId loop : std::vector<LoopId>(consumer.loops)) {
    if (std::find(index_loops.begin(), index_loops.end(), loop) == index_loops.end()) continue;
    if (std::find(producer.loops.begin(), producer.loops.end(), loop) != producer.loops.end()) {
      load.loops.push_back(loop);
      continue;
    }
    std::optional<LoopId> parent = kernel_.loop(loop).parent;
    if (!copies.empty()) parent = copies.back().first;
    const LoopId copy = new_loop(kernel_.loop(loop).logical, parent);
    for (DimId dim : kernel_.loop(copy).dims()) data().dims[dim.value].added_by = comm_id;
    if (!copies.empty())
      data().loop_bodies[copies.back().first.value].push_back({copy, std::nullopt});
    copies.emplace_back(copy, loop);
    load.loops.push_back(copy);
  }
  SCULPT_CHECK(!copies.empty()) << "a communication without loops to copy";
  data().loop_bodies[copies.back().first.value].push_back({std::nullopt, load.id});

  // What the load reads reaches the consumer as a communication of its own.
  Communication read;
  read.id = CommId(static_cast<uint32_t>(data().comms.size()));
  read.kind = Communication::Kind::kTemporaryRead;
  read.producer = load.id;
  read.consumer = consumer_id;
  read.operand = operand;
  read.loop_pairs = copies;
  read.added_by = comm_id;
  for (const auto& [src_loop, dst_loop] : copies) {
    const std::vector<DimId> src_dims = kernel_.loop(src_loop).dims();
    const std::vector<DimId> dst_dims = kernel_.loop(dst_loop).dims();
    for (size_t i = 0; i < src_dims.size(); ++i) {
      const DimMapping mapping{DimMappingId(static_cast<uint32_t>(data().mappings.size())),
                               src_dims[i], dst_dims[i], read.id, comm_id};
      read.mappings.push_back(mapping.id);
      data().mappings.push_back(mapping);
    }
  }

  Communication& lowered = data().comms[comm_id.value];
  lowered.temp = temp.id;
  lowered.store = store.id;
  lowered.load = load.id;
  lowered.read = read.id;
  const InstId producer_id = lowered.producer;
  const InstId store_id = store.id;
  const std::size_t store_loops = store.loops.size();
  const auto [outermost_copy, outermost_copied] = read.loop_pairs.front();
  data().comms.push_back(std::move(read));
  data().mems.push_back(std::move(temp));
  data().insts.push_back(std::move(store));
  data().insts.push_back(std::move(load));

  // In the default program already, present once lowered: the store right after the producer,
  // or after the first producer loop it left out (a reduction loop: the stored value is the
  // final one); the load's loops right before the consumer's loops they copy.
  const Instruction& producer_inst = kernel_.inst(producer_id);
  ProgramNode anchor{std::nullopt, producer_inst.id};
  if (store_loops < producer_inst.loops.size()) {
    anchor = ProgramNode{producer_inst.loops[store_loops], std::nullopt};
  }
  insert_next_to(anchor, ProgramNode{std::nullopt, store_id}, /*after=*/true);
  insert_next_to(ProgramNode{outermost_copied, std::nullopt},
                 ProgramNode{outermost_copy, std::nullopt}, /*after=*/false);
}

void Builder::insert_next_to(const ProgramNode& anchor, ProgramNode node, bool after) {
  std::optional<LoopId> parent;
  if (anchor.loop) {
    parent = kernel_.loop(*anchor.loop).parent;
  } else if (!kernel_.inst(*anchor.inst).loops.empty()) {
    parent = kernel_.inst(*anchor.inst).loops.back();
  }
  std::vector<ProgramNode>& body = parent ? data().loop_bodies[parent->value] : data().body;
  auto it = std::find_if(body.begin(), body.end(), [&](const ProgramNode& n) {
    return n.loop == anchor.loop && n.inst == anchor.inst;
  });
  SCULPT_CHECK(it != body.end()) << "anchor missing from the default program";
  body.insert(after ? it + 1 : it, node);
}

Kernel Builder::finish() && {
  SCULPT_CHECK(open_.empty()) << "finish() with " << open_.size() << " loops still open";
  // By index: pre-allocation appends communications (the reads of temporaries).
  const size_t comms = data().comms.size();
  for (size_t c = 0; c < comms; ++c) {
    if (data().comms[c].kind == Communication::Kind::kValue) preallocate_lowering(data().comms[c]);
  }
  kernel_.lowered_.assign(data().comms.size(), false);
  kernel_.number_statements();
  return std::move(kernel_);
}

}  // namespace sculpt::backbone
