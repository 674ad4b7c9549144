#pragma once
// What a person sees while a search runs. On a terminal: one line, redrawn every second from the
// start, with the evaluations, the best time, its speed-up over the first candidate that checked
// ok, the rate, the time elapsed and the time left (of the budget, or at this rate to the last
// evaluation: whichever ends first). Piped: that line as plain text at each new best, and every
// few seconds while evaluations go on.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "explorer/search_run.h"
#include "support/progress.h"

namespace sculpt::explorer {

class SearchProgress {
 public:
  /// `logged`: evaluations a resumed log held already (not counted in the rate).
  SearchProgress(std::int64_t requested, std::int64_t logged,
                 std::optional<std::chrono::duration<double>> budget);
  /// Stops redrawing; on a terminal, ends the line.
  ~SearchProgress();
  SearchProgress(const SearchProgress&) = delete;
  SearchProgress& operator=(const SearchProgress&) = delete;

  void update(const SearchProgressState& state);

 private:
  using Clock = std::chrono::steady_clock;
  /// The line after the bar: "37/300 evaluated, best 42.9 us (#11), 3.4x the first, 1.2/s,
  /// 0:31, 1:29 left (evaluations)".
  std::string status() const;
  void tick();
  /// On a terminal, under the lock.
  void redraw();
  /// Whether the search goes on until its budget, whatever the evaluations.
  bool unlimited() const { return state_.requested == std::numeric_limits<std::int64_t>::max(); }
  /// Under the lock, when piped.
  void write_plain_line();

  const std::optional<std::chrono::duration<double>> budget_;
  const std::int64_t logged_;
  const Clock::time_point start_ = Clock::now();
  support::Progress bar_;
  const bool terminal_;
  std::mutex mutex_;
  std::condition_variable stopping_;
  bool stop_ = false;
  SearchProgressState state_;
  /// Evaluations when the last plain line was written.
  std::int64_t written_at_ = -1;
  Clock::time_point written_when_ = start_;
  std::thread ticker_;
};

}  // namespace sculpt::explorer
