#pragma once
// The semantic checks of Tensor Comprehensions definitions: the signature (element types,
// sizes, names), every statement (names, arities, affine subscripts, reductions), the dimensions
// statements share through the tensors they define and read, and the ranges of every index
// (tc_ranges.h). Every mistake is reported at its location, several per file.
#include <vector>

#include "frontend/source.h"
#include "frontend/tc_ast.h"
#include "frontend/tc_model.h"

namespace sculpt::frontend {

/// A statement has at most this many indices, and a tensor as many dimensions: range inference
/// and the search's space grow faster than they do (a copy over 16 indices: 144 loop dimensions).
inline constexpr int kMaxIndices = 16;

/// The definitions of a parsed file that check, in order; the errors of the others are in
/// `diags`.
std::vector<Definition> check(const ast::File& file, const SourceFile& source, Diagnostics& diags);

}  // namespace sculpt::frontend
