#include "support/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "support/error.h"

namespace sculpt::support {

std::string not_replaceable(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);
  if (error && error != std::errc::no_such_file_or_directory) return error.message();
  switch (status.type()) {
    case fs::file_type::not_found:
    case fs::file_type::regular:
      return {};
    case fs::file_type::directory:
      return "a folder, not a regular file";
    case fs::file_type::symlink:
      return "a symbolic link, which sculpt does not replace (name its target)";
    case fs::file_type::fifo:
      return "a FIFO, not a regular file";
    case fs::file_type::character:
    case fs::file_type::block:
      return "a device, not a regular file";
    case fs::file_type::socket:
      return "a socket, not a regular file";
    default:
      return "not a regular file";
  }
}

namespace {

/// Writes `text` to a new file `path`, never through a file or link already there (one left by
/// a writer that crashed goes first). Returns what went wrong, or empty.
std::string write_new(const std::filesystem::path& path, const std::string& text) {
  ::unlink(path.c_str());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return std::strerror(errno);
  std::string failure;
  for (std::size_t done = 0; done < text.size() && failure.empty();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno != EINTR) failure = std::strerror(errno);
    if (n > 0) done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 && failure.empty()) failure = std::strerror(errno);
  return failure;
}

}  // namespace

void write_atomically(const std::filesystem::path& path, const std::string& text,
                      const std::string& unique) {
  if (std::string why = not_replaceable(path); !why.empty()) {
    throw Error(Error::Kind::environment, fmt::format("cannot write {}: {}", path.string(), why));
  }
  auto temporary = path;
  temporary += "." + unique + ".tmp";
  std::string failure = write_new(temporary, text);
  std::error_code error;
  if (failure.empty()) {
    std::filesystem::rename(temporary, path, error);
    if (!error) return;
    failure = error.message();
  }
  std::filesystem::remove(temporary, error);
  throw Error(Error::Kind::environment, fmt::format("cannot write {}: {}", path.string(), failure));
}

}  // namespace sculpt::support
