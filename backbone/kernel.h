#pragma once
// The semantic backbone of one kernel for one problem size: its signature, logical dimensions
// strip-mined into tile dimensions, the default loop nests, instructions with their operands and
// affine memory accesses, point-to-point communications between nests, and the objects that
// lowerings may add later (pre-allocated, each naming the communication whose lowering adds
// it). Built by `Builder` (builder.h); after that, the lowerings (lowering.cpp) change only which
// communications are lowered, so copies share everything else.
//
// Layout of the default program: a tree of loops and instructions in program order. A `Loop` is
// one opening of a `LogicalDim` (the paper's "dimension of the original code"); it iterates the
// logical index 0..size-1 and is strip-mined into `Dimension`s: one dynamic dimension (the
// remainder, outermost) and one static tile dimension per tiling level, so that the logical index
// is dyn * (t1 * ... * tn) + i1 * (t2 * ... * tn) + ... + in.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backbone/ids.h"

namespace sculpt::backbone {

enum class ElemType { kF32, kF64, kI32 };
std::string_view elem_type_name(ElemType type);
int64_t elem_type_bytes(ElemType type);

enum class Operator {
  kMov,  // copy of its operand (e.g. a reduction init from a constant)
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFma,  // a * b + c
  kMin,
  kMax,
  kExp,
  kSqrt,
  kCast,  // to the instruction's element type
  kLoad,
  kStore,  // operand 0 is the stored value; produces no value
  // Comparisons of their two operands in the instruction's type, giving 1 where it holds and 0
  // elsewhere, in that type: conditions stay numbers, so that they flow between nests and
  // through temporaries as any value does. kNe holds for NaN operands, as C's `!=`. Kept
  // together: is_comparison tests the range.
  kLt,
  kLe,
  kGt,
  kGe,
  kEq,
  kNe,
  kSelect,  // operand 0 != 0 ? operand 1 : operand 2
};
std::string_view operator_name(Operator op);
int operator_arity(Operator op);
bool is_comparison(Operator op);

/// `coeff * index(logical)`; affine indices are sums of terms plus a constant.
struct AffineTerm {
  LogicalDimId logical;
  int64_t coeff = 0;
};

struct AffineExpr {
  std::vector<AffineTerm> terms;
  int64_t constant = 0;
};

/// A kernel parameter: a problem size (i32, bound to a concrete value at search time), a scalar
/// argument or an array (pointer to a memory region).
struct Parameter {
  enum class Kind { kSize, kScalar, kArray };
  ParamId id;
  std::string name;
  Kind kind = Kind::kScalar;
  ElemType type = ElemType::kF32;
  int64_t size_value = 0;  // kSize only
  MemId mem;               // kArray only
};

struct LogicalDim {
  LogicalDimId id;
  std::string name;
  ParamId size_param;  // the size parameter this dimension iterates over
  int64_t size = 0;
  /// Candidate sizes of each tile level, outer to inner: the pattern's candidates that divide
  /// `size` (1 means "not tiled" at that level).
  std::vector<std::vector<int64_t>> tile_sizes;
  std::vector<LoopId> loops;  // every opening of this dimension in the default nests
};

class Dimension;
class Instruction;

/// What instructions and dimensions share: the statement id space of the `order` choice.
class Statement {
 public:
  StmtId stmt_id() const { return stmt_id_; }
  const Dimension* as_dim() const;
  const Instruction* as_inst() const;

 protected:
  enum class Kind { kInst, kDim };
  explicit Statement(Kind kind) : kind_(kind) {}

