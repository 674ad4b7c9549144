#include "spacegen/runtime/domain.h"

namespace sculpt::spacegen {

bool IntDomainRef::empty() const {
  for (std::size_t b = 0; b < num_bytes(); ++b) {
    if (bits_[b] != 0) return false;
  }
  return true;
}

bool IntDomainRef::contains_value(std::int64_t v) const {
  auto it = std::lower_bound(universe_.begin(), universe_.end(), v);
  return it != universe_.end() && *it == v &&
         contains_index(static_cast<std::size_t>(it - universe_.begin()));
}

bool IntDomainRef::restrict_range(Interval range) {
  bool changed = false;
  for (std::size_t i = 0; i < size(); ++i) {
    if ((universe_[i] < range.lo || universe_[i] > range.hi) && contains_index(i)) {
      remove_index(i);
      changed = true;
    }
  }
  return changed;
}

bool IntDomainRef::remove_value(std::int64_t v) {
  auto it = std::lower_bound(universe_.begin(), universe_.end(), v);
  if (it == universe_.end() || *it != v) return false;
  auto i = static_cast<std::size_t>(it - universe_.begin());
  if (!contains_index(i)) return false;
  remove_index(i);
  return true;
}

bool IntDomainRef::keep_values_of(const IntDomainRef& other) {
  bool changed = false;
  for (std::size_t i = 0; i < size(); ++i) {
    if (contains_index(i) && !other.contains_value(universe_[i])) {
      remove_index(i);
      changed = true;
    }
  }
  return changed;
}

bool IntDomainRef::keep_indices(const std::uint64_t* mask) {
  bool changed = false;
  for (std::size_t b = 0; b < num_bytes(); ++b) {
    const auto kept = static_cast<unsigned char>(bits_[b] & (mask[b / 8] >> (b % 8 * 8)));
    changed |= kept != bits_[b];
    bits_[b] = kept;
  }
  return changed;
}

}  // namespace sculpt::spacegen
