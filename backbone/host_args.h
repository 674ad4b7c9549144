#pragma once
// Host-side arguments of a kernel: one buffer per array of its signature and the values of its
// scalars. Evaluators allocate them from the kernel, fill the inputs with seeded random data, run
// the kernel and compare the outputs with the CPU reference.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backbone/kernel.h"

namespace sculpt::backbone {

/// A typed host array. Elements are stored in their own type (f32, f64 or i32), so `bytes()` is
/// what a device copy takes. A buffer owns its elements, or views elements someone else owns
/// (so that a reference can compute in a device's own arrays without copying them).
class Buffer {
 public:
  Buffer() = default;
  /// Owns `num_elements` zeroed elements.
  Buffer(ElemType type, int64_t num_elements);
  /// Views the `num_elements` elements at `elements`, which must outlive the buffer and its
  /// copies (copies view the same elements).
  static Buffer view(ElemType type, int64_t num_elements, std::byte* elements);

  ElemType type() const { return type_; }
  int64_t size() const { return size_; }
  std::byte* bytes() { return viewed_ != nullptr ? viewed_ : owned_.data(); }
  const std::byte* bytes() const { return viewed_ != nullptr ? viewed_ : owned_.data(); }
  int64_t num_bytes() const { return size_ * elem_type_bytes(type_); }

  /// Element access converted through double (exact for f32, f64 and i32).
  double get(int64_t i) const;
  void set(int64_t i, double value);

  /// Typed view; T must match the element type (checked).
  template <typename T>
  T* as();
  template <typename T>
  const T* as() const;

 private:
  ElemType type_ = ElemType::kF32;
  int64_t size_ = 0;
  std::vector<std::byte> owned_;
  std::byte* viewed_ = nullptr;
};

struct HostArgs {
  std::map<std::string, Buffer> arrays;   // by array name
  std::map<std::string, double> scalars;  // scalar parameters by name (sizes not included)

  Buffer& array(const std::string& name);
  const Buffer& array(const std::string& name) const;
  double scalar(const std::string& name) const;
};

/// Allocates every array of the kernel's signature; inputs (and in-out arrays) and scalars get
/// seeded random values (floats in [-1, 1], integers in [-8, 8]), outputs zeros.
HostArgs make_host_args(const Kernel& kernel, uint64_t seed);

struct Mismatch {
  std::string array;
  int64_t index = 0;
  double expected = 0;
  double actual = 0;
  std::string to_string() const;
};

/// First element of an output (or in-out) array where `actual` differs from `expected` by more
/// than `rel_tol * max(1, |expected|)`; nullopt when they agree.
std::optional<Mismatch> compare_outputs(const Kernel& kernel, const HostArgs& expected,
                                        const HostArgs& actual, double rel_tol);

/// Default tolerance for a kernel's outputs: loose enough for f32 accumulation orders.
double default_tolerance(const Kernel& kernel);

}  // namespace sculpt::backbone
