#include "explorer/kernel_cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>
#include <thread>

#include "device/c_compiler.h"
#include "support/atomic_file.h"
#include "support/hash.h"

namespace sculpt::explorer {
namespace {

using json = nlohmann::ordered_json;

constexpr int kFormat = 1;

json key_json(const CacheKey& key) {
  return {{"kernel", key.kernel},
          {"sizes", key.sizes},
          {"device", key.device},
          {"space_hash", fmt::format("{:016x}", key.space_hash)},
          {"description_hash", fmt::format("{:016x}", key.description_hash)}};
}

json kernel_json(const Kernel& k) {
  return {{"language", k.language},
          {"entry", k.entry},
          {"grid", k.launch.grid},
          {"block", k.launch.block},
          {"shared_bytes", k.launch.shared_bytes},
          {"time_ns", k.time_ns},
          {"run_dir", k.run_dir.string()},
          {"log", k.log.string()},
          {"id", k.id},
          {"code", k.code}};
}

}  // namespace

std::filesystem::path KernelCache::file_of(const CacheKey& key) const {
  return dir_ / fmt::format("{}-{}-{}.json", key.kernel, key.sizes,
                            support::Fnv1a().add(key_json(key).dump()).hex());
}

std::optional<Kernel> KernelCache::find(const CacheKey& key) const {
  std::ifstream in(file_of(key));
  if (!in) return std::nullopt;
  try {
    const json j = json::parse(in);
    if (j.at("format") != kFormat || j.at("key") != key_json(key)) return std::nullopt;
    const json& k = j.at("kernel");
    Kernel kernel;
    kernel.kernel = key.kernel;
    kernel.sizes = key.sizes;
    kernel.device = key.device;
    kernel.language = k.at("language");
    kernel.entry = k.at("entry");
    kernel.launch.grid = k.at("grid");
    kernel.launch.block = k.at("block");
    kernel.launch.shared_bytes = k.at("shared_bytes");
    kernel.time_ns = k.at("time_ns");
    kernel.run_dir = k.at("run_dir").get<std::string>();
    kernel.log = k.at("log").get<std::string>();
    kernel.id = k.at("id");
    kernel.code = k.at("code");
    kernel.from_cache = true;
    return kernel;
  } catch (const json::exception&) {
    return std::nullopt;  // damaged: searched again, and replaced
  }
}

void KernelCache::store(const CacheKey& key, const Kernel& kernel) const {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) {
    throw std::runtime_error(fmt::format("cannot write {}: {}", dir_.string(), error.message()));
  }
  const json j = {{"format", kFormat}, {"key", key_json(key)}, {"kernel", kernel_json(kernel)}};
  // Unique per writer: several threads or processes may store the same key.
  support::write_atomically(
      file_of(key), j.dump(2) + "\n",
      fmt::format("{}-{}", getpid(), std::hash<std::thread::id>{}(std::this_thread::get_id())));
}

std::filesystem::path default_cache_dir() {
  return device::CCompiler::default_cache_dir().parent_path();
}

}  // namespace sculpt::explorer
