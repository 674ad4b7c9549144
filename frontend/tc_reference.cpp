#include "frontend/tc_reference.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

#include "backbone/reference.h"
#include "support/check.h"

namespace sculpt::frontend {
namespace {

using backbone::Buffer;
using backbone::ElemType;

/// Elements evaluated together: an expression is walked once per batch of consecutive values of
/// one index, not once per element, and each of its nodes is a loop the compiler vectorises.
constexpr int64_t kBatch = 256;

/// acc[t] combined with v[t] for each t, in that order for each element.
void fold(Reduction reduction, double* acc, const double* v, int64_t count) {
  switch (reduction) {
    case Reduction::kSum:
      for (int64_t t = 0; t < count; ++t) acc[t] += v[t];
      return;
    case Reduction::kProduct:
      for (int64_t t = 0; t < count; ++t) acc[t] *= v[t];
      return;
    case Reduction::kMin:
      for (int64_t t = 0; t < count; ++t) acc[t] = std::min(acc[t], v[t]);
      return;
    case Reduction::kMax:
      for (int64_t t = 0; t < count; ++t) acc[t] = std::max(acc[t], v[t]);
      return;
    case Reduction::kNone:
      std::copy(v, v + count, acc);
      return;
  }
}

/// out[t] = elements[first + step * t] of `buffer`, converted to double (exact).
void gather(const Buffer& buffer, int64_t first, int64_t step, int64_t count, double* out) {
  SCULPT_CHECK(first >= 0 && first < buffer.size() && first + step * (count - 1) >= 0 &&
               first + step * (count - 1) < buffer.size())
      << "reference read at " << first << " step " << step << " outside " << buffer.size();
  const auto read = [&](const auto* elements) {
    for (int64_t t = 0; t < count; ++t) out[t] = static_cast<double>(elements[first + step * t]);
  };
  switch (buffer.type()) {
    case ElemType::kF32:
      return read(buffer.as<float>());
    case ElemType::kF64:
      return read(buffer.as<double>());
    case ElemType::kI32:
      return read(buffer.as<int32_t>());
  }
}

/// elements[first + step * t] of `buffer` = values[t] rounded to its type.
void scatter(Buffer& buffer, int64_t first, int64_t step, int64_t count, const double* values) {
  const auto write = [&](auto* elements) {
    using T = std::remove_pointer_t<decltype(elements)>;
    for (int64_t t = 0; t < count; ++t) elements[first + step * t] = static_cast<T>(values[t]);
  };
  switch (buffer.type()) {
    case ElemType::kF32:
      return write(buffer.as<float>());
    case ElemType::kF64:
      return write(buffer.as<double>());
    case ElemType::kI32:
      return write(buffer.as<int32_t>());
  }
}

/// An expression ready to evaluate: names resolved to numbers, buffers and strides.
struct Node {
  Expr::Kind kind = Expr::Kind::kConstant;
  ElemType type = ElemType::kF32;             // comparisons compare in it
  bool integer = false;                       // an int32 operation: truncates
  double value = 0;                           // constants, sizes, scalars
  int slot = -1;                              // kIndex
  const Buffer* tensor = nullptr;             // kRead: an input or a tensor the definition computes
  std::vector<std::pair<int, int64_t>> flat;  // element = sum of stride * index + constant
  int64_t flat_constant = 0;
  int row = 0;  // its values' row of the batch's scratch
  std::vector<Node> args;
};

/// The values of `n` at `count` consecutive values of index slot `along` from index[along] on
/// (every other index as in `index`), in its row of `scratch`.
const double* eval(const Node& n, const int64_t* index, int along, int64_t count, double* scratch) {
  double* out = scratch + n.row * kBatch;
  switch (n.kind) {
    case Expr::Kind::kConstant:
    case Expr::Kind::kSize:
    case Expr::Kind::kScalar:
      std::fill(out, out + count, n.value);
      return out;
    case Expr::Kind::kIndex:
      for (int64_t t = 0; t < count; ++t) {
        out[t] = static_cast<double>(index[n.slot] + (n.slot == along ? t : 0));
      }
      return out;
    case Expr::Kind::kRead: {
      int64_t first = n.flat_constant, step = 0;
      for (const auto& [slot, stride] : n.flat) {
        first += stride * index[slot];
        if (slot == along) step = stride;
      }
      gather(*n.tensor, first, step, count, out);
      return out;
    }
    default:
      break;
  }
  const double* a = eval(n.args[0], index, along, count, scratch);
  switch (n.kind) {
    case Expr::Kind::kNeg:
      for (int64_t t = 0; t < count; ++t) out[t] = -a[t];
      return out;
    case Expr::Kind::kExp:
      for (int64_t t = 0; t < count; ++t) out[t] = std::exp(a[t]);
      return out;
    case Expr::Kind::kSqrt:
      for (int64_t t = 0; t < count; ++t) out[t] = std::sqrt(a[t]);
      return out;
    case Expr::Kind::kNot:
      for (int64_t t = 0; t < count; ++t) out[t] = a[t] == 0;
      return out;
    case Expr::Kind::kSelect: {
      const double* b = eval(n.args[1], index, along, count, scratch);
      const double* c = eval(n.args[2], index, along, count, scratch);
      for (int64_t t = 0; t < count; ++t) out[t] = a[t] != 0 ? b[t] : c[t];
      return out;
    }
    default:
      break;
  }
  const double* b = eval(n.args[1], index, along, count, scratch);
  const auto apply = [&](auto op) {
    for (int64_t t = 0; t < count; ++t) out[t] = op(a[t], b[t]);
  };
  switch (n.kind) {
    case Expr::Kind::kAdd:
      apply([](double x, double y) { return x + y; });
      break;
    case Expr::Kind::kSub:
      apply([](double x, double y) { return x - y; });
      break;
    case Expr::Kind::kMul:
      apply([](double x, double y) { return x * y; });
      break;
    case Expr::Kind::kDiv:
      if (n.integer) {
        apply([](double x, double y) { return y == 0 ? 0 : x / y; });
      } else {
        apply([](double x, double y) { return x / y; });
      }
      break;
    case Expr::Kind::kMin:
      apply([](double x, double y) { return std::min(x, y); });
      break;
    case Expr::Kind::kMax:
      apply([](double x, double y) { return std::max(x, y); });
      break;
    case Expr::Kind::kAnd:
      apply([](double x, double y) { return static_cast<double>(x != 0 && y != 0); });
      break;
    case Expr::Kind::kOr:
      apply([](double x, double y) { return static_cast<double>(x != 0 || y != 0); });
      break;
    default: {
      // In the comparison's type, as the device compares (`x > 0.1` against 0.1f for float).
      const backbone::Operator op = comparison_operator(n.kind);
      apply([&](double x, double y) {
        return static_cast<double>(
            backbone::compare(op, backbone::round_to(n.type, x), backbone::round_to(n.type, y)));
      });
      break;
    }
  }
  if (n.integer) {
    for (int64_t t = 0; t < count; ++t) out[t] = std::trunc(out[t]);
  }
  return out;
}

/// Steps an odometer over the index slots `ids` (the last fastest) from `first` over
/// `extent`; false once it wraps around.
bool next(const std::vector<int>& ids, const std::vector<int64_t>& first,
          const std::vector<int64_t>& extent, int64_t* index) {
  for (std::size_t k = ids.size(); k-- > 0;) {
    if (++index[ids[k]] < first[ids[k]] + extent[ids[k]]) return true;
    index[ids[k]] = first[ids[k]];
  }
  return false;
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
      // Values are rounded to the tensor's type as they are stored: keeping them in that type
      // loses nothing. An output (in-out ones with their initial values) is computed in its
      // argument's elements, which nothing else reads.
      const int id = static_cast<int>(storage_.size());
      if (std::find(def.outputs.begin(), def.outputs.end(), id) == def.outputs.end()) {
        storage_.emplace_back(t.type, t.defined() ? elements : 0);
        continue;
      }
      Buffer& argument = args.array(t.name);
      SCULPT_CHECK(argument.type() == t.type && argument.size() == elements)
          << "output " << t.name << " has an argument of another type or size";
      storage_.push_back(Buffer::view(t.type, elements, argument.bytes()));
    }
  }

