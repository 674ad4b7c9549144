#pragma once
// An atomic running minimum or maximum: a value that only moves one way, updated by several
// threads without a lock (a best time, a peak count).
#include <atomic>
#include <functional>

namespace sculpt::support {

/// Sets `target` to `value` while `value` comes before it by `before`; true when it did.
template <typename T, typename Before>
bool replace_while(std::atomic<T>& target, T value, Before before) {
  T now = target.load();
  while (before(value, now)) {
    if (target.compare_exchange_weak(now, value)) return true;
  }
  return false;
}

/// Sets `target` to `value` when `value` is lower; true when it did.
template <typename T>
bool lower_to(std::atomic<T>& target, T value) {
  return replace_while(target, value, std::less<T>());
}

/// Sets `target` to `value` when `value` is higher; true when it did.
template <typename T>
bool raise_to(std::atomic<T>& target, T value) {
  return replace_while(target, value, std::greater<T>());
}

}  // namespace sculpt::support
