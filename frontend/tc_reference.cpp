#include "frontend/tc_reference.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "backbone/reference.h"

namespace sculpt::frontend {
namespace {

using backbone::ElemType;

double combine(Reduction reduction, double acc, double v) {
  switch (reduction) {
    case Reduction::kSum:
      return acc + v;
    case Reduction::kProduct:
      return acc * v;
    case Reduction::kMin:
      return std::min(acc, v);
    case Reduction::kMax:
      return std::max(acc, v);
    case Reduction::kNone:
      break;
  }
  return v;
}

/// An expression ready to evaluate: names resolved to numbers, buffers and strides.
struct Node {
  Expr::Kind kind = Expr::Kind::kConstant;
  ElemType type = ElemType::kF32;  // comparisons compare in it
  bool integer = false;            // an int32 operation: truncates
  double value = 0;                // constants, sizes, scalars
  int slot = -1;                   // kIndex
  const backbone::Buffer* input = nullptr;
  const std::vector<double>* storage = nullptr;  // a tensor the definition computes
  std::vector<std::pair<int, int64_t>> flat;     // element = sum of stride * index + constant
  int64_t flat_constant = 0;
  std::vector<Node> args;
};

double eval(const Node& n, const int64_t* index) {
  switch (n.kind) {
    case Expr::Kind::kConstant:
    case Expr::Kind::kSize:
    case Expr::Kind::kScalar:
      return n.value;
    case Expr::Kind::kIndex:
      return static_cast<double>(index[n.slot]);
    case Expr::Kind::kRead: {
      int64_t element = n.flat_constant;
      for (const auto& [slot, stride] : n.flat) element += stride * index[slot];
      return n.input ? n.input->get(element) : (*n.storage)[static_cast<std::size_t>(element)];
    }
    case Expr::Kind::kNeg:
      return -eval(n.args[0], index);
    case Expr::Kind::kExp:
      return std::exp(eval(n.args[0], index));
    case Expr::Kind::kNot:
      return eval(n.args[0], index) == 0;
    case Expr::Kind::kSelect:
      return eval(n.args[0], index) != 0 ? eval(n.args[1], index) : eval(n.args[2], index);
    default:
      break;
  }
  const double a = eval(n.args[0], index), b = eval(n.args[1], index);
  double r = 0;
  switch (n.kind) {
    case Expr::Kind::kAdd:
      r = a + b;
      break;
    case Expr::Kind::kSub:
      r = a - b;
      break;
    case Expr::Kind::kMul:
      r = a * b;
      break;
    case Expr::Kind::kDiv:
      r = n.integer && b == 0 ? 0 : a / b;
      break;
    case Expr::Kind::kMin:
      r = std::min(a, b);
      break;
    case Expr::Kind::kMax:
      r = std::max(a, b);
      break;
    case Expr::Kind::kAnd:
      r = a != 0 && b != 0;
      break;
    case Expr::Kind::kOr:
      r = a != 0 || b != 0;
      break;
    default:
      // In the comparison's type, as the device compares (`x > 0.1` against 0.1f for float).
      r = backbone::compare(comparison_operator(n.kind), backbone::round_to(n.type, a),
                            backbone::round_to(n.type, b));
      break;
  }
  return n.integer ? std::trunc(r) : r;
}

class Reference {
 public:
  Reference(const Definition& def, const backbone::Sizes& sizes, backbone::HostArgs& args)
      : def_(def), sizes_(sizes), args_(args) {
    for (const Tensor& t : def.tensors) {
      std::vector<int64_t> extents;
      if (t.defined()) {
        for (int dim : t.dims) extents.push_back(def.dims[dim].range.extent(sizes));
      } else {
        for (const std::string& size : t.sizes) extents.push_back(sizes.at(size));
      }
      std::vector<int64_t> strides(extents.size(), 1);
      for (std::size_t i = extents.size(); i-- > 1;) strides[i - 1] = strides[i] * extents[i];
      int64_t elements = 1;
      for (int64_t e : extents) elements *= e;
      strides_.push_back(std::move(strides));
      storage_.emplace_back(t.defined() ? static_cast<std::size_t>(elements) : 0);
      if (t.reads_initial) {
        const backbone::Buffer& initial = args.array(t.name);
        for (int64_t i = 0; i < elements; ++i) storage_.back()[i] = initial.get(i);
      }
    }
  }

