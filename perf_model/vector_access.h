#pragma once
// Which of a thread's accesses move several elements at once: the vector accesses codegen prints
// (codegen/instructions.cpp) and the model charges, and the merges of unrolled accesses ptxas
// makes, which only the model charges. The bound is a lower bound only while the model counts
// the accesses codegen prints, hence one rule for both.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace sculpt::perf_model {

/// The widest access of one thread: PTX's ld and st .v2 and .v4 move at most 16 bytes.
inline constexpr std::int64_t kMaxAccessBytes = 16;

/// An instruction's affine access in elements: its coefficient along each of its dimensions (in
/// any order the caller keeps) and its constant offset.
struct AffineAccess {
  std::span<const std::int64_t> coeffs;
  std::int64_t constant = 0;
  std::int64_t elem_bytes = 4;
};

/// Whether the `size` iterations of dimension `k`, a vector dimension innermost in the access's
/// instruction, are one vector access of `size` elements: unit stride along it, at most 16
/// bytes, and the constant and every other coefficient multiples of `size`, so that every
/// vector is aligned to its width. Otherwise the vector loop is unrolled into scalar accesses.
bool is_vector_access(const AffineAccess& access, std::size_t k, std::int64_t size);

/// How many consecutive accesses of `lane` elements each (a vector access's width, else 1)
/// along an unrolled dimension `k` of `size` iterations ptxas merges into one, as seen on an
/// H200 (four ld.shared.f32 at offsets 0, 4, 8 and 12 of a 16-byte aligned tile become one
/// LDS.128): the widest w, halving from 16 bytes' worth, with coefficient `lane` along `k`, w
/// dividing `size`, and the constant and the coefficients of every dimension but `k` and the
/// vector one multiples of w lanes; 1 where there is none. Codegen prints the accesses apart.
std::int64_t merged_accesses(const AffineAccess& access, std::size_t k, std::int64_t size,
                             std::int64_t lane, std::optional<std::size_t> vector);

}  // namespace sculpt::perf_model
