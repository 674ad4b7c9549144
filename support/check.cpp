#include "support/check.h"

#include <cstdio>
#include <cstdlib>

namespace sculpt::support {

CheckFailure::CheckFailure(const char* condition, const char* file, int line) {
  message_ << file << ":" << line << ": internal error: check failed: " << condition << ": ";
}

CheckFailure::~CheckFailure() {
  std::fprintf(stderr, "%s\n(this is a bug in sculpt, please report it)\n", message_.str().c_str());
  std::abort();
}

}  // namespace sculpt::support
