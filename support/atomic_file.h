#pragma once
// Files that readers never see half written: the text goes to a temporary file next to the
// target, which a rename then puts in place. Only a regular file is ever replaced: a rename over
// a FIFO, a device or a symbolic link would put a plain file where the user had something else.
#include <filesystem>
#include <string>

namespace sculpt::support {

/// Writes `text` to `path` through `path` + "." + `unique` + ".tmp" and a rename, so that a
/// reader sees the old file or the new one, never a part, even while another thread or process
/// writes the same path (give each writer its own `unique`). Throws std::runtime_error
/// ("cannot write PATH: reason") when it cannot: a full disk, or a `path` that exists and is not
/// a regular file (a folder, a FIFO, a device, a symbolic link), which is left as it is. The
/// temporary file is removed then.
void write_atomically(const std::filesystem::path& path, const std::string& text,
                      const std::string& unique);

/// Why `path` must not be replaced by a file sculpt writes ("a FIFO, not a regular file"), or
/// empty when it is a regular file or does not exist.
std::string not_replaceable(const std::filesystem::path& path);

}  // namespace sculpt::support
