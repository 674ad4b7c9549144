#pragma once
// What a kernel computes, as a device sees it: its parameters in the order the kernel takes
// them, how to fill its inputs, and the reference that gives the expected outputs. Devices
// fill the inputs from the seed, run the candidate and compare its outputs with the reference.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "support/check.h"

namespace sculpt::device {

enum class ElementType { f32, f64, i32 };

std::size_t size_of(ElementType type);
std::string_view to_string(ElementType type);

/// The element type that stores values of the C++ type T.
template <typename T>
constexpr ElementType element_type_of();
template <>
constexpr ElementType element_type_of<float>() {
  return ElementType::f32;
}
template <>
constexpr ElementType element_type_of<double>() {
  return ElementType::f64;
}
template <>
constexpr ElementType element_type_of<std::int32_t>() {
  return ElementType::i32;
}

/// How a kernel uses an array: read only, written only, or read then written in place.
enum class Role { input, output, inout };

/// Random initial values: magnitudes uniform in [low, high), negated with probability 1/2 when
/// `random_sign`. Integer arrays round the magnitude down. Keep `low` > 0 (>= 1 for integers)
/// so that no value is 0, which would hide a candidate that skips a term.
struct Fill {
  double low = 0.5;
  double high = 1.5;
  bool random_sign = true;
};

/// Magnitudes in [0.5, 1.5) for floating point, 1 to 15 for integers, both signs.
Fill default_fill(ElementType type);

struct ArrayParam {
  std::string name{};
  ElementType type = ElementType::f32;
  std::int64_t count = 0;
  Role role = Role::input;
  /// Absent: default_fill(type).
  std::optional<Fill> fill{};
};

/// A scalar passed by value; its type is that of the alternative held.
struct ScalarParam {
  std::string name{};
  std::variant<float, double, std::int32_t> value{};

  ElementType type() const;
};

using Param = std::variant<ArrayParam, ScalarParam>;

/// How far a result may be from the reference: floating-point results differ by rounding, more
/// so the longer the reductions that produced them; integer results must match exactly.
struct Tolerance {
  ElementType type = ElementType::f32;
  /// Number of terms summed into each output element (1 for element-wise kernels).
  std::int64_t reduction_length = 1;
};

/// Typed access to the parameter values of a problem, in parameter order; what the reference
/// function reads its inputs from and writes its outputs to.
class Arguments {
 public:
  Arguments(const std::vector<Param>& params, std::vector<void*> values)
      : params_(&params), values_(std::move(values)) {}

  template <typename T>
  std::span<T> array(std::size_t index) const {
    const auto* array = std::get_if<ArrayParam>(&param(index));
    SCULPT_CHECK(array != nullptr && array->type == element_type_of<T>())
        << "parameter " << index << " is not an array of " << to_string(element_type_of<T>());
    return {static_cast<T*>(values_[index]), static_cast<std::size_t>(array->count)};
  }

  template <typename T>
  T scalar(std::size_t index) const {
    const auto* scalar = std::get_if<ScalarParam>(&param(index));
    SCULPT_CHECK(scalar != nullptr && scalar->type() == element_type_of<T>())
        << "parameter " << index << " is not a scalar of " << to_string(element_type_of<T>());
    return std::get<T>(scalar->value);
  }

 private:
  const Param& param(std::size_t index) const {
    SCULPT_CHECK(index < params_->size()) << "parameter " << index << " out of range";
    return (*params_)[index];
  }

  const std::vector<Param>* params_;
  std::vector<void*> values_;
};

/// Computes the expected values of the output and inout arrays from the inputs, in place. It
/// must not write the input arrays, which it reads where the device keeps them.
using Reference = std::function<void(const Arguments&)>;

struct Problem {
  std::string name{};
  std::vector<Param> params{};
  /// Seeds the random inputs: the same seed gives the same inputs on every device.
  std::uint64_t seed = 1;
  Reference reference{};
  Tolerance tolerance{};
};

}  // namespace sculpt::device
