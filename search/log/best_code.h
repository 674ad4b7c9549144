#pragma once
// The best candidate's code in a run folder, `best.c` or `best.ptx`, written each time a search
// finds a better candidate, so that it always matches the log, a crash included. Its first line
// names the candidate, which lets a resumed search tell whether the file holds its best.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "device/evaluator.h"

namespace sculpt::search {

/// `dir`/best.c for C, `dir`/best.ptx for PTX.
std::filesystem::path best_code_path(const std::filesystem::path& dir, device::Language language);

/// The comment line that gives a GPU kernel's launch configuration.
std::string launch_comment(const std::string& entry, const device::LaunchConfig& launch);

/// The code as a file holds it: for PTX, its launch configuration in a comment line (which the
/// PTX alone does not give), then the source. What a best file holds below its header line.
std::string code_listing(const device::KernelCode& code);

/// Replaces the best code in `dir` with `code`'s listing, headed by "// sculpt search: candidate ID
/// of `what`, `time`". Throws std::runtime_error ("cannot write PATH: reason") when it cannot.
void write_best_code(const std::filesystem::path& dir, const device::KernelCode& code,
                     std::int64_t id, const std::string& what, const std::string& time);

/// The candidate whose code the best file of `dir` holds; nothing when there is no such file or
/// it was not written by write_best_code.
std::optional<std::int64_t> best_code_id(const std::filesystem::path& dir,
                                         device::Language language);

}  // namespace sculpt::search
