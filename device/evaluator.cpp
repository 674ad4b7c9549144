#include "device/evaluator.h"

#include <algorithm>
#include <cmath>

#include "support/check.h"

namespace sculpt::device {
namespace {

double median_of(std::vector<double>& values) {
  auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  double upper = *middle;
  double lower = *std::max_element(values.begin(), middle);
  return (lower + upper) / 2;
}

}  // namespace

std::string_view to_string(Check check) {
  switch (check) {
    case Check::ok:
      return "ok";
    case Check::wrong:
      return "wrong";
    case Check::fault:
      return "fault";
    case Check::timeout:
      return "timeout";
    case Check::compile_error:
      return "compile_error";
  }
  SCULPT_CHECK(false) << "unknown check";
  return {};
}

std::optional<Check> check_from_string(std::string_view name) {
  for (Check check : kChecks) {
    if (to_string(check) == name) return check;
  }
  return std::nullopt;
}

RunStatistics summarize_runs(std::vector<std::int64_t> run_ns) {
  SCULPT_CHECK(!run_ns.empty()) << "no runs to summarize";
  std::vector<double> values(run_ns.begin(), run_ns.end());
  RunStatistics statistics;
  statistics.median_ns = median_of(values);
  for (double& value : values) value = std::abs(value - statistics.median_ns);
  statistics.spread_ns = median_of(values);
  return statistics;
}

}  // namespace sculpt::device