  void run() {
    for (const Statement& st : def_.statements) execute(st);
    for (int id : def_.outputs) {
      backbone::Buffer& out = args_.array(def_.tensors[id].name);
      const std::vector<double>& values = storage_[id];
      for (std::size_t i = 0; i < values.size(); ++i) out.set(static_cast<int64_t>(i), values[i]);
    }
  }

 private:
  Node compile(const Expr& e, const Statement& st) const {
    Node n;
    n.kind = e.kind;
    n.type = e.type.value_or(ElemType::kF32);
    n.integer = e.type == ElemType::kI32;
    n.value = e.value;
    n.slot = e.id;
    if (e.kind == Expr::Kind::kSize) n.value = static_cast<double>(sizes_.at(e.name));
    if (e.kind == Expr::Kind::kScalar) n.value = args_.scalar(def_.scalars[e.id].name);
    if (e.kind == Expr::Kind::kRead) {
      const Tensor& t = def_.tensors[e.id];
      if (t.defined()) {
        n.storage = &storage_[e.id];
      } else {
        n.input = &args_.array(t.name);
      }
      std::vector<int64_t> by_slot(st.indices.size(), 0);
      for (std::size_t p = 0; p < e.subscripts.size(); ++p) {
        const int64_t stride = strides_[e.id][p];
        n.flat_constant += stride * e.subscripts[p].constant;
        for (const auto& [slot, coeff] : e.subscripts[p].terms) by_slot[slot] += stride * coeff;
      }
      for (std::size_t slot = 0; slot < by_slot.size(); ++slot) {
        if (by_slot[slot] != 0) n.flat.emplace_back(static_cast<int>(slot), by_slot[slot]);
      }
    }
    for (const Expr& arg : e.args) n.args.push_back(compile(arg, st));
    return n;
  }

  void execute(const Statement& st) {
    const Node rhs = compile(st.rhs, st);
    const Tensor& t = def_.tensors[st.tensor];
    std::vector<int64_t> first, extent;
    for (const Index& index : st.indices) {
      first.push_back(def_.dims[index.dim].range.first(sizes_));
      extent.push_back(def_.dims[index.dim].range.extent(sizes_));
    }
    const std::vector<int> reduced = st.reduced();
    std::vector<double>& out = storage_[st.tensor];
    const std::vector<int64_t>& strides = strides_[st.tensor];
    const int outer = st.lhs.front();
    tbb::parallel_for(int64_t{0}, extent[outer], [&](int64_t row) {
      std::vector<int64_t> index(first);
      index[outer] = first[outer] + row;
      // Odometers over the other left-hand indices, then over the reduced ones.
      auto next = [&](const std::vector<int>& ids, std::size_t from) {
        for (std::size_t k = ids.size(); k-- > from;) {
          if (++index[ids[k]] < first[ids[k]] + extent[ids[k]]) return true;
          index[ids[k]] = first[ids[k]];
        }
        return false;
      };
      do {
        int64_t element = 0;
        for (std::size_t p = 0; p < st.lhs.size(); ++p) {
          element += strides[p] * index[st.lhs[p]];
        }
        double acc = st.reduction == Reduction::kNone || st.init
                         ? neutral(st.reduction, t.type)
                         : out[static_cast<std::size_t>(element)];
        do {
          acc = combine(st.reduction, acc, eval(rhs, index.data()));
        } while (next(reduced, 0));
        out[static_cast<std::size_t>(element)] = backbone::round_to(t.type, acc);
      } while (next(st.lhs, 1));
    });
  }

  const Definition& def_;
  const backbone::Sizes& sizes_;
  backbone::HostArgs& args_;
  std::vector<std::vector<int64_t>> strides_;  // by tensor, row-major
  std::vector<std::vector<double>> storage_;   // by tensor: those the definition computes
};

}  // namespace

void run_reference(const Definition& def, const backbone::Sizes& sizes, backbone::HostArgs& args) {
  Reference(def, sizes, args).run();
}

}  // namespace sculpt::frontend
