#pragma once
#include <string>

namespace sculpt::spacedsl {

/// A position in a `.space` file; lines and columns count from 1.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
};

}  // namespace sculpt::spacedsl
