#include "zoo/reference_gemm.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <vector>

namespace sculpt::zoo {

void reference_gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a, MatrixView b,
                    const std::function<void(std::int64_t i, std::span<const double> sums)>& row) {
  tbb::parallel_for(tbb::blocked_range<std::int64_t>(0, m), [&](const auto& rows) {
    std::vector<double> sums(static_cast<std::size_t>(n));
    for (std::int64_t i = rows.begin(); i < rows.end(); ++i) {
      std::fill(sums.begin(), sums.end(), 0.0);
      for (std::int64_t l = 0; l < k; ++l) {
        const double a_il = a.at(i, l);
        const float* b_row = b.data + l * b.row_stride;
        // The contiguous case apart, so that the compiler vectorizes it.
        if (b.col_stride == 1) {
          for (std::int64_t j = 0; j < n; ++j) sums[j] += a_il * b_row[j];
        } else {
          for (std::int64_t j = 0; j < n; ++j) sums[j] += a_il * b_row[j * b.col_stride];
        }
      }
      row(i, sums);
    }
  });
}

void reference_gemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a, MatrixView b,
                    float* c) {
  reference_gemm(m, n, k, a, b, [&](std::int64_t i, std::span<const double> sums) {
    std::transform(sums.begin(), sums.end(), c + i * n,
                   [](double sum) { return static_cast<float>(sum); });
  });
}

}  // namespace sculpt::zoo
