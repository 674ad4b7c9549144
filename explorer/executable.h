#pragma once
// A found kernel made runnable in the caller's process, on the caller's buffers: the C of a CPU
// kernel compiled once into a shared object (as the search compiled it, from the same cache) and
// loaded, or the PTX of a GPU kernel loaded through the CUDA driver. Installed as
// <sculpt/executable.h>; needs nothing but the standard library.
//
//   const sculpt::Executable run = sculpt::load(sculpt::search("matmul", "256x256x256"));
//   std::vector<float> a(256 * 256), b(256 * 256), c(256 * 256);
//   run({a, b, c});  // c = a * b
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "sculpt_types.h"

namespace sculpt {

/// One argument of a run: an array's buffer (host memory for a CPU kernel, device memory for a
/// GPU kernel) with its size, or a scalar's value. Arrays of float, double and std::int32_t
/// carry their type, which a run checks; a raw buffer does not.
class Argument {
 public:
  template <typename T>
  requires(std::is_same_v<std::remove_const_t<T>, float> ||
           std::is_same_v<std::remove_const_t<T>, double> ||
           std::is_same_v<std::remove_const_t<T>, std::int32_t>)
      Argument(std::span<T> array)  // NOLINT: an array converts implicitly, as in run({a, b, c})
      : data_(const_cast<std::remove_const_t<T>*>(array.data())),
        bytes_(array.size_bytes()),
        writable_(!std::is_const_v<T>),
        type_(type_name<std::remove_const_t<T>>()) {}
  template <typename T>
  Argument(std::vector<T>& array) : Argument(std::span<T>(array)) {}  // NOLINT
  template <typename T>
  Argument(const std::vector<T>& array) : Argument(std::span<const T>(array)) {}  // NOLINT
  Argument(float value) : scalar_(value) {}                                       // NOLINT
  Argument(double value) : scalar_(value) {}                                      // NOLINT
  Argument(std::int32_t value) : scalar_(value) {}                                // NOLINT

  /// `bytes` bytes at `data`, of any element type: a GPU's device pointer, say. A const one is
  /// for inputs only.
  static Argument buffer(void* data, std::size_t bytes) {
    Argument argument(std::span<float>{});
    argument.data_ = data;
    argument.bytes_ = bytes;
    argument.type_ = "";
    return argument;
  }
  static Argument buffer(const void* data, std::size_t bytes) {
    Argument argument = buffer(const_cast<void*>(data), bytes);
    argument.writable_ = false;
    return argument;
  }

  bool is_array() const { return std::holds_alternative<std::monostate>(scalar_); }
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  bool writable() const { return writable_; }
  /// "f32", "f64", "i32"; empty for a raw buffer and for a scalar.
  const char* type() const { return type_; }
  const std::variant<std::monostate, float, double, std::int32_t>& scalar() const {
    return scalar_;
  }

 private:
  template <typename T>
  static constexpr const char* type_name() {
    if constexpr (std::is_same_v<T, float>) return "f32";
    if constexpr (std::is_same_v<T, double>) return "f64";
    return "i32";
  }

  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  bool writable_ = true;
  const char* type_ = "";
  std::variant<std::monostate, float, double, std::int32_t> scalar_;
};

struct LoadOptions {
  /// A GPU kernel: the GPU to run it on, by its ordinal among the driver's devices, and the
  /// driver library to load.
  int gpu = 0;
  std::string cuda_library = "libcuda.so.1";
};

/// A loaded kernel. Copies share it; it stays loaded while one is alive. Safe to run from
/// several threads at once: its runs happen one after another (on a GPU, whatever their
/// streams), since its code may keep temporaries in global memory of its own.
class Executable {
 public:
  /// Runs the kernel on `arguments`: one for each array and scalar of the kernel's parameters,
  /// in their order (a size is the kernel's own). An array's buffer must hold exactly its
  /// elements, of its type; an output must be writable. A scalar converts to the parameter's
  /// type (an i32 takes whole numbers only). A CPU kernel has finished when this returns; a GPU
  /// kernel is launched on `stream` (a CUstream; null: the default stream) and may still be
  /// running. Throws sculpt::Error for arguments that do not fit, or a launch the driver refuses.
  void run(std::span<const Argument> arguments, void* stream = nullptr) const;
  void operator()(std::initializer_list<Argument> arguments, void* stream = nullptr) const {
    run({arguments.begin(), arguments.size()}, stream);
  }

  const Kernel& kernel() const;
  /// The parameters that a run's arguments are for: the kernel's arrays and scalars, in order.
  const std::vector<Parameter>& arguments() const;

 private:
  struct Loaded;
  explicit Executable(std::shared_ptr<const Loaded> loaded) : loaded_(std::move(loaded)) {}
  friend Executable load(const Kernel& kernel, const LoadOptions& options);

  std::shared_ptr<const Loaded> loaded_;
};

/// Makes `kernel` (sculpt::search's result) runnable in this process. Never searches. Throws
/// sculpt::Error: a kernel without its parameters, C that does not compile here, PTX the driver
/// refuses, no GPU, or a sculpt built without CUDA for a GPU kernel.
Executable load(const Kernel& kernel, const LoadOptions& options = {});

}  // namespace sculpt
