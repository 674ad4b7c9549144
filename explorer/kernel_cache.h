#pragma once
// The library call's cache of searched kernels (sculpt.h): one JSON file per key, under the
// cache folder's kernels/, written atomically, so that a program that asks again for the same
// kernel, sizes, device, space and device description gets the same code at once, and a change
// of any of them (a new space version included) searches again.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "explorer/sculpt_types.h"

namespace sculpt::explorer {

struct CacheKey {
  std::string kernel;
  std::string sizes;
  /// device::Evaluator::model(): the GPU's name, or cpu.
  std::string device;
  std::uint64_t space_hash = 0;
  std::uint64_t description_hash = 0;
  friend bool operator==(const CacheKey&, const CacheKey&) = default;
};

class KernelCache {
 public:
  /// The cache in `dir`/kernels (made when first stored to).
  explicit KernelCache(std::filesystem::path dir) : dir_(std::move(dir) / "kernels") {}

  /// The kernel cached under `key`; nothing when there is none, or its file is unreadable or
  /// holds another key (a collision of file names).
  std::optional<Kernel> find(const CacheKey& key) const;
  /// Of the kernels cached for `key`'s kernel and device at other sizes (any space version or
  /// description) whose search's log is still there, the one at the sizes nearest `key`'s (the
  /// least sum of |log2| of the ratios of the sizes); nothing when there is none.
  std::optional<Kernel> nearest(const CacheKey& key) const;
  /// Caches `kernel` under `key`, replacing what was there. Throws std::runtime_error ("cannot
  /// write PATH: why").
  void store(const CacheKey& key, const Kernel& kernel) const;

  /// The file of `key`: "matmul-1024x1024x1024-HASH.json".
  std::filesystem::path file_of(const CacheKey& key) const;

 private:
  /// A cache file's key and kernel; nothing when it is unreadable or damaged.
  static std::optional<std::pair<CacheKey, Kernel>> read(const std::filesystem::path& file);

  std::filesystem::path dir_;
};

/// $XDG_CACHE_HOME/sculpt, else ~/.cache/sculpt, else a folder of the temporary folder.
std::filesystem::path default_cache_dir();

}  // namespace sculpt::explorer
