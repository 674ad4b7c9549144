#include "spacegen/runtime/domain.h"

namespace sculpt::spacegen {

bool IntDomainRef::empty() const {
  for (std::size_t w = 0; w * 64 < size(); ++w) {
    if (words_[w] != 0) return false;
  }
  return true;
}

Interval IntDomainRef::bounds() const {
  Interval r{kInfinity, -kInfinity};
  std::size_t nwords = (size() + 63) / 64;
  for (std::size_t w = 0; w < nwords; ++w) {
    if (words_[w] != 0) {
      r.lo = universe_[w * 64 + std::countr_zero(words_[w])];
      break;
    }
  }
  for (std::size_t w = nwords; w-- > 0;) {
    if (words_[w] != 0) {
      r.hi = universe_[w * 64 + 63 - std::countl_zero(words_[w])];
      break;
    }
  }
  return r;
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
      words_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
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
  words_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
  return true;
}

bool IntDomainRef::keep_values_of(const IntDomainRef& other) {
  bool changed = false;
  for (std::size_t i = 0; i < size(); ++i) {
    if (contains_index(i) && !other.contains_value(universe_[i])) {
      words_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
      changed = true;
    }
  }
  return changed;
}

bool IntDomainRef::keep_indices(const std::uint64_t* mask) {
  bool changed = false;
  for (std::size_t w = 0; w * 64 < size(); ++w) {
    std::uint64_t kept = words_[w] & mask[w];
    changed |= kept != words_[w];
    words_[w] = kept;
  }
  return changed;
}

}  // namespace sculpt::spacegen
