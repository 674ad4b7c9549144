#pragma once
// Classes of the warp instructions a kernel issues, as the model charges them and as the PTX
// emulator counts what ran (tests/device/ptx_emulator.h): one vocabulary for both sides of the
// check that the model never charges more than a kernel executes.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sculpt::perf_model {

enum class InstrClass : std::uint8_t {
  fp32_fma,      ///< fma.rn.f32
  fp32_add,      ///< add, sub .f32
  fp32_mul,      ///< mul.f32
  fp32_other,    ///< min, max, div .f32
  fp64,          ///< any f64 arithmetic
  special,       ///< the special-function unit: ex2.approx, sqrt.rn's seed
  integer,       ///< integer arithmetic: add, sub, mul, mad, div, rem, min, max; selp of any type
  move,          ///< mov, cvt, cvta
  control,       ///< setp, and.pred, bra, ret
  param_load,    ///< ld.param
  global_load,   ///< ld.global (one per warp, vector accesses included)
  global_store,  ///< st.global
  shared_load,   ///< ld.shared
  shared_store,  ///< st.shared
  barrier,       ///< bar.sync
};
inline constexpr std::size_t kInstrClasses = 15;

inline constexpr std::array<std::string_view, kInstrClasses> kInstrClassNames = {
    "fp32_fma",    "fp32_add",     "fp32_mul",    "fp32_other",   "fp64",
    "special",     "integer",      "move",        "control",      "param_load",
    "global_load", "global_store", "shared_load", "shared_store", "barrier"};

inline std::string_view to_string(InstrClass c) {
  return kInstrClassNames[static_cast<std::size_t>(c)];
}

/// Warp instructions per class.
using ClassCounts = std::array<double, kInstrClasses>;

}  // namespace sculpt::perf_model
