#pragma once
// An advisory lock on a file (flock), held by one process at a time: the others wait for it.
#include <filesystem>

namespace sculpt::support {

class FileLock {
 public:
  /// Waits until this process holds the lock on `path`, created if absent. Where the file
  /// cannot be opened or the file system has no locks, nothing is locked: the lock only saves
  /// work done twice, never guards correctness.
  explicit FileLock(const std::filesystem::path& path);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace sculpt::support
