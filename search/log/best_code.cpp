#include "search/log/best_code.h"

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

std::string launch_comment(const std::string& entry, const device::LaunchConfig& launch) {
  return fmt::format(
      "// launch {}: grid {} x {} x {}, block {} x {} x {}, {} bytes of dynamic shared memory\n",
      entry, launch.grid[0], launch.grid[1], launch.grid[2], launch.block[0], launch.block[1],
      launch.block[2], launch.shared_bytes);
}

std::string code_listing(const device::KernelCode& code) {
  return code.language == device::Language::ptx
             ? launch_comment(code.entry, code.launch) + code.source
             : code.source;
}

void write_best_code(const std::filesystem::path& dir, const device::KernelCode& code,
                     std::int64_t id, const std::string& what, const std::string& time) {
  const std::string text =
      fmt::format("{}{} of {}, {}\n", kHeader, id, what, time) + code_listing(code);
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
