#pragma once
// The OpenBLAS kernel the bench programs ask for, from what the processor says of itself.
#include <stdlib.h>

#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>
#include <string>

namespace sculpt::bench {

/// The OpenBLAS core type (an OPENBLAS_CORETYPE value OpenBLAS 0.3.21 knows) whose kernels
/// suit this processor, from the vendor and the instruction sets /proc/cpuinfo lists: a virtual
/// machine may hide the model from OpenBLAS's own detection but lists the flags. Zen 4 has
/// Cooper Lake's AVX-512 (with bf16), and OpenBLAS 0.3.21 has no Zen 4 target of its own.
/// Empty when nothing fits (OpenBLAS then detects by itself).
inline std::string openblas_core_type() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, vendor;
  std::set<std::string> flags;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    std::istringstream value(line.substr(colon + 1));
    if (key == "vendor_id" && vendor.empty()) value >> vendor;
    if (key == "flags" && flags.empty()) {
      for (std::string flag; value >> flag;) flags.insert(flag);
    }
  }
  auto has = [&](std::initializer_list<const char*> names) {
    for (const char* name : names) {
      if (!flags.count(name)) return false;
    }
    return true;
  };
  const bool amd = vendor == "AuthenticAMD";
  if (has({"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"})) {
    return has({"avx512_bf16"}) ? "Cooperlake" : "SkylakeX";
  }
  if (has({"avx2", "fma"})) return amd ? "Zen" : "Haswell";
  if (has({"avx"})) return amd ? "Bulldozer" : "Sandybridge";
  if (has({"sse4_2"})) return amd ? "Barcelona" : "Nehalem";
  return "";
}

struct OpenBlasCoreType {
  std::string name;      // OPENBLAS_CORETYPE as the peers run it; empty: OpenBLAS detects
  bool derived = false;  // derived here rather than set by the user
};

/// OPENBLAS_CORETYPE as the user set it, else set to openblas_core_type() for the processes this
/// one starts after (OpenBLAS reads it when it is loaded there).
inline OpenBlasCoreType choose_openblas_core_type() {
  if (const char* set = std::getenv("OPENBLAS_CORETYPE")) return {set, false};
  OpenBlasCoreType core{openblas_core_type(), false};
  core.derived = !core.name.empty();
  if (core.derived) setenv("OPENBLAS_CORETYPE", core.name.c_str(), 1);
  return core;
}

}  // namespace sculpt::bench
