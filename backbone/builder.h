#pragma once
// Builds a backbone at the level of tensor expressions. Every operation sits in its own loop nest
// (inside the loops opened with `open`), over the logical dimensions of its operands and indices;
// values flow between nests through point-to-point communications that the builder infers by
// matching logical dimensions. Matmul in a dozen lines:
//
//   Builder b("matmul");
//   Size m = b.size("m", 256), n = b.size("n", 256), k = b.size("k", 32);
//   Array A = b.array("A", ElemType::kF32, {m, k}, MemRegion::Kind::kInput);
//   Array B = b.array("B", ElemType::kF32, {k, n}, MemRegion::Kind::kInput);
//   Array C = b.array("C", ElemType::kF32, {m, n}, MemRegion::Kind::kOutput);
//   Dim M = b.dim("m", m, Tiling{{Tiling::range(2, 32), Tiling::range(2, 4)}});
//   Dim N = b.dim("n", n, Tiling{{Tiling::range(2, 32), Tiling::range(2, 4)}});
//   Dim K = b.dim("k", k);
//   Value a = b.load(A, {M, K});           // a = load A[m, k] in its nest (m_a, k_a)
//   Value bv = b.load(B, {K, N});
//   Value c = b.fma(a, bv, b.reduce(b.mov(b.constant(0.0)), {K}));  // in (m, n, k)
//   b.store(C, {M, N}, c);
//   Kernel kernel = std::move(b).finish();
//
// Instructions get their ids in creation order: build operations in separate statements where
// several operands create instructions (C++ leaves the order of argument evaluation open, and
// ids must not depend on the compiler).
//
// Misuse of the builder (an unknown dim, a value read where it is not defined) is a bug in the
// kernel definition and fails a SCULPT_CHECK.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "backbone/kernel.h"

namespace sculpt::backbone {

/// A size parameter bound to its value for this search.
struct Size {
  ParamId param;
  int64_t value = 0;
};

/// Candidate tile sizes per strip-mining level, outer to inner. The builder keeps the candidates
/// that divide the dimension's size and adds 1 ("not tiled at this level").
struct Tiling {
  std::vector<std::vector<int64_t>> levels;
  static std::vector<int64_t> range(int64_t lo, int64_t hi);  // lo..hi inclusive
};

struct Dim {
  LogicalDimId id;
};

/// An affine index of a tensor access: `M`, `I + 1`, `2 * J`.
struct Index {
  AffineExpr expr;
  Index(Dim dim) : expr{{{dim.id, 1}}, 0} {}  // NOLINT: implicit so that `{M, K}` reads well
  explicit Index(AffineExpr e) : expr(std::move(e)) {}
};
Index operator+(Index index, int64_t constant);
Index operator-(Index index, int64_t constant);
Index operator+(Index lhs, const Index& rhs);
Index operator*(int64_t coeff, Index index);

struct Array {
  MemId mem;
};

/// An operand under construction: a constant, a parameter, an instruction's value, an
/// induction variable, or (only as an operand) a reduction.
struct Value {
  Operand::Kind kind = Operand::Kind::kConstant;
  double constant = 0;
  std::optional<ElemType> type;  // unset for constants: they take the instruction's type
  ParamId param;
  InstId inst;  // kValue; kReduction: the init instruction
  AffineExpr index;
  std::vector<LogicalDimId> reduced;  // kReduction
};

class Builder {
 public:
  explicit Builder(std::string kernel_name);

  // Signature.
  Size size(std::string name, int64_t value);
  Value scalar(std::string name, ElemType type);
  /// An array of `shape` (row-major unless `strides` are given, in elements).
  Array array(std::string name, ElemType type, std::vector<Size> shape, MemRegion::Kind kind,
              std::vector<int64_t> strides = {});

  // Iteration space.
  Dim dim(std::string name, Size size, const Tiling& tiling = {});
  /// Opens a loop of `dim` shared by every operation built until the matching `close`: the
  /// operations inside run in program order at each of its iterations.
  void open(Dim dim);
  void close();

  // Operations; each creates one instruction in a fresh nest.
  Value constant(double value, std::optional<ElemType> type = std::nullopt);
  Value index(Index index);
  Value load(Array array, const std::vector<Index>& index);
  void store(Array array, const std::vector<Index>& index, const Value& value);
  Value mov(const Value& a);
  Value add(const Value& a, const Value& b);
  Value sub(const Value& a, const Value& b);
  Value mul(const Value& a, const Value& b);
  Value div(const Value& a, const Value& b);
  Value min(const Value& a, const Value& b);
  Value max(const Value& a, const Value& b);
  Value fma(const Value& a, const Value& b, const Value& c);
  Value exp(const Value& a);
  Value sqrt(const Value& a);
  /// `a op b` as 1 or 0 (op: is_comparison), in the type of the first typed operand.
  Value compare(Operator op, const Value& a, const Value& b);
  /// `cond != 0 ? a : b`, in the type of the first typed branch (else the condition's).
  Value select(const Value& cond, const Value& a, const Value& b);
  Value cast(const Value& a, ElemType type);
  /// The operand of a reduction over `dims`: the instruction's own previous value, `init` (a
  /// value of an instruction outside the reduced dims) at the first iteration.
  Value reduce(const Value& init, const std::vector<Dim>& dims);

  /// Pre-allocates the lowering objects and returns the kernel; the builder is spent.
  Kernel finish() &&;

 private:
  Value emit(Operator op, std::vector<Value> operands, std::optional<ElemType> type = {});
  InstId add_inst(Operator op, std::vector<Value> operands, std::optional<ElemType> type,
                  const std::vector<Index>& index, std::optional<Access> access);
  std::vector<LogicalDimId> value_dims(const Value& value) const;
  Operand make_operand(const Value& value, InstId consumer, int position);
  CommId connect(InstId producer, InstId consumer, int position, Communication::Kind kind);
  LoopId new_loop(LogicalDimId logical, std::optional<LoopId> parent);
  std::vector<ProgramNode>& current_body();
  void preallocate_lowering(Communication& comm);
  // Places `node` next to `anchor` (a loop or an instruction) in the default program.
  void insert_next_to(const ProgramNode& anchor, ProgramNode node, bool after);
  // What the kernel's copies will share, which only the builder writes.
  Kernel::Data& data() { return *kernel_.data_; }

  Kernel kernel_;
  std::vector<LoopId> open_;
};

}  // namespace sculpt::backbone