 private:
  friend class Kernel;
  Kind kind_;
  StmtId stmt_id_;
};

class Dimension : public Statement {
 public:
  Dimension() : Statement(Kind::kDim) {}
  DimId id;
  LoopId loop;
  LogicalDimId logical;
  int level = -1;  // -1: the dynamic remainder; 0..: static tile level, outer to inner
  bool is_static() const { return level >= 0; }
  /// Candidate sizes of a static dimension (the `size` choice's universe); empty if dynamic.
  std::vector<int64_t> possible_sizes;
  std::string name;
  /// The communication whose lowering adds it (the loops of a temporary's load); none for the
  /// dimensions of the default nests.
  CommId added_by{};
};

struct Loop {
  LoopId id;
  LogicalDimId logical;
  std::optional<LoopId> parent;  // the enclosing loop in the default nests
  DimId dynamic_dim;
  std::vector<DimId> tile_dims;     // outer to inner
  std::vector<DimId> dims() const;  // dynamic first, then tile dims
};

/// An element index into a memory region: offset + sum of coeff * index(logical), in elements.
/// Each accessing instruction has one loop per logical dimension it indexes by.
struct Access {
  MemId mem;
  AffineExpr index;
};

struct Operand {
  enum class Kind {
    kConstant,
    kParam,      // a scalar kernel parameter (or a size)
    kIndex,      // induction variable: affine in the logical indices of the instruction's loops
    kValue,      // the value of another instruction (through `comm` when nests differ)
    kReduction,  // the instruction's own previous value over `reduction_loops`, `inst` at first
  };
  Kind kind = Kind::kConstant;
  double constant = 0;
  ParamId param;
  AffineExpr index;
  // kValue: the producer; kReduction: the init instruction. Once `comm` is lowered, the value
  // comes from its temporary's load instead: see Kernel::source.
  InstId inst;
  CommId comm;  // kValue, kReduction: the communication when the nests differ
  std::vector<LoopId> reduction_loops;  // kReduction: loops of this instruction reduced over
};

class Instruction : public Statement {
 public:
  Instruction() : Statement(Kind::kInst) {}
  InstId id;
  std::string name;
  Operator op = Operator::kMov;
  ElemType type = ElemType::kF32;  // of the produced value, or of the stored element
  std::vector<Operand> operands;
  std::vector<LoopId> loops;     // enclosing loops of the default nests, outer to inner
  std::optional<Access> access;  // loads and stores
  CommId added_by{};             // the communication whose lowering adds it, if any

  bool is_mem() const { return op == Operator::kLoad || op == Operator::kStore; }
  bool has_value() const { return op != Operator::kStore; }
  /// Loops over which the instruction reduces its own value (empty for non reductions).
  const std::vector<LoopId>& reduction_loops() const;
};

// Inline: generated propagators cast statements on every tuple they read.
inline const Dimension* Statement::as_dim() const {
  return kind_ == Kind::kDim ? static_cast<const Dimension*>(this) : nullptr;
}
inline const Instruction* Statement::as_inst() const {
  return kind_ == Kind::kInst ? static_cast<const Instruction*>(this) : nullptr;
}

struct MemRegion {
  enum class Kind { kInput, kOutput, kInOut, kTemporary };
  MemId id;
  std::string name;
  Kind kind = Kind::kInput;
  ElemType type = ElemType::kF32;
  ParamId param;                     // arrays: the pointer parameter; temporaries: none
  std::vector<int64_t> extents;      // logical shape
  std::vector<int64_t> strides;      // elements between consecutive indices of each extent
  std::vector<LogicalDimId> layout;  // temporaries: the logical dims indexing it, row-major
  // Temporaries: the dim mappings of their communication, outer to inner. The accesses above
  // give every pair of mapped dims its own slots (always correct: what the interpreter runs);
  // `Kernel::temp_layout` compacts the array once the candidate knows which pairs need them.
  std::vector<DimMappingId> layout_mappings;
  CommId added_by{};  // temporaries: the communication whose lowering adds it

  /// Elements to allocate: one past the largest index reachable through the strides.
  int64_t num_elements() const;
  bool is_read() const { return kind != Kind::kOutput; }
  bool is_written() const { return kind != Kind::kInput; }
};

/// A pair of dimensions of the same logical dimension and tile level, in different nests, such
/// that the value produced at iteration i of `src` is consumed at iteration i of `dst`.
struct DimMapping {
  DimMappingId id;
  DimId src;
  DimId dst;
  CommId comm;
  CommId added_by{};  // the communication whose lowering adds it, if any
};

/// A value flowing from a producer's nest to a consumer's nest. Value communications can be
/// lowered into a temporary array; their lowering objects exist from the start.
struct Communication {
  enum class Kind {
    kValue,
    kReductionInit,
    kTemporaryRead,  // from a temporary's load, in loops of its own, to the consumer
  };
  CommId id;
  Kind kind = Kind::kValue;
  InstId producer;
  InstId consumer;
  int operand = 0;                                    // position in the consumer's operands
  std::vector<std::pair<LoopId, LoopId>> loop_pairs;  // producer loop -> consumer loop
  std::vector<DimMappingId> mappings;                 // one per dimension of each loop pair
  // Pre-allocated lowering (kValue only): a temporary array indexed by the mapped logical dims,
  // a store of the producer's value in the producer's loops, a load in loops of its own (copies
  // of the consumer's loops that index the value), and `read`, the communication from the load
  // to the consumer, so that an implementation may read the temporary once for several
  // iterations of the consumer's loops and in vectors.
  MemId temp;
  InstId store;
  InstId load;
  CommId read;
  CommId added_by{};  // reads of temporaries: the communication whose lowering adds it
  /// Only value communications can go through memory: a reduction's init stays in registers,
  /// and what a temporary's load reads goes no further through memory.
  bool lowerable() const { return kind == Kind::kValue; }
};

/// A node of the default program: a loop (with its body) or an instruction.
struct ProgramNode {
  std::optional<LoopId> loop;
  std::optional<InstId> inst;
};

class Kernel {
 public:
  explicit Kernel(std::string name);

