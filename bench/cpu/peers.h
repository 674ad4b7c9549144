#pragma once
// The CPU peers of a search's matmul candidates, as C kernels with the entry signature the CPU
// device runs (`void <entry>(void** params)`, params m, n, k, A, B, C as search::make_problem
// lays them out for the zoo's matmul: C = A . B, row-major, A m x k, B k x n).
#include <string_view>

namespace sculpt::bench {

/// One triple loop, on one core: what a compiler makes of the textbook code.
inline constexpr std::string_view kNaiveC = R"c(// Naive matmul: one triple loop, on one core.
#include <stdint.h>

void naive(void** params) {
  const int64_t m = *(const int32_t*)params[0], n = *(const int32_t*)params[1];
  const int64_t k = *(const int32_t*)params[2];
  const float* A = *(float* const*)params[3];
  const float* B = *(float* const*)params[4];
  float* C = *(float* const*)params[5];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0;
      for (int64_t p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
      C[i * n + j] = sum;
    }
}
)c";

/// The blocked OpenMP loop a programmer writes in twenty lines: tiles of C shared out over the
/// cores, k in blocks, and an inner loop along a row of C that the compiler vectorises.
inline constexpr std::string_view kBlockedC =
    R"c(// Blocked OpenMP matmul: tiles of C over the cores,
// k in blocks, a vectorised inner loop along a row of C.
#include <stdint.h>

enum { MB = 16, NB = 256, KB = 128 };  // a tile of C (in L1), the k block (B's in L2)

void blocked_omp(void** params) {
  const int64_t m = *(const int32_t*)params[0], n = *(const int32_t*)params[1];
  const int64_t k = *(const int32_t*)params[2];
  const float* restrict A = *(float* const*)params[3];
  const float* restrict B = *(float* const*)params[4];
  float* restrict C = *(float* const*)params[5];
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t i0 = 0; i0 < m; i0 += MB)
    for (int64_t j0 = 0; j0 < n; j0 += NB) {
      const int64_t i1 = i0 + MB < m ? i0 + MB : m, j1 = j0 + NB < n ? j0 + NB : n;
      for (int64_t i = i0; i < i1; ++i)
        for (int64_t j = j0; j < j1; ++j) C[i * n + j] = 0;
      for (int64_t p0 = 0; p0 < k; p0 += KB) {
        const int64_t p1 = p0 + KB < k ? p0 + KB : k;
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t p = p0; p < p1; ++p) {
            const float a = A[i * k + p];
#pragma omp simd
            for (int64_t j = j0; j < j1; ++j) C[i * n + j] += a * B[p * n + j];
          }
      }
    }
}
)c";

/// OpenBLAS's sgemm (compiled with `-lopenblas`). When loaded, it writes the kernel OpenBLAS
/// chose (`openblas_get_corename()`, then `openblas_get_config()`) to the file that
/// $SCULPT_BENCH_OPENBLAS_REPORT names: the process that runs it is the one to ask.
inline constexpr std::string_view kOpenBlasC = R"c(// OpenBLAS sgemm (cblas, row-major).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

// From cblas.h: CblasRowMajor = 101, CblasNoTrans = 111.
void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
char* openblas_get_corename(void);
char* openblas_get_config(void);

__attribute__((constructor)) static void report_kernel(void) {
  const char* path = getenv("SCULPT_BENCH_OPENBLAS_REPORT");
  FILE* out = path != NULL ? fopen(path, "w") : NULL;
  if (out == NULL) return;
  fprintf(out, "%s\n%s\n", openblas_get_corename(), openblas_get_config());
  fclose(out);
}

void openblas(void** params) {
  const int32_t m = *(const int32_t*)params[0], n = *(const int32_t*)params[1];
  const int32_t k = *(const int32_t*)params[2];
  const float* A = *(float* const*)params[3];
  const float* B = *(float* const*)params[4];
  float* C = *(float* const*)params[5];
  cblas_sgemm(101, 111, 111, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n);
}
)c";

}  // namespace sculpt::bench
