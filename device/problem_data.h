#pragma once
// The data every evaluation of one problem shares, whatever the device: the initial value of
// each parameter and the expected results, computed once by the reference.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "device/problem.h"

namespace sculpt::device {

/// Relative tolerance for results of `tolerance.type` that sum `reduction_length` terms:
/// 8 * eps * (1 + sqrt(reduction_length)) for floating point, 0 for integers. Rounding errors of
/// a sum of K random terms grow like eps * sqrt(K) whatever the summation order; the factor 8
/// leaves room for the order chosen by the candidate and for fused multiply-adds.
double relative_tolerance(const Tolerance& tolerance);

/// Bytes a ProblemData of `problem` keeps: the initial values of its input and inout arrays and
/// the expected values of its results. Saturates at the largest value instead of overflowing.
std::uint64_t data_bytes(const Problem& problem);

/// Bytes of the arrays a candidate writes (outputs and inout arrays), saturated likewise.
std::uint64_t result_bytes(const Problem& problem);

/// What a device keeps in host memory for a problem, in copies of its data (data_bytes) and
/// of its results (result_bytes).
struct HostCopies {
  int data = 1;
  int results = 0;
};

/// Throws a DeviceError, worded for `device` ("cpu device"), when `copies` exceed the host
/// memory the device may use: `limit` bytes, or else this machine's memory. A problem that
/// cannot fit stops with its size instead of an allocation failure or the kernel's
/// out-of-memory killer. Returns the bytes left beyond those copies (the largest value when
/// there is no limit and the machine does not say).
std::uint64_t require_host_memory(const Problem& problem, HostCopies copies,
                                  std::string_view device,
                                  std::optional<std::uint64_t> limit = std::nullopt);

/// What a result parameter must hold after a run, and how close counts: all a check needs, so
/// that a run is checked where its results are (see ProblemData::expected).
struct ExpectedResult {
  std::size_t index = 0;  ///< the parameter's position
  ArrayParam param{};
  double tolerance = 0;  ///< relative
  /// The result's mean magnitude, below which errors count as absolute.
  double scale = 0;
  std::span<const std::byte> values{};
};

/// Describes the first element of `got` (as many as `expected.values`) that is not within
/// tolerance of the expected one, and how many are not; nothing when every one is. NaN never
/// matches.
std::optional<std::string> mismatch(const ExpectedResult& expected, const void* got);

class ProblemData {
 public:
  /// Fills the inputs from the problem's seed and runs its reference once.
  explicit ProblemData(const Problem& problem);

  const Problem& problem() const { return problem_; }
  std::size_t size() const { return bytes_.size(); }

  /// The bytes of parameter `index`: its array's elements, or its scalar value.
  std::size_t bytes(std::size_t index) const;

  /// Writes into `to` (bytes(index) of them) what parameter `index` holds before a run: random
  /// values for inputs and inout arrays, poison (NaN, or a sentinel for integers) for outputs so
  /// that an element the candidate forgets to write never passes, the value itself for scalars.
  void write_initial(std::size_t index, std::byte* to) const;

  /// The initial values of a parameter that is not an output (outputs are poison, written
  /// rather than kept: see write_initial).
  std::span<const std::byte> initial(std::size_t index) const;

  /// Whether parameter `index` is an array the candidate writes (output or inout).
  bool is_result(std::size_t index) const;

  /// What result parameter `index` must hold, read from this ProblemData (which must outlive
  /// it).
  ExpectedResult expected(std::size_t index) const;

  /// Compares what a candidate left in result parameter `index` with the reference (see
  /// mismatch).
  std::optional<std::string> compare(std::size_t index, const void* got) const;

  /// Compares every result parameter, in order, where `result(i)` says the candidate left it:
  /// the first mismatch (see compare), or nothing when all match.
  std::optional<std::string> first_mismatch(
      const std::function<const void*(std::size_t)>& result) const;

 private:
  Problem problem_;
  std::vector<std::size_t> bytes_;
  /// Empty for outputs.
  std::vector<std::vector<std::byte>> initial_;
  std::vector<std::vector<std::byte>> expected_;
  /// Mean magnitude of each result array, the scale below which errors count as absolute.
  std::vector<double> scale_;
};

}  // namespace sculpt::device