  void run() {
    for (const Statement& st : def_.statements) execute(st);
  }

 private:
  /// `e` as a node, numbering its scratch rows from `*rows` on.
  Node compile(const Expr& e, const Statement& st, int* rows) const {
    Node n;
    n.kind = e.kind;
    n.type = e.type.value_or(ElemType::kF32);
    n.integer = e.type == ElemType::kI32;
    n.value = e.value;
    n.slot = e.id;
    n.row = (*rows)++;
    if (e.kind == Expr::Kind::kSize) n.value = static_cast<double>(sizes_.at(e.name));
    if (e.kind == Expr::Kind::kScalar) n.value = args_.scalar(def_.scalars[e.id].name);
    if (e.kind == Expr::Kind::kRead) {
      const Tensor& t = def_.tensors[e.id];
      n.tensor = t.defined() ? &storage_[e.id] : &args_.array(t.name);
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
    for (const Expr& arg : e.args) n.args.push_back(compile(arg, st, rows));
    return n;
  }

  /// One statement, in batches along its last left-hand index, in parallel over its first. Each
  /// element still accumulates its terms in increasing order of the reduced indices.
  void execute(const Statement& st) {
    SCULPT_CHECK(!st.lhs.empty()) << "a statement without indices (0-d tensors are refused)";
    int rows = 0;
    const Node rhs = compile(st.rhs, st, &rows);
    const Tensor& t = def_.tensors[st.tensor];
    std::vector<int64_t> first, extent;
    for (const Index& index : st.indices) {
      first.push_back(def_.dims[index.dim].range.first(sizes_));
      extent.push_back(def_.dims[index.dim].range.extent(sizes_));
    }
    const std::vector<int> reduced = st.reduced();
    Buffer& out = storage_[st.tensor];
    const double initial = neutral(st.reduction, t.type);
    const bool from_initial = st.reduction == Reduction::kNone || st.init;

    const int outer = st.lhs.front(), along = st.lhs.back();
    // The left-hand indices between the first and the last, stepped by an odometer.
    const std::vector<int> middle = st.lhs.size() > 2
                                        ? std::vector<int>(st.lhs.begin() + 1, st.lhs.end() - 1)
                                        : std::vector<int>{};
    const int64_t along_stride = strides_[st.tensor].back();
    // The batch at index[along] .. + count: every element's terms, then its store.
    const auto batch = [&](std::vector<int64_t>& index, int64_t count, double* scratch,
                           double* acc) {
      int64_t at = 0;
      for (std::size_t p = 0; p < st.lhs.size(); ++p) {
        at += strides_[st.tensor][p] * index[st.lhs[p]];
      }
      if (from_initial) {
        std::fill(acc, acc + count, initial);
      } else {
        gather(out, at, along_stride, count, acc);
      }
      do {
        fold(st.reduction, acc, eval(rhs, index.data(), along, count, scratch), count);
      } while (next(reduced, first, extent, index.data()));
      for (int64_t c = 0; c < count; ++c) acc[c] = backbone::round_to(t.type, acc[c]);
      scatter(out, at, along_stride, count, acc);
    };
    tbb::parallel_for(
        tbb::blocked_range<int64_t>(0, extent[outer], outer == along ? kBatch : 1),
        [&](const tbb::blocked_range<int64_t>& range) {
          std::vector<double> scratch(static_cast<std::size_t>(rows * kBatch));
          std::vector<double> acc(kBatch);
          std::vector<int64_t> index(first);
          if (outer == along) {
            for (int64_t i = range.begin(); i < range.end(); i += kBatch) {
              index[along] = first[along] + i;
              batch(index, std::min(kBatch, range.end() - i), scratch.data(), acc.data());
            }
            return;
          }
          for (int64_t row = range.begin(); row < range.end(); ++row) {
            index[outer] = first[outer] + row;
            do {
              for (int64_t j = 0; j < extent[along]; j += kBatch) {
                index[along] = first[along] + j;
                batch(index, std::min(kBatch, extent[along] - j), scratch.data(), acc.data());
              }
            } while (next(middle, first, extent, index.data()));
          }
        });
  }

  const Definition& def_;
  const backbone::Sizes& sizes_;
  backbone::HostArgs& args_;
  std::vector<std::vector<int64_t>> strides_;  // by tensor, row-major
  std::vector<Buffer> storage_;  // by tensor: those the definition computes, in their type
};

}  // namespace

void run_reference(const Definition& def, const backbone::Sizes& sizes, backbone::HostArgs& args) {
  Reference(def, sizes, args).run();
}

}  // namespace sculpt::frontend
