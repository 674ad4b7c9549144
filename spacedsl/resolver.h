#pragma once
// Semantic analysis: turns the parsed files of one space (the root and its includes) into the
// resolved, checked Model, reporting every error it can find in one run.
#include <optional>
#include <vector>

#include "spacedsl/ast.h"
#include "spacedsl/diagnostics.h"
#include "spacedsl/model.h"
#include "spacedsl/source_file.h"

namespace sculpt::spacedsl {

struct ParsedFile {
  const SourceFile* source;
  ast::File syntax;
};

/// Resolves names, checks the space and lowers `requires` and quotients (see model.h).
/// Returns nothing when an error was reported. `Model::files` is left to the caller.
std::optional<Model> resolve(const std::vector<ParsedFile>& files, Diagnostics& diags);

}  // namespace sculpt::spacedsl
