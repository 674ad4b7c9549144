#pragma once
// The lowered kernel: what every printer (C, PTX, CUDA C) shares. A fully specified candidate
// becomes a tree of loops (sequential, unrolled, vectorised, thread and block levels) and
// instructions whose operands are registers indexed by unrolled iterations, constants,
// parameters or index expressions, and whose memory accesses are affine in the loop indices.
// Barriers sit where threads hand values to each other through memory. Built by lower()
// (lower.h); `dump()` is the readable form golden tests compare.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backbone/kernel.h"

namespace sculpt::codegen {

enum class LoopKind { kLoop, kUnroll, kVector, kThread, kBlock };
std::string_view loop_kind_name(LoopKind kind);

/// A class of merged dimensions: one loop of the generated code.
struct LoopDim {
  std::string name;  // the name of its first dimension
  LoopKind kind = LoopKind::kLoop;
  std::int64_t size = 1;
  /// kThread: the hardware level (0 = x). kBlock: the position in the grid, outer to inner.
  int level = -1;
  std::vector<backbone::DimId> members;
};

/// constant + sum of coeff * (current index of dim), over LoopDim ids.
struct IndexExpr {
  std::int64_t constant = 0;
  std::vector<std::pair<int, std::int64_t>> terms;
  void add(int dim, std::int64_t coeff);
  std::int64_t coeff(int dim) const;
};

/// The registers holding one value per iteration of some unrolled or vectorised dims.
struct RegisterArray {
  std::string name;
  backbone::ElemType type = backbone::ElemType::kF32;
  std::vector<int> dims;  // LoopDim ids; the array has one register per combination
};

/// One register of an array: array dim k is indexed by the current iteration of
/// `index_dims[k]` (a LoopDim of the reader's or writer's context with the same size).
struct RegisterRef {
  int array = -1;
  std::vector<int> index_dims;
};

struct Operand {
  enum class Kind { kRegister, kConstant, kParam, kIndex };
  Kind kind = Kind::kConstant;
  RegisterRef reg;      // kRegister
  double constant = 0;  // kConstant
  int param = -1;       // kParam: index into LoweredKernel::params
  IndexExpr index;      // kIndex: an i32 induction value
};

/// An array the kernel reads or writes: a parameter, or a temporary of a lowered communication.
struct Memory {
  enum class Kind { kParam, kShared, kGlobal };
  Kind kind = Kind::kParam;
  std::string name;
  backbone::ElemType type = backbone::ElemType::kF32;
  int param = -1;             // kParam
  std::int64_t elements = 0;  // temporaries
};

enum class Cache { kAll, kGlobal, kReadOnly, kStreaming };
std::string_view cache_name(Cache cache);

struct MemAccess {
  int memory = -1;
  IndexExpr index;  // in elements
  /// A vector access over this LoopDim (stride 1, aligned): `width` elements at once.
  int vector_dim = -1;
  int width = 1;
  Cache cache = Cache::kAll;
};

/// A thread-level condition on an instruction: `tid[level] < bound`, or `tid[level] == 0` for a
/// store every thread of the level would repeat.
struct Predicate {
  int level = 0;
  std::int64_t bound = 0;  // 0: tid[level] == 0
};

struct Instruction {
  backbone::InstId id;
  std::string name;
  backbone::Operator op = backbone::Operator::kMov;
  backbone::ElemType type = backbone::ElemType::kF32;
  std::optional<RegisterRef> dest;  // absent for stores
  std::vector<Operand> operands;    // a store's first operand is the stored value
  std::optional<MemAccess> access;
  std::vector<Predicate> predicates;
};

/// A node of the body: a loop over a LoopDim (threads and vectors included), an instruction, or
/// a barrier of the thread block.
struct Node {
  enum class Kind { kLoop, kInstruction, kBarrier };
  Kind kind = Kind::kInstruction;
  int dim = -1;   // kLoop
  int inst = -1;  // kInstruction: index into LoweredKernel::instructions
  std::vector<Node> body;
};

struct Param {
  std::string name;
  backbone::ElemType type = backbone::ElemType::kF32;
  bool is_array = false;
  std::int64_t size_value = 0;  // sizes are i32 parameters bound to this value
  bool is_size = false;
};

struct LoweredKernel {
  std::string name;
  std::vector<Param> params;
  std::vector<LoopDim> dims;
  /// Block dims, outer to inner; the grid is their product (launched as a 1-D grid).
  std::vector<int> block_dims;
  /// Threads per level x, y, z.
  std::array<std::int64_t, 3> block_size = {1, 1, 1};
  std::vector<RegisterArray> registers;
  std::vector<Memory> memories;
  std::vector<Instruction> instructions;
  /// What each block runs (the block dims are implicit around it).
  std::vector<Node> body;

  std::int64_t num_blocks() const;
  std::int64_t num_threads() const { return block_size[0] * block_size[1] * block_size[2]; }
  std::int64_t shared_bytes() const;
  /// A readable listing of the whole kernel (golden tests compare it).
  std::string dump() const;
};

}  // namespace sculpt::codegen
