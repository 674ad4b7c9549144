#include "support/progress.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace sculpt::support {

Progress::Progress(std::int64_t total)
    : total_(std::max<std::int64_t>(total, 1)), shown_(isatty(2)) {}

Progress::~Progress() {
  if (drawn_) std::fputc('\n', stderr);
}

void Progress::update(std::int64_t done, std::string_view status) {
  draw(static_cast<double>(std::min(done, total_)) / static_cast<double>(total_),
       fmt::format("{}/{} {}", done, total_, status));
}

void Progress::draw(double fraction, std::string_view text) {
  if (!shown_) return;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kWidth);
  std::fprintf(stderr, "\r[%s%s] %.*s\033[K", std::string(filled, '#').c_str(),
               std::string(kWidth - filled, ' ').c_str(), static_cast<int>(text.size()),
               text.data());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace sculpt::support
