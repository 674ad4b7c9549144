#include "codegen/c_like.h"

#include <fmt/format.h>

#include "codegen/identifiers.h"
#include "support/check.h"

namespace sculpt::codegen {

std::string c_type(backbone::ElemType type) {
  switch (type) {
    case backbone::ElemType::kF32:
      return "float";
    case backbone::ElemType::kF64:
      return "double";
    case backbone::ElemType::kI32:
      return "int32_t";
  }
  return "?";
}

CLikePrinter::CLikePrinter(const LoweredKernel& k, std::string entry)
    : k_(k), entry_(std::move(entry)), param_names_(parameter_identifiers(k, entry_)) {}

const std::string& CLikePrinter::memory_name(int memory) const {
  const Memory& mem = k_.memories[memory];
  return mem.kind == Memory::Kind::kParam ? param_names_[mem.param] : mem.name;
}

std::string CLikePrinter::index(int dim) const { return loop_index_name(k_.dims[dim]); }

std::string CLikePrinter::expr(const IndexExpr& e) const {
  std::string s = std::to_string(e.constant);
  for (const auto& [dim, coeff] : e.terms) s += fmt::format(" + {} * {}", coeff, index(dim));
  return s;
}

std::string CLikePrinter::operand(const Operand& op, backbone::ElemType type) const {
  switch (op.kind) {
    case Operand::Kind::kRegister:
      return reg(op.reg);
    case Operand::Kind::kConstant:
      return fmt::format("({}){:.17g}", c_type(type), op.constant);
    case Operand::Kind::kParam:
      return param_name(op.param);
    case Operand::Kind::kIndex:
      return fmt::format("({})({})", c_type(type), expr(op.index));
  }
  return "?";
}

std::string CLikePrinter::value(const Instruction& inst) const {
  std::vector<std::string> a;
  for (const Operand& op : inst.operands) a.push_back(operand(op, inst.type));
  const bool f32 = inst.type == backbone::ElemType::kF32;
  const bool integer = inst.type == backbone::ElemType::kI32;
  using Op = backbone::Operator;
  switch (inst.op) {
    case Op::kMov:
      return a[0];
    case Op::kCast:
      return fmt::format("({}){}", c_type(inst.type), a[0]);
    case Op::kAdd:
      return a[0] + " + " + a[1];
    case Op::kSub:
      return a[0] + " - " + a[1];
    case Op::kMul:
      return a[0] + " * " + a[1];
    case Op::kDiv:
      return a[0] + " / " + a[1];
    case Op::kFma:
      if (integer) return a[0] + " * " + a[1] + " + " + a[2];
      return fmt::format("{}({}, {}, {})", f32 ? "fmaf" : "fma", a[0], a[1], a[2]);
    case Op::kMin:
      if (integer) return fmt::format("{0} < {1} ? {0} : {1}", a[0], a[1]);
      return fmt::format("{}({}, {})", f32 ? "fminf" : "fmin", a[0], a[1]);
    case Op::kMax:
      if (integer) return fmt::format("{0} > {1} ? {0} : {1}", a[0], a[1]);
      return fmt::format("{}({}, {})", f32 ? "fmaxf" : "fmax", a[0], a[1]);
    case Op::kExp:
      return fmt::format("{}({})", f32 ? "expf" : "exp", a[0]);
    case Op::kSqrt:
      return fmt::format("{}({})", f32 ? "sqrtf" : "sqrt", a[0]);
    case Op::kLt:
      return a[0] + " < " + a[1];
    case Op::kLe:
      return a[0] + " <= " + a[1];
    case Op::kGt:
      return a[0] + " > " + a[1];
    case Op::kGe:
      return a[0] + " >= " + a[1];
    case Op::kEq:
      return a[0] + " == " + a[1];
    case Op::kNe:
      return a[0] + " != " + a[1];
    case Op::kSelect:
      return fmt::format("{} != 0 ? {} : {}", a[0], a[1], a[2]);
    case Op::kLoad:
      return fmt::format("{}[{}]", memory_name(inst.access->memory), expr(inst.access->index));
    case Op::kStore:
      break;
  }
  SCULPT_CHECK(false) << "no value for " << inst.name;
  return {};
}

void CLikePrinter::instruction(const Instruction& inst) {
  std::string guard;
  for (const Predicate& p : inst.predicates) {
    const std::string t = std::string("t") + "xyz"[p.level];
    guard += (guard.empty() ? "" : " && ") +
             (p.bound == 0 ? t + " == 0" : fmt::format("{} < {}", t, p.bound));
  }
  std::string statement;
  if (inst.op == backbone::Operator::kStore) {
    statement = fmt::format("{}[{}] = {};", memory_name(inst.access->memory),
                            expr(inst.access->index), operand(inst.operands[0], inst.type));
  } else {
    statement = reg(*inst.dest) + " = " + value(inst) + ";";
  }
  w_.line((guard.empty() ? "" : "if (" + guard + ") ") + statement + "  // " + inst.name);
}

void CLikePrinter::open_loop(int dim) {
  w_.open(fmt::format("for (int64_t {0} = 0; {0} < {1}; ++{0})", index(dim), k_.dims[dim].size));
}

void CLikePrinter::decode_blocks(const std::string& block) {
  std::int64_t inner = 1;
  for (auto it = k_.block_dims.rbegin(); it != k_.block_dims.rend(); ++it) {
    const LoopDim& dim = k_.dims[*it];
    w_.line(fmt::format("const int64_t {} = {} / {} % {};", index(*it), block, inner, dim.size));
    inner *= dim.size;
  }
}

}  // namespace sculpt::codegen
