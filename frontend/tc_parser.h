#pragma once
// The grammar of Tensor Comprehensions definitions (Boost.Spirit X3, kept in tc_parser.cpp alone
// because it is slow to compile). The language is described in frontend/LANGUAGE.md.
#include "frontend/source.h"
#include "frontend/tc_ast.h"

namespace sculpt::frontend {

/// Expressions nest at most this deep (parentheses, calls, selects, prefix operators), so that no
/// input can exhaust the stack of the parser or of a later stage's walk over an expression.
inline constexpr int kMaxNesting = 64;
/// A definition's expressions hold at most this many operands (numbers, names, calls) in all: its
/// kernel has about as many instructions, and the space a search walks grows faster than they do
/// (frontend/LANGUAGE.md says how long the largest take).
inline constexpr int kMaxOperands = 256;
/// A file holds at most this many definitions: each is checked (with isl) whichever is searched.
inline constexpr int kMaxDefinitions = 1024;

/// Parses `source` into its definitions. A syntax error is reported as "expected ... but found
/// ..." at the exact position; parsing then resumes at the next line that starts with `def`, so
/// one run reports the errors of several definitions. Returns the definitions that parsed.
ast::File parse(const SourceFile& source, Diagnostics& diags);

}  // namespace sculpt::frontend
