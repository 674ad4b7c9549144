#include "codegen/lowered.h"

#include <fmt/format.h>

#include <algorithm>

namespace sculpt::codegen {

std::string_view loop_kind_name(LoopKind kind) {
  switch (kind) {
    case LoopKind::kLoop:
      return "loop";
    case LoopKind::kUnroll:
      return "unroll";
    case LoopKind::kVector:
      return "vector";
    case LoopKind::kThread:
      return "thread";
    case LoopKind::kBlock:
      return "block";
  }
  return "?";
}

std::string_view cache_name(Cache cache) {
  switch (cache) {
    case Cache::kAll:
      return "ca";
    case Cache::kGlobal:
      return "cg";
    case Cache::kReadOnly:
      return "nc";
    case Cache::kStreaming:
      return "cs";
  }
  return "?";
}

void IndexExpr::add(int dim, std::int64_t coeff) {
  if (coeff == 0) return;
  auto it = std::find_if(terms.begin(), terms.end(), [&](const auto& t) { return t.first == dim; });
  if (it == terms.end()) {
    terms.emplace_back(dim, coeff);
  } else if ((it->second += coeff) == 0) {
    terms.erase(it);
  }
}

std::int64_t IndexExpr::coeff(int dim) const {
  for (const auto& [d, c] : terms) {
    if (d == dim) return c;
  }
  return 0;
}

std::int64_t LoweredKernel::num_blocks() const {
  std::int64_t blocks = 1;
  for (int dim : block_dims) blocks *= dims[dim].size;
  return blocks;
}

std::int64_t LoweredKernel::shared_bytes() const {
  std::int64_t bytes = 0;
  for (const Memory& mem : memories) {
    // Each shared temporary starts 16-byte aligned (vector accesses need it).
    if (mem.kind == Memory::Kind::kShared) {
      bytes = (bytes + 15) / 16 * 16 + mem.elements * backbone::elem_type_bytes(mem.type);
    }
  }
  return bytes;
}

namespace {

class Dumper {
 public:
  explicit Dumper(const LoweredKernel& k) : k_(k) {}

  std::string run() {
    line(0, fmt::format("kernel {}: {} blocks x ({}, {}, {}) threads, {} shared bytes", k_.name,
                        k_.num_blocks(), k_.block_size[0], k_.block_size[1], k_.block_size[2],
                        k_.shared_bytes()));
    for (int b : k_.block_dims) {
      line(1, fmt::format("block {} < {}", k_.dims[b].name, k_.dims[b].size));
    }
    for (const Memory& mem : k_.memories) {
      if (mem.kind == Memory::Kind::kParam) continue;
      line(1, fmt::format("{} {}: {} x {}", mem.kind == Memory::Kind::kShared ? "shared" : "global",
                          mem.name, mem.elements, backbone::elem_type_name(mem.type)));
    }
    for (const RegisterArray& reg : k_.registers) {
      std::string dims;
      for (int d : reg.dims) dims += fmt::format("[{}]", k_.dims[d].name);
      line(1,
           fmt::format("registers {}{}: {}", reg.name, dims, backbone::elem_type_name(reg.type)));
    }
    body(k_.body, 1);
    return out_;
  }

 private:
  void line(int depth, const std::string& text) {
    out_ += std::string(2 * depth, ' ') + text + "\n";
  }

  std::string index(const IndexExpr& e) const {
    std::string s;
    for (const auto& [dim, coeff] : e.terms) {
      s += (s.empty() ? "" : " + ") + (coeff == 1 ? "" : std::to_string(coeff) + "*") +
           k_.dims[dim].name;
    }
    if (e.constant != 0 || s.empty()) s += (s.empty() ? "" : " + ") + std::to_string(e.constant);
    return s;
  }

  std::string reg(const RegisterRef& r) const {
    std::string s = k_.registers[r.array].name;
    for (int d : r.index_dims) s += "[" + k_.dims[d].name + "]";
    return s;
  }

  std::string operand(const Operand& op) const {
    switch (op.kind) {
      case Operand::Kind::kRegister:
        return reg(op.reg);
      case Operand::Kind::kConstant:
        return fmt::format("{}", op.constant);
      case Operand::Kind::kParam:
        return k_.params[op.param].name;
      case Operand::Kind::kIndex:
        return "(" + index(op.index) + ")";
    }
    return "?";
  }

  void body(const std::vector<Node>& nodes, int depth) {
    for (const Node& node : nodes) {
      if (node.kind == Node::Kind::kBarrier) {
        line(depth, "barrier");
      } else if (node.kind == Node::Kind::kLoop) {
        const LoopDim& dim = k_.dims[node.dim];
        std::string level =
            dim.kind == LoopKind::kThread ? std::string(".") + "xyz"[dim.level] : "";
        line(depth,
             fmt::format("{}{} {} < {}", loop_kind_name(dim.kind), level, dim.name, dim.size));
        body(node.body, depth + 1);
      } else {
        line(depth, instruction(k_.instructions[node.inst]));
      }
    }
  }

  std::string instruction(const Instruction& inst) const {
    std::string s;
    for (const Predicate& p : inst.predicates) {
      s += p.bound == 0 ? fmt::format("@tid.{}==0 ", "xyz"[p.level])
                        : fmt::format("@tid.{}<{} ", "xyz"[p.level], p.bound);
    }
    if (inst.dest) s += reg(*inst.dest) + " = ";
    s +=
        fmt::format("{}.{}", backbone::operator_name(inst.op), backbone::elem_type_name(inst.type));
    if (inst.access) {
      const MemAccess& a = *inst.access;
      s += fmt::format(".{}", cache_name(a.cache));
      if (a.width > 1) s += fmt::format(".v{}", a.width);
      s += fmt::format(" {}[{}]", k_.memories[a.memory].name, index(a.index));
    }
    for (const Operand& op : inst.operands) s += " " + operand(op);
    return s + "  // " + inst.name;
  }

  const LoweredKernel& k_;
  std::string out_;
};

}  // namespace

std::string LoweredKernel::dump() const { return Dumper(*this).run(); }

}  // namespace sculpt::codegen
