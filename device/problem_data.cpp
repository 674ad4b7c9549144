#include "device/problem_data.h"

#include <unistd.h>

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "device/evaluator.h"

namespace sculpt::device {
namespace {

// Integer outputs start as this value; a reference result equal to it is astronomically unlikely.
constexpr std::int32_t kIntegerPoison = -0x5A5A5A5B;

// SplitMix64: tiny, fast, and the same sequence everywhere (the standard distributions are not
// specified bit for bit, so the inputs of a seed could change with the library).
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }

 private:
  std::uint64_t state_;
};

template <typename T>
void fill_values(std::span<T> values, const Fill& fill, Random& random) {
  for (T& value : values) {
    double magnitude = fill.low + (fill.high - fill.low) * random.uniform();
    bool negative = fill.random_sign && (random.next() & 1);
    if constexpr (std::is_integral_v<T>) {
      value = static_cast<T>(std::floor(magnitude)) * (negative ? -1 : 1);
    } else {
      value = static_cast<T>(negative ? -magnitude : magnitude);
    }
  }
}

template <typename T>
void poison(std::span<T> values) {
  if constexpr (std::is_integral_v<T>) {
    std::fill(values.begin(), values.end(), kIntegerPoison);
  } else {
    std::fill(values.begin(), values.end(), std::numeric_limits<T>::quiet_NaN());
  }
}

template <typename T>
std::span<T> typed(std::vector<std::byte>& bytes) {
  return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)};
}

template <typename T>
std::span<const T> typed(const void* data, std::int64_t count) {
  return {static_cast<const T*>(data), static_cast<std::size_t>(count)};
}

// Calls f with a null pointer of the C++ type that stores `type`.
template <typename F>
decltype(auto) dispatch(ElementType type, F&& f) {
  switch (type) {
    case ElementType::f32:
      return f(static_cast<float*>(nullptr));
    case ElementType::f64:
      return f(static_cast<double*>(nullptr));
    case ElementType::i32:
      return f(static_cast<std::int32_t*>(nullptr));
  }
  SCULPT_CHECK(false) << "unknown element type";
  return f(static_cast<float*>(nullptr));
}

template <typename T>
double mean_magnitude(std::span<const T> values) {
  double sum = 0;
  for (T value : values) sum += std::abs(static_cast<double>(value));
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

}  // namespace

double relative_tolerance(const Tolerance& tolerance) {
  auto terms = static_cast<double>(std::max<std::int64_t>(tolerance.reduction_length, 1));
  switch (tolerance.type) {
    case ElementType::f32:
      return 8 * std::numeric_limits<float>::epsilon() * (1 + std::sqrt(terms));
    case ElementType::f64:
      return 8 * std::numeric_limits<double>::epsilon() * (1 + std::sqrt(terms));
    case ElementType::i32:
      return 0;
  }
  SCULPT_CHECK(false) << "unknown element type";
  return 0;
}

namespace {

// The bytes of `problem`'s arrays, each counted `copies(role)` times; saturated.
template <typename Copies>
std::uint64_t array_bytes(const Problem& problem, Copies&& copies) {
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t total = 0;
  for (const Param& param : problem.params) {
    const auto* array = std::get_if<ArrayParam>(&param);
    if (array == nullptr || array->count <= 0 || copies(array->role) == 0) continue;
    const auto count = static_cast<std::uint64_t>(array->count);
    const std::uint64_t per_copy = size_of(array->type) * copies(array->role);
    if (count > (kMax - total) / per_copy) return kMax;
    total += count * per_copy;
  }
  return total;
}

}  // namespace

std::uint64_t data_bytes(const Problem& problem) {
  return array_bytes(problem,
                     [](Role role) -> std::uint64_t { return role == Role::inout ? 2 : 1; });
}

std::uint64_t result_bytes(const Problem& problem) {
  return array_bytes(problem,
                     [](Role role) -> std::uint64_t { return role == Role::input ? 0 : 1; });
}

std::uint64_t require_host_memory(const Problem& problem, HostCopies copies,
                                  std::string_view device, std::optional<std::uint64_t> limit) {
  long double available = 0;
  if (limit) {
    available = static_cast<long double>(*limit);
  } else {
    const auto pages = sysconf(_SC_PHYS_PAGES);
    const auto page = sysconf(_SC_PAGESIZE);
    // Unknown: let the allocation decide.
    if (pages <= 0 || page <= 0) return std::numeric_limits<std::uint64_t>::max();
    available = static_cast<long double>(pages) * static_cast<long double>(page);
  }
  const auto needed = static_cast<long double>(data_bytes(problem)) * copies.data +
                      static_cast<long double>(result_bytes(problem)) * copies.results;
  if (needed <= available) return static_cast<std::uint64_t>(available - needed);
  std::string what = copies.data == 1
                         ? "its arrays and expected results"
                         : fmt::format("{} copies of its arrays and expected results", copies.data);
  if (copies.results != 0) what += fmt::format(", and {} of its results", copies.results);
  throw DeviceError(fmt::format(
      "{}: problem '{}' needs {:.4g} GB of host memory ({}), more than the {:.4g} GB {}", device,
      problem.name, static_cast<double>(needed / 1e9), what, static_cast<double>(available / 1e9),
      limit ? "it may use" : "of this machine"));
}

