#pragma once
// `#line` directives, so that a compiler's message about host code names the `.space` line it
// was written on. Emitters mark substituted host code with its location (`located`); once a
// file is written, each generated line that holds a mark is put between a `#line` to the mark's
// `.space` line and one back to the generated file.
#include <string>

#include "spacedsl/source_location.h"

namespace sculpt::spacegen {

/// `code`, generated from host code written at `loc`, marked with that location.
std::string located(const spacedsl::SourceLocation& loc, const std::string& code);

/// `text` without the marks of `located`.
std::string without_marks(const std::string& text);

/// `text` with its marks replaced: a line holding marks is preceded by `#line N "FILE"` (its
/// first mark's location) and followed by `#line M "own"`, M the number of the line after it.
std::string place_line_directives(const std::string& text, const std::string& own);

/// After `text` was reformatted: each `#line M "own"` that place_line_directives wrote is
/// numbered again for where it now stands, and names `path`.
std::string renumber_line_directives(const std::string& text, const std::string& own,
                                     const std::string& path);

}  // namespace sculpt::spacegen
