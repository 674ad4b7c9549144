#pragma once
// Durations as people write and read them: "90s", "1h30m", "55.5us" in; "434.5 ms" out.
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace sculpt::support {

/// Numbers each followed by a unit (h, m, s, ms, us, ns), added up: "90s", "1h30m", "55.5us".
/// Seconds; nothing when malformed. A number past a double's range is infinite.
std::optional<double> parse_duration(std::string_view text);

/// The unit that writes `ns` with one to three digits before the point: ns, us, ms or s, with
/// nanoseconds per unit.
std::pair<double, const char*> duration_unit(double ns);

/// "434.5 ms", "3.115 us": four significant digits in the unit duration_unit picks.
std::string format_ns(double ns);

/// A wall-clock span as a clock shows it: "0:07", "12:31", "1:02:03" (seconds rounded down).
std::string format_clock(double seconds);

}  // namespace sculpt::support
