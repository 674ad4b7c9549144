#pragma once
// Where the fake CUDA driver (cuda_fake_driver.cpp) is built: beside the test binaries.
#include <filesystem>
#include <string>

namespace sculpt::device {

inline std::string fake_cuda_driver() {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "libsculpt_fake_cuda.so")
      .string();
}

}  // namespace sculpt::device
