#include "support/hash.h"

#include <fmt/format.h>

namespace sculpt::support {

std::string Fnv1a::hex() const { return fmt::format("{:016x}", state_); }

}  // namespace sculpt::support
