#pragma once
// The product at the heart of every matmul-like reference of the zoo: C(i, j) = sum over l of
// A(i, l) * B(l, j). Each sum is taken in double over increasing l, as the naive triple loop
// would, bit for bit (a product of two floats is exact in double). Rows run in parallel, and a
// row's sums accumulate over the rows of B, so that the inner loop reads B and the sums
// contiguously: a 1024^3 matmul's reference takes ~0.1 s, not ~3 s.
#include <cstdint>
#include <functional>
#include <span>

namespace sculpt::zoo {

/// A matrix of floats read through its strides: element (row, col) is data[row * row_stride +
/// col * col_stride] (a transposed or strided layout is a view like another).
struct MatrixView {
  const float* data;
  std::int64_t row_stride;
  std::int64_t col_stride = 1;

  double at(std::int64_t row, std::int64_t col) const {
    return data[row * row_stride + col * col_stride];
  }
};

/// Calls `row(i, sums)` for each i < m with the n sums of row i of `a` (m x k) times `b` (k x n).
/// Rows are computed in parallel: `row` must write row i's outputs only.
void reference_gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a, MatrixView b,
                    const std::function<void(std::int64_t i, std::span<const double> sums)>& row);

/// The same, each sum rounded to float into `c` (m x n, row-major).
void reference_gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a, MatrixView b,
                    float* c);

}  // namespace sculpt::zoo
