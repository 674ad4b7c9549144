#pragma once
// How measured figures enter a description (description_of.h): rounded outward so that the
// bound stays valid, and dated.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "perf_model/description.h"

namespace sculpt::device {

/// Today, UTC: "2025-06-01".
inline std::string today() {
  const std::chrono::year_month_day day{
      std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now())};
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(day.year()),
                     static_cast<unsigned>(day.month()), static_cast<unsigned>(day.day()));
}

/// `x` to four significant digits, rounded up (a rate) or down (the launch floor), so that the
/// bound stays valid.
inline double round_outward(double x, bool up) {
  const int exponent = static_cast<int>(std::floor(std::log10(x))) - 3;
  const double scaled = x / std::pow(10.0, exponent);
  return std::stod(fmt::format("{}e{}", up ? std::ceil(scaled) : std::floor(scaled), exponent));
}

/// "16 KiB", "8 MiB": a working set.
inline std::string format_bytes(std::int64_t bytes) {
  if (bytes >= (std::int64_t{1} << 20)) return fmt::format("{:.4g} MiB", bytes / 1048576.0);
  return fmt::format("{:.4g} KiB", bytes / 1024.0);
}

/// A measured device's description before its rates: its name and what it is, with sm_90's
/// limits, the shapes every device's space is built with.
inline perf_model::Description measured_description(std::string name, std::string about) {
  perf_model::Description d;
  d.name = std::move(name);
  d.about = std::move(about);
  d.limits = perf_model::Description::named("sm_90").limits;
  d.limits_of = "sm_90";
  return d;
}

}  // namespace sculpt::device
