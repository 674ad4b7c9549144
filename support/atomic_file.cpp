#include "support/atomic_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace sculpt::support {

void write_atomically(const std::filesystem::path& path, const std::string& text,
                      const std::string& unique) {
  auto temporary = path;
  temporary += "." + unique + ".tmp";
  std::string failure;
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    if (!out.flush()) failure = std::strerror(errno);
  }
  std::error_code error;
  if (failure.empty()) {
    std::filesystem::rename(temporary, path, error);
    if (!error) return;
    failure = error.message();
  }
  std::filesystem::remove(temporary, error);
  throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), failure));
}

}  // namespace sculpt::support
