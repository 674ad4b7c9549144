#pragma once
// What tests of the CUDA device's code share: where the fake CUDA driver (cuda_fake_driver.cpp)
// is built (beside the test binaries), which driver a test runs on, and the variables that
// steer the fake one.
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <string>

namespace sculpt::device {

inline std::string fake_cuda_driver() {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "libsculpt_fake_cuda.so")
      .string();
}

/// PTX holding this line takes the fake driver's JIT a minute (cuLinkComplete).
inline constexpr const char* kFakeSlowJitMark = "// sculpt fake driver: slow JIT";

/// A test runs on the GPU (skipped where none answers) or on the fake driver.
enum class Driver { gpu, fake };

inline std::string to_string(Driver driver) { return driver == Driver::gpu ? "gpu" : "fake"; }
inline void PrintTo(Driver driver, std::ostream* out) { *out << to_string(driver); }

// Sets a variable of the fake driver's for its scope; the workers inherit the environment.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() { unsetenv(name_); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
};

}  // namespace sculpt::device
