// sculpt::search, apart from sculpt's internal headers (library.h says why).
#include "explorer/sculpt.h"

#include "explorer/library.h"

namespace sculpt {

Kernel search(const std::string& kernel, const std::string& sizes, const SearchOptions& options) {
  return explorer::search_kernel(kernel, sizes, options);
}

Definition define(const std::string& text, const std::string& name, const std::string& file) {
  return explorer::define_kernel(text, name, file);
}

}  // namespace sculpt
