#include "search/session/device_description.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "device/c_compiler.h"
#include "device/description_of.h"
#include "support/atomic_file.h"
#include "support/file_lock.h"
#include "support/input_file.h"

namespace sculpt::search {
namespace {

/// Where this machine's measured description is kept between searches (beside the compiler's
/// cache, not in it: trimming it would lose the description). The number changes with the way
/// measurements are taken or become figures (device/cpu_description.cpp), so that an older file is
/// measured again (3: sections timed in CPU time, as version 2's, taken on a busy machine, could be
/// far off).
std::filesystem::path cached_cpu_path() {
  return device::CCompiler::default_cache_dir().parent_path() / "cpu-description-3.json";
}

/// The cached description of this machine, if it is one.
std::optional<perf_model::Description> cached_cpu_description() {
  const std::filesystem::path path = cached_cpu_path();
  std::string error;
  const std::optional<std::string> text =
      support::read_input_file(path, std::uintmax_t{1} << 20, &error);
  if (!text) return std::nullopt;
  std::optional<perf_model::Description> d =
      perf_model::Description::parse(*text, path.string(), &error);
  if (!d || !d->cpu || d->about != device::cpu_identity()) return std::nullopt;
  return d;
}

}  // namespace

namespace {

/// This machine's CPU's description: measured once and kept in the user's cache folder.
std::optional<perf_model::Description> this_cpu(std::string* error) {
  if (std::optional<perf_model::Description> cached = cached_cpu_description()) return cached;
  // Processes that start together (a test suite's, two searches) would each measure, each
  // slowing the others' measurements: one measures, the others wait and read its description.
  std::error_code ignored;
  std::filesystem::create_directories(cached_cpu_path().parent_path(), ignored);
  const support::FileLock measuring(cached_cpu_path().string() + ".lock");
  if (std::optional<perf_model::Description> cached = cached_cpu_description()) return cached;
  spdlog::warn("measuring this machine's CPU for the performance model (once; kept in {})",
               cached_cpu_path().string());
  try {
    const device::CpuCharacteristics c = device::characterize_cpu();
    if (c.others_busy > device::kBusyShare) {
      spdlog::warn(
          "other work kept the CPUs {:.0f}% busy while measuring: the bounds may be too "
          "high; sculpt characterize --device cpu --out {} measures again",
          100 * c.others_busy, cached_cpu_path().string());
    }
    perf_model::Description d = device::cpu_description(c);
    try {
      support::write_atomically(cached_cpu_path(), d.to_json(), fmt::format("{}", getpid()));
    } catch (const std::exception& e) {
      spdlog::warn("cannot keep the CPU's description: {}", e.what());
    }
    return d;
  } catch (const device::DeviceError& e) {
    *error = e.what();
    return std::nullopt;
  }
}

}  // namespace

std::optional<perf_model::Description> device_description(device::Kind kind,
                                                          std::string_view architecture,
                                                          const std::string& requested,
                                                          std::string* error,
                                                          std::string_view model) {
  if (!requested.empty()) return perf_model::Description::load(requested, error);
  if (kind == device::Kind::cpu) return this_cpu(error);
  // GPUs of one architecture differ in their memories (an H200's DRAM is a third faster than
  // an H100's): a description of the very GPU comes first.
  if (std::optional<perf_model::Description> own = perf_model::Description::of_gpu(model))
    return own;
  // The stand-in device (search/session/stand_in_device.h) stands in for an sm_90 GPU.
  if (kind == device::Kind::stand_in || architecture.empty())
    return perf_model::Description::named("sm_90");
  const std::vector<std::string> shipped = perf_model::Description::shipped();
  if (std::find(shipped.begin(), shipped.end(), architecture) != shipped.end()) {
    return perf_model::Description::named(std::string(architecture));
  }
  *error = fmt::format(
      "sculpt ships no description of {} GPUs for its performance model: measure this one with "
      "`sculpt characterize --device cuda --out FILE`, then search with --description FILE",
      architecture);
  return std::nullopt;
}

}  // namespace sculpt::search
