#pragma once
// The located diagnostics of definition files: the space language's source files and
// diagnostics (file:line:column: error: message, the source line and a caret), reused as they
// are, and the one helper every stage of the front end reports through.
#include <cstddef>
#include <string>
#include <utility>

#include "spacedsl/diagnostics.h"
#include "spacedsl/source_file.h"

namespace sculpt::frontend {

using spacedsl::Diagnostic;
using spacedsl::Diagnostics;
using spacedsl::SourceFile;
using spacedsl::SourceLocation;

/// Reports an error at byte `offset` of `source`, with its source line.
inline void report(Diagnostics& diags, const SourceFile& source, std::size_t offset,
                   std::string message) {
  SourceLocation loc = source.location(offset);
  const std::string_view line = source.line_view(loc.line);
  diags.error(std::move(loc), std::move(message), line);
}

}  // namespace sculpt::frontend
