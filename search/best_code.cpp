#include "search/best_code.h"

#include <unistd.h>

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <string_view>

#include "support/atomic_file.h"

namespace sculpt::search {
namespace {

constexpr std::string_view kHeader = "// sculpt search: candidate ";

}  // namespace

std::filesystem::path best_code_path(const std::filesystem::path& dir, device::Language language) {
  return dir / (language == device::Language::c ? "best.c" : "best.ptx");
}

void write_best_code(const std::filesystem::path& dir, const device::KernelCode& code,
                     std::int64_t id, const std::string& what, const std::string& time) {
  std::string text = fmt::format("{}{} of {}, {}\n", kHeader, id, what, time);
  if (code.language == device::Language::ptx) {
    const device::LaunchConfig& launch = code.launch;
    text += fmt::format(
        "// launch {}: grid {} x {} x {}, block {} x {} x {}, {} bytes of dynamic shared memory\n",
        code.entry, launch.grid[0], launch.grid[1], launch.grid[2], launch.block[0],
        launch.block[1], launch.block[2], launch.shared_bytes);
  }
  text += code.source;
  support::write_atomically(best_code_path(dir, code.language), text, std::to_string(getpid()));
}

std::optional<std::int64_t> best_code_id(const std::filesystem::path& dir,
                                         device::Language language) {
  std::ifstream file(best_code_path(dir, language));
  std::string line;
  if (!std::getline(file, line) || !line.starts_with(kHeader)) return std::nullopt;
  std::int64_t id = 0;
  const char* digits = line.data() + kHeader.size();
  const auto [end, error] = std::from_chars(digits, line.data() + line.size(), id);
  if (error != std::errc() || end == digits) return std::nullopt;
  return id;
}

}  // namespace sculpt::search
