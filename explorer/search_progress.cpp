#include "explorer/search_progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "support/duration.h"

namespace sculpt::explorer {
namespace {

/// How often a piped search writes a line while evaluations go on without a new best.
constexpr auto kPlainEvery = std::chrono::seconds(5);

}  // namespace

SearchProgress::SearchProgress(std::int64_t requested, std::int64_t logged,
                               std::optional<std::chrono::duration<double>> budget)
    : budget_(budget), logged_(logged), bar_(1), terminal_(isatty(2) != 0) {
  state_.requested = requested;
  state_.evaluations = logged;
  written_at_ = logged;
  if (terminal_) redraw();
  ticker_ = std::thread([this] { tick(); });
}

SearchProgress::~SearchProgress() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stopping_.notify_all();
  ticker_.join();
}

void SearchProgress::update(const SearchProgressState& state) {
  std::lock_guard lock(mutex_);
  state_ = state;
  if (terminal_) {
    redraw();
  } else if (state.new_best) {
    write_plain_line();
  }
}

void SearchProgress::redraw() {
  // Filled as far as the first of the evaluations and the budget to end.
  double fraction = unlimited()
                        ? 0
                        : static_cast<double>(state_.evaluations) /
                              static_cast<double>(std::max<std::int64_t>(state_.requested, 1));
  if (budget_ && budget_->count() > 0) {
    fraction = std::max(
        fraction, std::chrono::duration<double>(Clock::now() - start_).count() / budget_->count());
  }
  bar_.draw(fraction, status());
}

void SearchProgress::write_plain_line() {
  std::fprintf(stderr, "%s\n", status().c_str());
  written_at_ = state_.evaluations;
  written_when_ = Clock::now();
}

std::string SearchProgress::status() const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  std::string text = unlimited()
                         ? fmt::format("{} evaluated, ", state_.evaluations)
                         : fmt::format("{}/{} evaluated, ", state_.evaluations, state_.requested);
  text += state_.best_ns
              ? fmt::format("best {} (#{})", support::format_ns(*state_.best_ns), state_.best_id)
              : std::string(state_.evaluations > logged_ ? "no valid candidate yet"
                                                         : "waiting for the first candidate");
  if (state_.best_ns && state_.first_ok_ns && *state_.best_ns > 0) {
    text += fmt::format(", {:.3g}x the first", *state_.first_ok_ns / *state_.best_ns);
  }
  const double done = static_cast<double>(state_.evaluations - logged_);
  const double rate = elapsed > 0 ? done / elapsed : 0;
  if (done > 0) text += fmt::format(", {:.3g}/s", rate);
  text += ", " + support::format_clock(elapsed);
  // Left: the budget's, or at this rate the evaluations', whichever ends first.
  std::optional<double> left;
  std::string by;
  if (rate > 0 && !unlimited()) {
    left = static_cast<double>(state_.requested - state_.evaluations) / rate;
    by = "evaluations";
  }
  if (budget_ && (!left || budget_->count() - elapsed < *left)) {
    left = budget_->count() - elapsed;
    by = "budget";
  }
  if (left) text += fmt::format(", {} left ({})", support::format_clock(*left), by);
  return text;
}

void SearchProgress::tick() {
  std::unique_lock lock(mutex_);
  while (!stopping_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; })) {
    if (terminal_) {
      redraw();
    } else if (state_.evaluations != written_at_ && Clock::now() - written_when_ >= kPlainEvery) {
      write_plain_line();
    }
  }
}

}  // namespace sculpt::explorer
