#pragma once
// Problem sizes: the named sizes of a kernel, bound to values for one search, and the parser of
// the `--size 1024x1024x1024` string.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sculpt::backbone {

/// A size a kernel is parameterised by: its name, the default value and a small value for tests.
struct SizeSpec {
  std::string name;
  int64_t default_value = 0;
  int64_t test_value = 0;
};

/// Values of a kernel's sizes, in the kernel's order.
class Sizes {
 public:
  Sizes() = default;
  void set(std::string name, int64_t value);
  /// The value of `name`; a missing size is a bug in the caller (checked).
  int64_t at(std::string_view name) const;
  std::optional<int64_t> find(std::string_view name) const;
  const std::vector<std::pair<std::string, int64_t>>& entries() const { return entries_; }
  /// `m=1024 n=1024 k=1024`.
  std::string to_string() const;
  bool operator==(const Sizes&) const = default;

 private:
  std::vector<std::pair<std::string, int64_t>> entries_;
};

Sizes default_sizes(std::span<const SizeSpec> specs);
Sizes test_sizes(std::span<const SizeSpec> specs);

/// Result of parsing a size string: sizes, or a message saying what is wrong with it.
struct SizeParse {
  Sizes sizes;
  std::string error;
  bool ok() const { return error.empty(); }
};

/// The largest product of a problem's sizes that parse_sizes accepts: 2^52.
inline constexpr int64_t kMaxIterationPoints = int64_t{1} << 52;

/// Parses "AxBxC" (one positive integer per size of `specs`, in order, whose product is at most
/// kMaxIterationPoints). An empty string gives the defaults.
SizeParse parse_sizes(std::string_view text, std::span<const SizeSpec> specs);

/// `sizes` with the largest size halved (the first of equal ones), again and again, until their
/// product is at most `max_points` or every size is 1: a problem of the same shape, smaller.
Sizes scaled_down(Sizes sizes, int64_t max_points);

/// "1024x1024x1024" for the given sizes, in order.
std::string format_sizes(const Sizes& sizes);

}  // namespace sculpt::backbone
