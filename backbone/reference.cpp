#include "backbone/reference.h"

#include <algorithm>
#include <cmath>

#include "support/check.h"

namespace sculpt::backbone {

double round_to(ElemType type, double value) {
  switch (type) {
    case ElemType::kF32:
      return static_cast<float>(value);
    case ElemType::kF64:
      return value;
    case ElemType::kI32:
      return static_cast<int32_t>(std::trunc(value));
  }
  return value;
}

bool compare(Operator op, double a, double b) {
  switch (op) {
    case Operator::kLt:
      return a < b;
    case Operator::kLe:
      return a <= b;
    case Operator::kGt:
      return a > b;
    case Operator::kGe:
      return a >= b;
    case Operator::kEq:
      return a == b;
    case Operator::kNe:
      return a != b;
    default:
      break;
  }
  SCULPT_CHECK(false) << operator_name(op) << " is not a comparison";
  return false;
}

namespace {

// How to find a value in its producer's storage from the reader's loops: for each storage loop
// of the producer, the reader's loop holding the same index.
struct ValueRead {
  InstId producer;
  std::vector<LoopId> index_loops;
};

class Interpreter {
 public:
  Interpreter(const Kernel& kernel, HostArgs& args) : kernel_(kernel), args_(args) {
    index_.assign(kernel.loop_capacity(), 0);
    storage_.resize(kernel.inst_capacity());
    for (const Instruction* inst : kernel.instructions()) {
      int64_t size = 1;
      for (LoopId loop : kernel.storage_loops(inst->id)) {
        size *= kernel.logical_dim(kernel.loop(loop).logical).size;
      }
      storage_[inst->id.value].assign(static_cast<size_t>(size), 0.0);
    }
    for (const MemRegion* mem : kernel.mem_regions()) {
      if (mem->kind == MemRegion::Kind::kTemporary) {
        temps_.emplace(mem->name, Buffer(mem->type, mem->num_elements()));
      }
    }
  }

  void run(const std::vector<ProgramNode>& body) {
    for (const ProgramNode& node : body) {
      if (node.inst) {
        execute(kernel_.inst(*node.inst));
        continue;
      }
      const LoopId loop = *node.loop;
      const int64_t size = kernel_.logical_dim(kernel_.loop(loop).logical).size;
      const std::vector<ProgramNode> inner = kernel_.body(loop);
      for (int64_t i = 0; i < size; ++i) {
        index_[loop.value] = i;
        run(inner);
      }
    }
  }

 private:
  ValueRead read_of(InstId producer, const Instruction& reader, CommId comm) const {
    return ValueRead{producer, kernel_.value_index_loops(producer, reader.id, comm)};
  }

  int64_t flat_index(const std::vector<LoopId>& storage_loops,
                     const std::vector<LoopId>& index_loops) const {
    int64_t flat = 0;
    for (size_t i = 0; i < storage_loops.size(); ++i) {
      const int64_t size = kernel_.logical_dim(kernel_.loop(storage_loops[i]).logical).size;
      flat = flat * size + index_[index_loops[i].value];
    }
    return flat;
  }

  double& value_at(const ValueRead& read) {
    const std::vector<LoopId> loops = kernel_.storage_loops(read.producer);
    return storage_[read.producer.value][static_cast<size_t>(flat_index(loops, read.index_loops))];
  }

  int64_t affine(const Instruction& inst, const AffineExpr& expr) const {
    int64_t value = expr.constant;
    for (const AffineTerm& term : expr.terms) {
      const std::optional<LoopId> loop = kernel_.loop_of(inst.id, term.logical);
      SCULPT_CHECK(loop) << inst.name << " indexes by a dimension it is not nested in";
      value += term.coeff * index_[loop->value];
    }
    return value;
  }

  Buffer& buffer(const MemRegion& mem) {
    if (mem.kind == MemRegion::Kind::kTemporary) return temps_.at(mem.name);
    return args_.array(mem.name);
  }

  double operand(const Instruction& inst, const Operand& op) {
    switch (op.kind) {
      case Operand::Kind::kConstant:
        return op.constant;
      case Operand::Kind::kParam: {
        const Parameter& param = kernel_.param(op.param);
        if (param.kind == Parameter::Kind::kSize) return static_cast<double>(param.size_value);
        return args_.scalar(param.name);
      }
      case Operand::Kind::kIndex:
        return static_cast<double>(affine(inst, op.index));
      case Operand::Kind::kValue: {
        const Kernel::Source source = kernel_.source(op);
        return value_at(read_of(source.inst, inst, source.comm));
      }
      case Operand::Kind::kReduction: {
        const bool first = std::all_of(op.reduction_loops.begin(), op.reduction_loops.end(),
                                       [&](LoopId loop) { return index_[loop.value] == 0; });
        if (first) return value_at(read_of(op.inst, inst, op.comm));
        return value_at(read_of(inst.id, inst, CommId()));
      }
    }
    return 0;
  }

  void execute(const Instruction& inst) {
    std::vector<double> in;
    for (const Operand& op : inst.operands) in.push_back(operand(inst, op));
    double out = 0;
    switch (inst.op) {
      case Operator::kMov:
      case Operator::kCast:
        out = in[0];
        break;
      case Operator::kAdd:
        out = in[0] + in[1];
        break;
      case Operator::kSub:
        out = in[0] - in[1];
        break;
      case Operator::kMul:
        out = in[0] * in[1];
        break;
      case Operator::kDiv:
        SCULPT_CHECK(inst.type != ElemType::kI32 || in[1] != 0) << inst.name << " divides by 0";
        out = in[0] / in[1];
        break;
      case Operator::kFma:
        out = in[0] * in[1] + in[2];
        break;
      case Operator::kMin:
        out = std::min(in[0], in[1]);
        break;
      case Operator::kMax:
        out = std::max(in[0], in[1]);
        break;
      case Operator::kExp:
        out = std::exp(in[0]);
        break;
      case Operator::kSqrt:
        // Correctly rounded in double, then to float: the same as sqrtf (53 >= 2 * 24 + 2 bits).
        out = std::sqrt(in[0]);
        break;
      case Operator::kLt:
      case Operator::kLe:
      case Operator::kGt:
      case Operator::kGe:
      case Operator::kEq:
      case Operator::kNe:
        // In the instruction's type, as the device compares: a constant such as 0.1 too.
        out = compare(inst.op, round_to(inst.type, in[0]), round_to(inst.type, in[1])) ? 1 : 0;
        break;
      case Operator::kSelect:
        out = round_to(inst.type, in[0]) != 0 ? in[1] : in[2];
        break;
      case Operator::kLoad: {
        const MemRegion& mem = kernel_.mem(inst.access->mem);
        out = buffer(mem).get(affine(inst, inst.access->index));
        break;
      }
      case Operator::kStore: {
        const MemRegion& mem = kernel_.mem(inst.access->mem);
        buffer(mem).set(affine(inst, inst.access->index), in[0]);
        return;
      }
    }
    value_at(read_of(inst.id, inst, CommId())) = round_to(inst.type, out);
  }

  const Kernel& kernel_;
  HostArgs& args_;
  std::vector<int64_t> index_;                // current logical index of each loop
  std::vector<std::vector<double>> storage_;  // each instruction's values
  std::map<std::string, Buffer> temps_;
};

}  // namespace

void interpret(const Kernel& kernel, HostArgs& args) {
  Interpreter interpreter(kernel, args);
  interpreter.run(kernel.body());
}

}  // namespace sculpt::backbone