ProblemData::ProblemData(const Problem& problem) : problem_(problem) {
  SCULPT_CHECK(problem_.reference) << "problem " << problem_.name << " has no reference";
  std::size_t n = problem_.params.size();
  bytes_.resize(n);
  initial_.resize(n);
  expected_.resize(n);
  scale_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (const auto* array = std::get_if<ArrayParam>(&problem_.params[i])) {
      SCULPT_CHECK(array->count >= 0) << "array " << array->name << " has a negative size";
      bytes_[i] = static_cast<std::size_t>(array->count) * size_of(array->type);
      if (array->role == Role::output) continue;  // poison, written when needed
      initial_[i].resize(bytes_[i]);
      // One stream per parameter, so adding a parameter leaves the others' values unchanged.
      Random random(problem_.seed * 0x100000001B3ull + i);
      dispatch(array->type, [&]<typename T>(T*) {
        fill_values(typed<T>(initial_[i]), array->fill.value_or(default_fill(array->type)), random);
      });
    } else {
      const auto& scalar = std::get<ScalarParam>(problem_.params[i]);
      bytes_[i] = size_of(scalar.type());
      initial_[i].resize(bytes_[i]);
      std::visit([&](auto v) { std::memcpy(initial_[i].data(), &v, sizeof v); }, scalar.value);
    }
  }
  // The reference reads the initial inputs in place and writes into the expected results, which
  // start as the initial ones: no copy of an input is ever made, which matters when arrays take
  // gigabytes.
  std::vector<void*> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (is_result(i)) {
      expected_[i].resize(bytes_[i]);
      write_initial(i, expected_[i].data());
    }
    values[i] = is_result(i) ? expected_[i].data() : initial_[i].data();
  }
  problem_.reference(Arguments(problem_.params, values));
  for (std::size_t i = 0; i < n; ++i) {
    if (!is_result(i)) continue;
    const auto& array = std::get<ArrayParam>(problem_.params[i]);
    scale_[i] = dispatch(array.type, [&]<typename T>(T*) {
      return mean_magnitude(typed<T>(expected_[i].data(), array.count));
    });
  }
}

std::size_t ProblemData::bytes(std::size_t index) const {
  SCULPT_CHECK(index < bytes_.size()) << "parameter " << index << " out of range";
  return bytes_[index];
}

void ProblemData::write_initial(std::size_t index, std::byte* to) const {
  const auto* array = std::get_if<ArrayParam>(&problem_.params.at(index));
  if (array == nullptr || array->role != Role::output) {
    std::memcpy(to, initial_[index].data(), initial_[index].size());
    return;
  }
  dispatch(array->type, [&]<typename T>(T*) {
    poison(std::span<T>(reinterpret_cast<T*>(to), static_cast<std::size_t>(array->count)));
  });
}

std::span<const std::byte> ProblemData::initial(std::size_t index) const {
  SCULPT_CHECK(index < initial_.size()) << "parameter " << index << " out of range";
  const auto* array = std::get_if<ArrayParam>(&problem_.params[index]);
  SCULPT_CHECK(array == nullptr || array->role != Role::output)
      << "output " << array->name << " has no stored initial values: see write_initial";
  return initial_[index];
}

bool ProblemData::is_result(std::size_t index) const {
  const auto* array = std::get_if<ArrayParam>(&problem_.params.at(index));
  return array != nullptr && array->role != Role::input;
}

std::optional<std::string> ProblemData::first_mismatch(
    const std::function<const void*(std::size_t)>& result) const {
  for (std::size_t i = 0; i < size(); ++i) {
    if (!is_result(i)) continue;
    if (std::optional<std::string> mismatch = compare(i, result(i))) return mismatch;
  }
  return std::nullopt;
}

ExpectedResult ProblemData::expected(std::size_t index) const {
  SCULPT_CHECK(is_result(index)) << "parameter " << index << " is not a result";
  return ExpectedResult{.index = index,
                        .param = std::get<ArrayParam>(problem_.params[index]),
                        .tolerance = relative_tolerance(problem_.tolerance),
                        .scale = scale_[index],
                        .values = expected_[index]};
}

std::optional<std::string> ProblemData::compare(std::size_t index, const void* got) const {
  return mismatch(expected(index), got);
}

std::optional<std::string> mismatch(const ExpectedResult& expected, const void* got) {
  const ArrayParam& array = expected.param;
  return dispatch(array.type, [&]<typename T>(T*) -> std::optional<std::string> {
    auto actual = typed<T>(got, array.count);
    auto wanted = typed<T>(expected.values.data(), array.count);
    std::int64_t mismatches = 0;
    std::size_t first = 0;
    for (std::size_t k = 0; k < actual.size(); ++k) {
      if (actual[k] == wanted[k]) continue;
      if constexpr (!std::is_integral_v<T>) {
        // Written so that a NaN on either side fails the comparison.
        double error = std::abs(static_cast<double>(actual[k]) - static_cast<double>(wanted[k]));
        double bound =
            expected.tolerance * std::max(std::abs(static_cast<double>(wanted[k])), expected.scale);
        if (error <= bound) continue;
      }
      if (mismatches++ == 0) first = k;
    }
    if (mismatches == 0) return std::nullopt;
    return fmt::format(
        "{} '{}' (parameter {}) mismatch at index {}: got {} expected {} ({} of {} elements "
        "differ, relative tolerance {:.3g})",
        array.role == Role::inout ? "inout array" : "output", array.name, expected.index, first,
        actual[first], wanted[first], mismatches, array.count, expected.tolerance);
  });
}

}  // namespace sculpt::device