  const std::string& name() const { return data_->name; }

  // Capacities of the dense id spaces, objects lowerings may add included.
  uint32_t inst_capacity() const { return static_cast<uint32_t>(data_->insts.size()); }
  uint32_t dim_capacity() const { return static_cast<uint32_t>(data_->dims.size()); }
  uint32_t stmt_capacity() const { return inst_capacity() + dim_capacity(); }
  uint32_t mem_capacity() const { return static_cast<uint32_t>(data_->mems.size()); }
  uint32_t logical_dim_capacity() const { return static_cast<uint32_t>(data_->logicals.size()); }
  uint32_t loop_capacity() const { return static_cast<uint32_t>(data_->loops.size()); }
  uint32_t mapping_capacity() const { return static_cast<uint32_t>(data_->mappings.size()); }
  uint32_t comm_capacity() const { return static_cast<uint32_t>(data_->comms.size()); }

  const Instruction& inst(InstId id) const;
  const Dimension& dim(DimId id) const;
  const Loop& loop(LoopId id) const;
  const LogicalDim& logical_dim(LogicalDimId id) const;
  const MemRegion& mem(MemId id) const;
  const Parameter& param(ParamId id) const;
  const DimMapping& mapping(DimMappingId id) const;
  const Communication& comm(CommId id) const;
  const Statement& statement(StmtId id) const {
    if (id.value >= data_->stmt_position.size()) statement_out_of_range(id);
    const std::uint32_t position = data_->stmt_position[id.value];
    if (position < inst_capacity()) return data_->insts[position];
    return data_->dims[position - inst_capacity()];
  }
  StmtId stmt_id(InstId id) const { return data_->stmt_of_inst.at(id.value); }
  StmtId stmt_id(DimId id) const { return data_->stmt_of_dim.at(id.value); }

  /// Whether the object is present: part of the default program, or added by a lowering.
  template <typename Object>
  bool added(const Object& object) const {
    return !object.added_by.valid() || lowered(object.added_by);
  }
  /// Whether a value communication goes through its temporary.
  bool lowered(CommId id) const { return lowered_.at(id.value); }

  /// Where the value an operand reads comes from (kValue and kReduction operands): its producer
  /// and communication, or, once that communication is lowered, its temporary's load and the
  /// communication from the load.
  struct Source {
    InstId inst;
    CommId comm;
  };
  Source source(const Operand& operand) const;

  // Objects present now (added ones), in id order: what the space's set iterators list.
  std::vector<const Instruction*> instructions() const;
  std::vector<const Instruction*> mem_instructions() const;
  std::vector<const Dimension*> dimensions() const;
  std::vector<const Dimension*> static_dims() const;
  std::vector<const Statement*> statements() const;
  // Statement ids of every instruction, memory instruction, dimension and static dimension,
  // pre-allocated ones included: what the space's sets may ever hold.
  std::vector<StmtId> inst_stmt_ids() const;
  std::vector<StmtId> mem_inst_stmt_ids() const;
  std::vector<StmtId> dim_stmt_ids() const;
  std::vector<StmtId> static_dim_stmt_ids() const;
  std::vector<const MemRegion*> mem_regions() const;
  std::vector<const DimMapping*> dim_mappings() const;
  std::vector<const LogicalDim*> logical_dims() const;
  const std::vector<Loop>& loops() const { return data_->loops; }
  const std::vector<Parameter>& params() const { return data_->params; }
  /// Every communication, those lowerings add included.
  const std::vector<Communication>& comms() const { return data_->comms; }
  /// Static dims of every loop of `logical` (the space's TileDims($logical)).
  std::vector<const Dimension*> tile_dims(LogicalDimId logical) const;
  /// All dimensions of the loops an instruction sits in, outer to inner.
  std::vector<DimId> dims_of(InstId id) const;
  /// The instruction's loop of a logical dimension, if it has one.
  std::optional<LoopId> loop_of(InstId id, LogicalDimId logical) const;

  /// Stride, in elements, of each dimension of a memory instruction's loops in its access, given
  /// the size of every static dimension (the tile sizes a candidate chose): a logical stride s
  /// becomes s times the product of the inner tile sizes of that logical dim's loop. Dimensions
  /// the access does not depend on get 0. Bytes: times elem_type_bytes of the region.
  std::vector<std::pair<DimId, int64_t>> access_strides(
      InstId id, const std::function<int64_t(DimId)>& static_size) const;

  /// Size of a dynamic dimension: its logical size over the product of its loop's tile sizes.
  int64_t dynamic_size(DimId dim, const std::function<int64_t(DimId)>& static_size) const;

