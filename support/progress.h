#pragma once
// A one-line progress bar on stderr, redrawn in place, shown only when stderr is a terminal
// (logs and pipes get the final summary instead).
#include <cstdint>
#include <string>
#include <string_view>

namespace sculpt::support {

class Progress {
 public:
  explicit Progress(std::int64_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Redraws the bar with `done` of the total and a status after it.
  void update(std::int64_t done, std::string_view status);
  /// Redraws the bar filled to `fraction` (0 to 1) with `text` after it.
  void draw(double fraction, std::string_view text);

 private:
  std::int64_t total_;
  bool shown_;
  bool drawn_ = false;
};

}  // namespace sculpt::support
