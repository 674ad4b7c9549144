#include "frontend/tc_builder.h"

#include <algorithm>
#include <optional>
#include <set>

#include "support/check.h"

namespace sculpt::frontend {
namespace {

using backbone::Array;
using backbone::Builder;
using backbone::ElemType;
using backbone::Operand;
using backbone::Size;
using backbone::Value;

class KernelBuilder {
 public:
  KernelBuilder(const Definition& def, const backbone::Sizes& sizes, const BuildOptions& options)
      : def_(def), sizes_(sizes), options_(options), b_(def.name) {}

  backbone::Kernel build() && {
    signature();
    for (const Dim& dim : def_.dims) {
      backbone::Tiling tiling = dim.parallel ? parallel_tiling() : reduction_tiling();
      if (auto it = options_.tiling.find(dim.name); it != options_.tiling.end())
        tiling = it->second;
      dims_.push_back(b_.dim(dim.name, dim_sizes_[dims_.size()], tiling));
      firsts_.push_back(dim.range.first(sizes_));
    }
    values_.resize(def_.tensors.size());
    for (std::size_t s = 0; s < def_.statements.size(); ++s) statement(static_cast<int>(s));
    return std::move(b_).finish();
  }

 private:
  void signature() {
    std::set<std::string> names(def_.sizes.begin(), def_.sizes.end());
    for (const auto& [name, value] : sizes_.entries()) {
      if (std::find(def_.sizes.begin(), def_.sizes.end(), name) == def_.sizes.end()) continue;
      sizes_by_name_.emplace(name, b_.size(name, value));
    }
    SCULPT_CHECK(sizes_by_name_.size() == def_.sizes.size()) << def_.name << ": sizes missing";
    for (const Scalar& s : def_.scalars) names.insert(s.name);
    for (const Tensor& t : def_.tensors) names.insert(t.name);
    // A dimension over `0:S` for a size S iterates over S; any other range gets a size of its own.
    for (const Dim& dim : def_.dims) {
      const int64_t extent = dim.range.extent(sizes_);
      SCULPT_CHECK(extent > 0) << def_.name << ": dimension " << dim.name << " is empty";
      if (const std::optional<std::string> size = dim.range.as_size()) {
        dim_sizes_.push_back(sizes_by_name_.at(*size));
        continue;
      }
      std::string name = dim.name + "_size";
      while (!names.insert(name).second) name += "_";
      dim_sizes_.push_back(b_.size(name, extent));
    }
    for (const Definition::Param& p : def_.params) {
      if (p.scalar) {
        scalars_.push_back(b_.scalar(def_.scalars[p.id].name, def_.scalars[p.id].type));
        continue;
      }
      const Tensor& t = def_.tensors[p.id];
      std::vector<Size> shape;
      for (const std::string& size : t.sizes) shape.push_back(sizes_by_name_.at(size));
      arrays_[p.id] = b_.array(t.name, t.type, shape, backbone::MemRegion::Kind::kInput);
    }
    for (int id : def_.outputs) {
      const Tensor& t = def_.tensors[id];
      std::vector<Size> shape;
      for (int dim : t.dims) shape.push_back(dim_sizes_[dim]);
      arrays_[id] = b_.array(
          t.name, t.type, shape,
          t.reads_initial ? backbone::MemRegion::Kind::kInOut : backbone::MemRegion::Kind::kOutput);
    }
  }

  /// The index `id` of statement `s_` as an affine index over its dimension.
  backbone::Index index_of(int id) const {
    const int dim = def_.statements[s_].indices[id].dim;
    return backbone::Index(dims_[dim]) + firsts_[dim];
  }

  std::vector<backbone::Index> subscripts(const Expr& read) const {
    std::vector<backbone::Index> out;
    for (const Subscript& s : read.subscripts) {
      backbone::AffineExpr flat{{}, s.constant};
      for (const auto& [id, coeff] : s.terms) {
        const backbone::Index term = coeff * index_of(id);
        flat.terms.push_back(term.expr.terms.front());
        flat.constant += term.expr.constant;
      }
      out.emplace_back(std::move(flat));
    }
    return out;
  }

  std::vector<backbone::Index> lhs_indices(const Tensor& t) const {
    std::vector<backbone::Index> out;
    for (int dim : t.dims) out.emplace_back(dims_[dim]);
    return out;
  }

  /// `v` in `type`: instructions and indices of another type are cast.
  Value as(const Value& v, std::optional<ElemType> type) {
    if (!type || !v.type || *v.type == *type) return v;
    return b_.cast(v, *type);
  }

  Value binary(const Expr& e) {
    Value a = as(eval(e.args[0]), e.type);
    Value c = as(eval(e.args[1]), e.type);
    switch (e.kind) {
      case Expr::Kind::kAdd:
        return b_.add(a, c);
      case Expr::Kind::kSub:
        return b_.sub(a, c);
      case Expr::Kind::kMul:
        return b_.mul(a, c);
      case Expr::Kind::kDiv:
        return b_.div(a, c);
      case Expr::Kind::kMin:
      case Expr::Kind::kAnd:  // conditions are 0 or 1: `&&` is their min, `||` their max
        return b_.min(a, c);
      case Expr::Kind::kMax:
      case Expr::Kind::kOr:
        return b_.max(a, c);
      default:
        return b_.compare(comparison_operator(e.kind), a, c);
    }
  }

