#include "explorer/kernel_cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <system_error>
#include <thread>

#include "device/c_compiler.h"
#include "support/atomic_file.h"
#include "support/error.h"
#include "support/hash.h"
#include "support/input_file.h"

namespace sculpt::explorer {
namespace {

using json = nlohmann::ordered_json;

constexpr int kFormat = 1;

/// The values of sizes written "256x256x32"; nothing for other text.
std::optional<std::vector<double>> size_values(const std::string& sizes) {
  std::vector<double> values;
  std::size_t from = 0;
  while (from <= sizes.size()) {
    const std::size_t to = std::min(sizes.find('x', from), sizes.size());
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(sizes.data() + from, sizes.data() + to, value);
    if (error != std::errc() || end != sizes.data() + to || value <= 0) return std::nullopt;
    values.push_back(static_cast<double>(value));
    from = to + 1;
  }
  return values;
}

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
  std::optional<std::pair<CacheKey, Kernel>> found = read(file_of(key));
  if (!found || found->first != key) return std::nullopt;
  return std::move(found->second);
}

std::optional<Kernel> KernelCache::nearest(const CacheKey& key) const {
  const std::optional<std::vector<double>> sizes = size_values(key.sizes);
  if (!sizes) return std::nullopt;
  std::optional<Kernel> best;
  double best_distance = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, error)) {
    // Files are named KERNEL-SIZES-HASH.json.
    if (!entry.path().filename().string().starts_with(key.kernel + "-")) continue;
    std::optional<std::pair<CacheKey, Kernel>> cached = read(entry.path());
    if (!cached || cached->first.kernel != key.kernel || cached->first.device != key.device ||
        cached->first.sizes == key.sizes || !std::filesystem::exists(cached->second.log, error))
      continue;
    const std::optional<std::vector<double>> other = size_values(cached->first.sizes);
    if (!other || other->size() != sizes->size()) continue;
    double distance = 0;
    for (std::size_t i = 0; i < sizes->size(); ++i)
      distance += std::abs(std::log2((*other)[i] / (*sizes)[i]));
    if (!best || distance < best_distance) {
      best = std::move(cached->second);
      best_distance = distance;
    }
  }
  return best;
}

std::optional<std::pair<CacheKey, Kernel>> KernelCache::read(const std::filesystem::path& file) {
  // An entry holds one kernel's code; anything larger is not one.
  std::string error;
  const std::optional<std::string> text =
      support::read_input_file(file, std::uintmax_t{64} << 20, &error);
  if (!text) return std::nullopt;
  try {
    const json j = json::parse(*text);
    if (j.at("format") != kFormat) return std::nullopt;
    const json& c = j.at("key");
    CacheKey key{c.at("kernel"), c.at("sizes"), c.at("device"),
                 std::stoull(c.at("space_hash").get<std::string>(), nullptr, 16),
                 std::stoull(c.at("description_hash").get<std::string>(), nullptr, 16)};
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
    return std::pair{std::move(key), std::move(kernel)};
  } catch (const json::exception&) {
    return std::nullopt;  // damaged: searched again, and replaced
  } catch (const std::logic_error&) {
    return std::nullopt;  // a hash that is not hexadecimal
  }
}

void KernelCache::store(const CacheKey& key, const Kernel& kernel) const {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) {
    throw Error(Error::Kind::environment,
                fmt::format("cannot write {}: {}", dir_.string(), error.message()));
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
