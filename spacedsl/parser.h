#pragma once
// The grammar of `.space` files (Boost.Spirit X3, kept in parser.cpp alone because it is slow
// to compile).
#include "spacedsl/ast.h"
#include "spacedsl/diagnostics.h"
#include "spacedsl/source_file.h"

namespace sculpt::spacedsl {

/// Parses `source` into its items. A syntax error is reported as "expected ..." at the exact
/// position; parsing then resumes at the next line that starts a top-level item, so one run
/// reports the errors of several items. Returns the items that parsed.
ast::File parse(const SourceFile& source, Diagnostics& diags);

/// Reports an error at `offset` of `source`, with its source line.
void report(Diagnostics& diags, const SourceFile& source, std::size_t offset, std::string message);

}  // namespace sculpt::spacedsl
