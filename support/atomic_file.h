#pragma once
// Files that readers never see half written: the text goes to a temporary file next to the
// target, which a rename then puts in place.
#include <filesystem>
#include <string>

namespace sculpt::support {

/// Writes `text` to `path` through `path` + "." + `unique` + ".tmp" and a rename, so that a
/// reader sees the old file or the new one, never a part, even while another thread or process
/// writes the same path (give each writer its own `unique`). Throws std::runtime_error
/// ("cannot write PATH: reason") when it cannot, a full disk for one; the temporary file is
/// removed then.
void write_atomically(const std::filesystem::path& path, const std::string& text,
                      const std::string& unique);

}  // namespace sculpt::support
