#pragma once
// An atomic running minimum or maximum: a value that only moves one way, updated by several
// threads without a lock (a best time, a peak count).
#include <atomic>

namespace sculpt::support {

/// Sets `target` to `value` when `value` is lower; true when it did.
template <typename T>
bool lower_to(std::atomic<T>& target, T value) {
  T now = target.load();
  while (value < now) {
    if (target.compare_exchange_weak(now, value)) return true;
  }
  return false;
}

/// Sets `target` to `value` when `value` is higher; true when it did.
template <typename T>
bool raise_to(std::atomic<T>& target, T value) {
  T now = target.load();
  while (now < value) {
    if (target.compare_exchange_weak(now, value)) return true;
  }
  return false;
}

}  // namespace sculpt::support
