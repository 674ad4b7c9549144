#pragma once
// The prepared state of the problems a device saw last (inputs, reference results, and what
// the device keeps for them), so that a search preparing one problem once can still alternate.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>

#include "device/problem.h"

namespace sculpt::device {

/// `Workspace` has a `std::shared_ptr<const Problem> problem` member naming what it was made for.
template <typename Workspace>
class WorkspaceCache {
 public:
  explicit WorkspaceCache(std::size_t capacity) : capacity_(capacity) {}

  /// The workspace of `problem` (by pointer), made by `make` when it is not kept; the least
  /// recently used one goes when more than `capacity` are kept.
  Workspace& get(const std::shared_ptr<const Problem>& problem,
                 const std::function<Workspace()>& make) {
    auto found = std::find_if(workspaces_.begin(), workspaces_.end(),
                              [&](const Workspace& w) { return w.problem == problem; });
    if (found != workspaces_.end()) {
      workspaces_.splice(workspaces_.begin(), workspaces_, found);
    } else {
      workspaces_.push_front(make());
      if (workspaces_.size() > capacity_) workspaces_.pop_back();
    }
    return workspaces_.front();
  }

 private:
  std::size_t capacity_;
  std::list<Workspace> workspaces_;  ///< most recently used first
};

}  // namespace sculpt::device
