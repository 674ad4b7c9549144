#include "codegen/identifiers.h"

#include <set>
#include <span>
#include <string_view>

namespace sculpt::codegen {
namespace {

// clang-format off
// Object-like macros of <math.h>, <stdint.h> and <stdlib.h> (glibc).
constexpr std::string_view kHeaderMacros[] = {
    "BIG_ENDIAN", "BYTE_ORDER", "EXIT_FAILURE", "EXIT_SUCCESS", "FD_SETSIZE", "FP_ILOGB0",
    "FP_ILOGBNAN", "FP_INFINITE", "FP_NAN", "FP_NORMAL", "FP_SUBNORMAL", "FP_ZERO", "HUGE_VAL",
    "HUGE_VALF", "HUGE_VALL", "INFINITY", "INT16_MAX", "INT16_MIN", "INT32_MAX", "INT32_MIN",
    "INT64_MAX", "INT64_MIN", "INT8_MAX", "INT8_MIN", "INTMAX_MAX", "INTMAX_MIN", "INTPTR_MAX",
    "INTPTR_MIN", "INT_FAST16_MAX", "INT_FAST16_MIN", "INT_FAST32_MAX", "INT_FAST32_MIN",
    "INT_FAST64_MAX", "INT_FAST64_MIN", "INT_FAST8_MAX", "INT_FAST8_MIN", "INT_LEAST16_MAX",
    "INT_LEAST16_MIN", "INT_LEAST32_MAX", "INT_LEAST32_MIN", "INT_LEAST64_MAX", "INT_LEAST64_MIN",
    "INT_LEAST8_MAX", "INT_LEAST8_MIN", "LITTLE_ENDIAN", "MATH_ERREXCEPT", "MATH_ERRNO",
    "MB_CUR_MAX", "M_1_PI", "M_2_PI", "M_2_SQRTPI", "M_E", "M_LN10", "M_LN2", "M_LOG10E", "M_LOG2E",
    "M_PI", "M_PI_2", "M_PI_4", "M_SQRT1_2", "M_SQRT2", "NAN", "NFDBITS", "NULL", "PDP_ENDIAN",
    "PTRDIFF_MAX", "PTRDIFF_MIN", "RAND_MAX", "SIG_ATOMIC_MAX", "SIG_ATOMIC_MIN", "SIZE_MAX",
    "UINT16_MAX", "UINT32_MAX", "UINT64_MAX", "UINT8_MAX", "UINTMAX_MAX", "UINTPTR_MAX",
    "UINT_FAST16_MAX", "UINT_FAST32_MAX", "UINT_FAST64_MAX", "UINT_FAST8_MAX", "UINT_LEAST16_MAX",
    "UINT_LEAST32_MAX", "UINT_LEAST64_MAX", "UINT_LEAST8_MAX", "WCHAR_MAX", "WCHAR_MIN",
    "WCONTINUED", "WEXITED", "WINT_MAX", "WINT_MIN", "WNOHANG", "WNOWAIT", "WSTOPPED", "WUNTRACED"};

// Words of C11 and C++20, the macros C11's headers spell some of them with (complex,
// noreturn), and GCC's macros of the target without an underscore (linux, unix, i386).
constexpr std::string_view kWords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char16_t", "char32_t", "char8_t", "class", "co_await", "co_return",
    "co_yield", "compl", "complex", "concept", "const", "const_cast", "consteval", "constexpr",
    "constinit", "continue", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "i386", "if", "imaginary", "inline", "int", "linux", "long", "math_errhandling", "mutable",
    "namespace", "new", "noexcept", "noreturn", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires",
    "restrict", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast",
    "struct", "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef",
    "typeid", "typename", "union", "unix", "unsigned", "using", "virtual", "void", "volatile",
    "wchar_t", "while", "xor", "xor_eq"};

// What generated code calls and declares: functions, types, CUDA C's built-in variables.
constexpr std::string_view kUsedNames[] = {
    "aligned_alloc", "blockDim", "blockIdx", "exp", "expf", "fma", "fmaf", "fmax", "fmaxf", "fmin",
    "fminf", "free", "gridDim", "int32_t", "int64_t", "params", "size_t", "sqrt", "sqrtf",
    "threadIdx", "uint32_t", "uint64_t", "warpSize"};
// clang-format on

/// The names C and CUDA C code of `k` gives to what is not a parameter.
std::set<std::string> generated_names(const LoweredKernel& k, const std::string& entry) {
  std::set<std::string> names = {entry, entry + "_block", "block", "tid", "tx", "ty", "tz"};
  for (const LoopDim& d : k.dims) names.insert(loop_index_name(d));
  for (const RegisterArray& r : k.registers) names.insert(r.name);
  for (const Memory& m : k.memories) {
    if (m.kind != Memory::Kind::kParam) names.insert(m.name);
  }
  return names;
}

}  // namespace

std::string loop_index_name(const LoopDim& d) {
  if (d.kind == LoopKind::kThread) return std::string("t") + "xyz"[d.level];
  return (d.kind == LoopKind::kBlock ? "b_" : "i_") + d.name;
}

bool is_reserved_identifier(const std::string& name) {
  static const std::set<std::string_view> reserved = [] {
    std::set<std::string_view> all;
    for (const auto& names : {std::span<const std::string_view>(kHeaderMacros),
                              std::span<const std::string_view>(kWords),
                              std::span<const std::string_view>(kUsedNames)}) {
      all.insert(names.begin(), names.end());
    }
    return all;
  }();
  return reserved.count(name) > 0;
}

std::vector<std::string> parameter_identifiers(const LoweredKernel& k, const std::string& entry) {
  std::set<std::string> taken = generated_names(k, entry);
  std::vector<std::string> out;
  for (const Param& p : k.params) {
    std::string name = p.name.starts_with('_') ? "p" + p.name : p.name;
    while (is_reserved_identifier(name) || taken.count(name)) name += '_';
    taken.insert(name);
    out.push_back(std::move(name));
  }
  return out;
}

}  // namespace sculpt::codegen