  /// Layout of a temporary for a fully specified candidate: a row-major array over the mapped
  /// dim pairs for which `indexed` holds (a pair of merged dims, or any pair whose iteration i
  /// is stored and loaded before iteration i + 1, needs no slot of its own). `dim_size` gives
  /// the size of any dimension. Strides are per mapping, in elements: the store uses them on
  /// the mapping's source dim, the load on its destination dim; 0 for pairs not indexed.
  struct TempLayout {
    int64_t elements = 1;
    std::vector<std::pair<DimMappingId, int64_t>> strides;
  };
  /// `inner`, when given, ranks mappings: higher ranks are laid out further inside (a stable
  /// order, the mappings' own among equal ranks), e.g. those a vector access runs along.
  TempLayout temp_layout(MemId temp, const std::function<bool(DimMappingId)>& indexed,
                         const std::function<int64_t(DimId)>& dim_size,
                         const std::function<int(DimMappingId)>& inner = {}) const;

  /// Loops indexing an instruction's value: its loops but the ones it reduces over (a reduction
  /// keeps one accumulator per iteration of the others).
  std::vector<LoopId> storage_loops(InstId id) const;
  /// For each storage loop of `producer`, the loop of `reader` holding the same index: the loop
  /// itself when both sit in it, else its partner in `comm`.
  std::vector<LoopId> value_index_loops(InstId producer, InstId reader, CommId comm) const;

  /// The default program: top-level nodes, and the body of each loop, in program order (the
  /// objects present only).
  std::vector<ProgramNode> body() const;
  std::vector<ProgramNode> body(LoopId loop) const;

  // Lowerings (lowering.cpp): they only add objects, never remove any.
  /// Lowers the value communication of `mapping` into its pre-allocated temporary array: a
  /// store of the producer's value in the producer's loops, a load in loops of its own copying
  /// the consumer's, and the consumer reads the load through the communication `read`.
  /// Lowering an already lowered communication adds nothing: false then. The space finds what
  /// was added by listing its sets again.
  bool lower_communication(DimMappingId mapping);
  /// The dimension of a lowered communication's load holding the iteration of the consumer's
  /// `consumer_dim` (a copy of it, or the dimension itself in a loop both share).
  DimId load_dim(CommId comm, DimId consumer_dim) const;

  /// Value of a size parameter by name; nullopt if there is none.
  std::optional<int64_t> size_value(std::string_view name) const;

  /// Multi-line human-readable listing (for logs and tests).
  std::string to_string() const;

 private:
  friend class Builder;
  // What lowerings never change: every object, pre-allocated ones included, and the default
  // program with the nodes of every lowering in place. Built by `Builder` (its only writer,
  // before the kernel is first copied) and shared by the copies, so that a candidate that lowers
  // copies a pointer and a few bits rather than the kernel.
  struct Data {
    std::string name;
    std::vector<Parameter> params;
    std::vector<LogicalDim> logicals;
    std::vector<Loop> loops;
    std::vector<Dimension> dims;
    std::vector<Instruction> insts;
    std::vector<MemRegion> mems;
    std::vector<DimMapping> mappings;
    std::vector<Communication> comms;
    std::vector<ProgramNode> body;
    std::vector<std::vector<ProgramNode>> loop_bodies;
    std::vector<StmtId> stmt_of_inst;
    std::vector<StmtId> stmt_of_dim;
    // By statement id: the instruction's id, or inst_capacity() + the dimension's id.
    std::vector<std::uint32_t> stmt_position;
  };

  // Numbers the statements: those present at creation first (instructions, then dimensions),
  // then the pre-allocated ones, so that a decision vector with room for the present
  // statements only has no gaps among them.
  void number_statements();
  [[noreturn]] void statement_out_of_range(StmtId id) const;
  // The nodes of `nodes` whose objects are present.
  std::vector<ProgramNode> present(const std::vector<ProgramNode>& nodes) const;

  std::shared_ptr<Data> data_;
  // By communication id: lowered or not, the only state a lowering changes.
  std::vector<bool> lowered_;
};

/// The largest kernel a search takes, counting the objects its lowerings may add: the time a
/// space takes to propagate a decision grows faster than the square of its dimensions (a
/// rollout of a 40-instruction sum, 237 dimensions, takes about 0.4 s on one core).
inline constexpr std::uint32_t kMaxDimensions = 256;
inline constexpr std::uint32_t kMaxInstructions = 128;

/// What makes `kernel` too large to search, naming the limit ("its 285 loop dimensions (...)
/// are more than the 256 ..."), or empty.
std::string too_large_to_search(const Kernel& kernel);

}  // namespace sculpt::backbone
