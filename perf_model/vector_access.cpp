#include "perf_model/vector_access.h"

namespace sculpt::perf_model {

namespace {

/// The constant and every coefficient but those of `k` and `skip` are multiples of `elements`.
bool aligned(const AffineAccess& access, std::size_t k, std::optional<std::size_t> skip,
             std::int64_t elements) {
  if (access.constant % elements != 0) return false;
  for (std::size_t j = 0; j < access.coeffs.size(); ++j) {
    if (j != k && j != skip && access.coeffs[j] % elements != 0) return false;
  }
  return true;
}

}  // namespace

bool is_vector_access(const AffineAccess& access, std::size_t k, std::int64_t size) {
  return access.coeffs[k] == 1 && size * access.elem_bytes <= kMaxAccessBytes &&
         aligned(access, k, std::nullopt, size);
}

std::int64_t merged_accesses(const AffineAccess& access, std::size_t k, std::int64_t size,
                             std::int64_t lane, std::optional<std::size_t> vector) {
  if (access.coeffs[k] != lane) return 1;
  for (std::int64_t w = kMaxAccessBytes / (lane * access.elem_bytes); w > 1; w /= 2) {
    if (size % w == 0 && aligned(access, k, vector, w * lane)) return w;
  }
  return 1;
}

}  // namespace sculpt::perf_model
