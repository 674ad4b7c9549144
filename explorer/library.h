#pragma once
// The library call's work, under a name that sculpt's own code can use: sculpt::search (sculpt.h)
// calls it from a file of its own, since a function `sculpt::search` and the namespace
// `sculpt::search` cannot be seen together.
#include <string>

#include "explorer/sculpt_types.h"

namespace sculpt::explorer {

/// What sculpt::search documents.
Kernel search_kernel(const std::string& kernel, const std::string& sizes,
                     const SearchOptions& options);
/// What sculpt::define documents.
Definition define_kernel(const std::string& text, const std::string& name, const std::string& file);

}  // namespace sculpt::explorer