  Value select(const Expr& e) {
    const Value cond = eval(e.args[0]);
    const Value then = as(eval(e.args[1]), e.type);
    const Value otherwise = as(eval(e.args[2]), e.type);
    return b_.select(cond, then, otherwise);
  }

  /// `x * y + z` and `z + x * y` as one fma, as a compiler would contract them.
  std::optional<Value> fma(const Expr& e) {
    if (e.kind != Expr::Kind::kAdd) return std::nullopt;
    for (int m = 0; m < 2; ++m) {
      const Expr& product = e.args[m];
      if (product.kind != Expr::Kind::kMul || product.type != e.type) continue;
      std::optional<Value> addend;
      if (m == 1) addend = as(eval(e.args[0]), e.type);
      Value x = as(eval(product.args[0]), e.type);
      Value y = as(eval(product.args[1]), e.type);
      if (m == 0) addend = as(eval(e.args[1]), e.type);
      return b_.fma(x, y, *addend);
    }
    return std::nullopt;
  }

  Value eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kConstant:
        return b_.constant(e.value);
      case Expr::Kind::kIndex:
        return b_.index(index_of(e.id));
      case Expr::Kind::kSize:
        return b_.constant(static_cast<double>(sizes_.at(e.name)));
      case Expr::Kind::kScalar:
        return scalars_[e.id];
      case Expr::Kind::kRead:
        if (def_.tensors[e.id].defined()) return *values_[e.id];
        return b_.load(arrays_.at(e.id), subscripts(e));
      case Expr::Kind::kNeg:
        return b_.sub(b_.constant(0.0), as(eval(e.args[0]), e.type));
      case Expr::Kind::kExp:
        return b_.exp(as(eval(e.args[0]), ElemType::kF32));
      case Expr::Kind::kSqrt:
        return b_.sqrt(as(eval(e.args[0]), e.type));
      case Expr::Kind::kNot:
        return b_.compare(backbone::Operator::kEq, as(eval(e.args[0]), e.type), b_.constant(0.0));
      case Expr::Kind::kSelect:
        return select(e);
      default:
        if (std::optional<Value> fused = fma(e)) return *fused;
        return binary(e);
    }
  }

  /// The reduction of statement `s_` over its reduced indices, from `init`.
  Value reduce(const Statement& st, Value init, ElemType type) {
    std::vector<backbone::Dim> reduced;
    for (int id : st.reduced()) reduced.push_back(dims_[st.indices[id].dim]);
    // A reduction starts from an instruction's value or a constant.
    if (init.kind != Operand::Kind::kValue && init.kind != Operand::Kind::kConstant) {
      init = b_.mov(init);
    }
    const Expr& body = st.rhs;
    if (reduced.empty()) {
      // Nothing to reduce over: one step, from `init`.
      Value v = as(eval(body), type);
      if (st.init) return v;
      switch (st.reduction) {
        case Reduction::kSum:
          return b_.add(v, init);
        case Reduction::kProduct:
          return b_.mul(v, init);
        case Reduction::kMin:
          return b_.min(v, init);
        default:
          return b_.max(v, init);
      }
    }
    const Value acc = b_.reduce(init, reduced);
    if (st.reduction == Reduction::kSum && body.kind == Expr::Kind::kMul && body.type == type) {
      Value x = eval(body.args[0]);
      Value y = eval(body.args[1]);
      return b_.fma(as(x, type), as(y, type), acc);
    }
    Value v = as(eval(body), type);
    switch (st.reduction) {
      case Reduction::kSum:
        return b_.add(v, acc);
      case Reduction::kProduct:
        return b_.mul(v, acc);
      case Reduction::kMin:
        return b_.min(v, acc);
      default:
        return b_.max(v, acc);
    }
  }

  void statement(int s) {
    s_ = s;
    const Statement& st = def_.statements[s];
    const Tensor& t = def_.tensors[st.tensor];
    Value v;
    if (st.reduction == Reduction::kNone) {
      v = as(eval(st.rhs), t.type);
    } else {
      Value init = b_.constant(neutral(st.reduction, t.type));
      if (!st.init) {
        init = values_[st.tensor] ? *values_[st.tensor]
                                  : b_.load(arrays_.at(st.tensor), lhs_indices(t));
      }
      v = reduce(st, init, t.type);
    }
    values_[st.tensor] = v;
    if (t.role == Tensor::Role::kOutput && t.last_statement == s) {
      b_.store(arrays_.at(st.tensor), lhs_indices(t), v);
    }
  }

  const Definition& def_;
  const backbone::Sizes& sizes_;
  const BuildOptions& options_;
  Builder b_;
  std::map<std::string, Size> sizes_by_name_;
  std::vector<Size> dim_sizes_;  // by dimension
  std::vector<Value> scalars_;
  std::map<int, Array> arrays_;  // by tensor
  std::vector<backbone::Dim> dims_;
  std::vector<int64_t> firsts_;               // each dimension's first index
  std::vector<std::optional<Value>> values_;  // each defined tensor's value so far
  int s_ = 0;                                 // the statement being built
};

}  // namespace

backbone::Tiling parallel_tiling() {
  return backbone::Tiling{{backbone::Tiling::range(2, 32), backbone::Tiling::range(2, 8)}};
}

backbone::Tiling reduction_tiling() { return backbone::Tiling{{backbone::Tiling::range(2, 32)}}; }

backbone::Kernel build_kernel(const Definition& def, const backbone::Sizes& sizes,
                              const BuildOptions& options) {
  return KernelBuilder(def, sizes, options).build();
}

}  // namespace sculpt::frontend
