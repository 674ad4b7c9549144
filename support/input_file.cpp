#include "support/input_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

namespace sculpt::support {

std::string not_an_input_file(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  switch (status.type()) {
    case fs::file_type::regular:
      return {};
    case fs::file_type::not_found:
      return "no such file";
    case fs::file_type::directory:
      return "a folder, not a file";
    case fs::file_type::fifo:
      return "a FIFO, not a regular file";
    case fs::file_type::character:
    case fs::file_type::block:
      return "a device, not a regular file";
    case fs::file_type::socket:
      return "a socket, not a regular file";
    default:
      return error ? error.message() : "not a regular file";
  }
}

std::optional<std::string> read_input_file(const std::filesystem::path& path,
                                           std::uintmax_t max_bytes, std::string* error) {
  if (std::string why = not_an_input_file(path); !why.empty()) {
    *error = std::move(why);
    return std::nullopt;
  }
  const auto larger = [&] {
    *error = max_bytes >= (std::uintmax_t{1} << 20)
                 ? fmt::format("larger than {} MiB", max_bytes >> 20)
                 : fmt::format("larger than {} KiB", max_bytes >> 10);
    return std::nullopt;
  };
  std::error_code size_error;
  if (std::filesystem::file_size(path, size_error) > max_bytes && !size_error) return larger();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = std::strerror(errno);
    return std::nullopt;
  }
  // The file may have grown since its size was read: at most one byte past the bound is read.
  std::string text(max_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    *error = "an input error";
    return std::nullopt;
  }
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_bytes) return larger();
  return text;
}

}  // namespace sculpt::support
