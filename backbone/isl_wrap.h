#pragma once
// The one place isl is wrapped: RAII handles over isl's C objects and the context that owns
// them all. A handle owns one reference; `get()` lends it to __isl_keep arguments, `copy()` makes
// a new reference for __isl_take arguments, `release()` gives this one away.
#include <isl/ctx.h>
#include <isl/flow.h>
#include <isl/map.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace sculpt::backbone::isl {

template <typename T, T* (*CopyFn)(T*), T* (*FreeFn)(T*)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T* owned) : ptr_(owned) {}  // takes ownership of an __isl_give result
  Handle(const Handle& other) : ptr_(other.ptr_ ? CopyFn(other.ptr_) : nullptr) {}
  Handle(Handle&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  Handle& operator=(Handle other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }
  ~Handle() {
    if (ptr_) FreeFn(ptr_);
  }

  T* get() const { return ptr_; }
  T* copy() const { return CopyFn(ptr_); }
  T* release() && { return std::exchange(ptr_, nullptr); }
  explicit operator bool() const { return ptr_ != nullptr; }

 private:
  T* ptr_ = nullptr;
};

using Set = Handle<isl_set, isl_set_copy, isl_set_free>;
using Map = Handle<isl_map, isl_map_copy, isl_map_free>;
using UnionSet = Handle<isl_union_set, isl_union_set_copy, isl_union_set_free>;
using UnionMap = Handle<isl_union_map, isl_union_map_copy, isl_union_map_free>;
using UnionAccessInfo =
    Handle<isl_union_access_info, isl_union_access_info_copy, isl_union_access_info_free>;
using UnionFlow = Handle<isl_union_flow, isl_union_flow_copy, isl_union_flow_free>;

/// A point of a set, read by the names of its parameters and dimensions.
class Point {
 public:
  explicit Point(isl_point* owned) : point_(owned) {}
  /// The value of the parameter or the set dimension named `name`; nothing for a name the set
  /// does not have (isl drops a parameter no constraint names).
  std::optional<std::int64_t> parameter(const std::string& name) const;
  std::optional<std::int64_t> dimension(const std::string& name) const;

 private:
  std::optional<std::int64_t> coordinate(isl_dim_type type, const std::string& name) const;
  Handle<isl_point, isl_point_copy, isl_point_free> point_;
};

/// A point of `set`; nothing when it is empty.
std::optional<Point> sample(const Set& set);

/// Owns the isl context; every object built from it must be gone before it is.
class Ctx {
 public:
  Ctx();
  Ctx(const Ctx&) = delete;
  Ctx& operator=(const Ctx&) = delete;
  ~Ctx();
  isl_ctx* get() const { return ctx_; }

  // Parsers for isl's textual notation; text built by sculpt is always valid (checked).
  Set set(const std::string& text) const;
  UnionSet union_set(const std::string& text) const;
  UnionMap union_map(const std::string& text) const;
  Map map(const std::string& text) const;

 private:
  isl_ctx* ctx_;
};

/// Writes an isl object in isl's notation.
std::string to_string(const UnionMap& map);
std::string to_string(const Map& map);

}  // namespace sculpt::backbone::isl
