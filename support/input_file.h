#pragma once
// Files sculpt reads that a user names (a definition, a device description, a log): regular files
// only, so that a FIFO without a writer cannot block a command and a device such as /dev/zero
// cannot fill memory, and of a bounded size.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace sculpt::support {

/// Why `path` cannot be read as an input file ("no such file", "a folder, not a file", "a FIFO,
/// not a regular file"), or empty when it is a regular file (through any symbolic links).
std::string not_an_input_file(const std::filesystem::path& path);

/// The text of the regular file `path`, of at most `max_bytes`; nothing with why not in `error`
/// (not_an_input_file's reason, "larger than 4 MiB", or the reason reading failed).
std::optional<std::string> read_input_file(const std::filesystem::path& path,
                                           std::uintmax_t max_bytes, std::string* error);

}  // namespace sculpt::support
