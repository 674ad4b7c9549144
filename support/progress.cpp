#include "support/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace sculpt::support {

Progress::Progress(std::int64_t total) : total_(std::max<std::int64_t>(total, 1)), shown_(isatty(2)) {}

Progress::~Progress() {
  if (drawn_) std::fputc('\n', stderr);
}

void Progress::update(std::int64_t done, std::string_view status) {
  if (!shown_) return;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(std::min<std::int64_t>(done, total_) * kWidth / total_);
  std::fprintf(stderr, "\r[%s%s] %lld/%lld %.*s\033[K", std::string(filled, '#').c_str(),
               std::string(kWidth - filled, ' ').c_str(), static_cast<long long>(done),
               static_cast<long long>(total_), static_cast<int>(status.size()), status.data());
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace sculpt::support
