#pragma once
// What the C and CUDA C printers share (internal to codegen): type names, loop indices,
// expressions and instruction statements in C syntax. The printers differ in where a thread's
// registers live and in how threads and blocks are laid out.
#include <string>
#include <vector>

#include "codegen/lowered.h"
#include "support/code_writer.h"

namespace sculpt::codegen {

std::string c_type(backbone::ElemType type);

class CLikePrinter {
 public:
  /// Prints `k` with `entry` as its entry function's name.
  CLikePrinter(const LoweredKernel& k, std::string entry);
  virtual ~CLikePrinter() = default;

 protected:
  /// The identifier of parameter `i` (parameter_identifiers).
  const std::string& param_name(std::size_t i) const { return param_names_[i]; }
  /// The identifier of memory `memory`: its parameter's, or its own.
  const std::string& memory_name(int memory) const;
  /// How a register of an array is named in this language.
  virtual std::string reg(const RegisterRef& r) const = 0;

  /// The variable holding the current index of LoopDim `dim` (loop_index_name).
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
  const std::string entry_;
  support::CodeWriter w_;

 private:
  std::vector<std::string> param_names_;
};

}  // namespace sculpt::codegen
