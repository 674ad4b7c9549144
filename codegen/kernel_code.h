#pragma once
// The code of a fully specified candidate as a device takes it (device/ evaluates it): C for
// the CPU, PTX for CUDA with the launch configuration the PTX alone does not give. device_code.h
// makes it.
#include <array>
#include <cstdint>
#include <string>

namespace sculpt::codegen {

enum class Language { c, ptx };

/// Grid and block sizes and dynamic shared memory of a GPU launch; the CPU device ignores it
/// (the generated C iterates over blocks and threads itself).
struct LaunchConfig {
  std::array<std::uint32_t, 3> grid = {1, 1, 1};
  std::array<std::uint32_t, 3> block = {1, 1, 1};
  std::uint32_t shared_bytes = 0;
};

/// The code of one candidate. Its entry point takes its parameters the way cuLaunchKernel's
/// `kernelParams` does: for C, `extern "C" void <entry>(void** params)` where `params[i]`
/// points to the i-th parameter's value (for an array, to the pointer to its first element;
/// for a scalar, to the scalar).
struct KernelCode {
  Language language = Language::c;
  std::string source{};
  std::string entry{};
  LaunchConfig launch{};
};

}  // namespace sculpt::codegen
