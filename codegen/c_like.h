#pragma once
// What the C and CUDA C printers share (internal to codegen): type names, loop indices,
// expressions and instruction statements in C syntax. The printers differ in where a thread's
// registers live and in how threads and blocks are laid out.
#include <string>

#include "codegen/lowered.h"
#include "support/code_writer.h"

namespace sculpt::codegen {

std::string c_type(backbone::ElemType type);

class CLikePrinter {
 public:
  explicit CLikePrinter(const LoweredKernel& k) : k_(k) {}
  virtual ~CLikePrinter() = default;

 protected:
  /// How a register of an array is named in this language.
  virtual std::string reg(const RegisterRef& r) const = 0;

  /// The variable holding the current index of a LoopDim: tx/ty/tz for threads, b_<name> for
  /// blocks, i_<name> for loops.
  std::string index(int dim) const;
  std::string expr(const IndexExpr& e) const;
  std::string operand(const Operand& op, backbone::ElemType type) const;
  /// The right-hand side computing an instruction's value.
  std::string value(const Instruction& inst) const;
  /// The instruction as one guarded statement.
  void instruction(const Instruction& inst);
  /// `for (int64_t i_<dim> = 0; ...)`.
  void open_loop(int dim);
  /// Declarations of the block indices decoded from the linear block number `block`.
  void decode_blocks(const std::string& block);

  const LoweredKernel& k_;
  support::CodeWriter w_;
};

}  // namespace sculpt::codegen
