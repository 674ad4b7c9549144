#include "support/duration.h"

#include <fmt/format.h>

#include <cstdlib>
#include <regex>

namespace sculpt::support {

std::optional<double> parse_duration(std::string_view view) {
  static const std::regex whole(R"(^([0-9]+(\.[0-9]+)?(h|ms|m|s|us|ns))+$)");
  static const std::regex part(R"(([0-9]+(?:\.[0-9]+)?)(h|ms|m|s|us|ns))");
  const std::string text(view);
  if (!std::regex_match(text, whole)) return std::nullopt;
  double seconds = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), part); it != std::sregex_iterator();
       ++it) {
    const std::string unit = (*it)[2];
    const double scale = unit == "h"    ? 3600
                         : unit == "m"  ? 60
                         : unit == "s"  ? 1
                         : unit == "ms" ? 1e-3
                         : unit == "us" ? 1e-6
                                        : 1e-9;
    // strtod, not stod: a number past a double's range is infinite (no limit), not an exception.
    seconds += std::strtod((*it)[1].str().c_str(), nullptr) * scale;
  }
  return seconds;
}

std::pair<double, const char*> duration_unit(double ns) {
  if (ns < 1e3) return {1, "ns"};
  if (ns < 1e6) return {1e3, "us"};
  if (ns < 1e9) return {1e6, "ms"};
  return {1e9, "s"};
}

std::string format_ns(double ns) {
  const auto [scale, unit] = duration_unit(ns);
  return fmt::format("{:.4g} {}", ns / scale, unit);
}

std::string format_clock(double seconds) {
  const auto total = static_cast<long long>(seconds > 0 ? seconds : 0);
  const long long h = total / 3600, m = total / 60 % 60, s = total % 60;
  return h > 0 ? fmt::format("{}:{:02}:{:02}", h, m, s) : fmt::format("{}:{:02}", m, s);
}

}  // namespace sculpt::support
