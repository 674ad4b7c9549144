// Batched matrix multiplications by hand: one matmul per batch element, and TC's transposed
// batched matmul (tbmm) Z(b, n, k) = sum_m X(b, n, m) * Y(b, k, m).
#include "tests/zoo/hand_written.h"
#include "zoo/reference_gemm.h"

namespace sculpt::hand_written {
namespace {

using zoo::reference_gemm;

Kernel build_batched_matmul(const Sizes& sizes) {
  Builder b("batched_matmul");
  Size bs = b.size("b", sizes.at("b")), m = b.size("m", sizes.at("m"));
  Size n = b.size("n", sizes.at("n")), k = b.size("k", sizes.at("k"));
  Array A = b.array("A", ElemType::kF32, {bs, m, k}, MemRegion::Kind::kInput);
  Array B = b.array("B", ElemType::kF32, {bs, k, n}, MemRegion::Kind::kInput);
  Array C = b.array("C", ElemType::kF32, {bs, m, n}, MemRegion::Kind::kOutput);
  Dim Bt = b.dim("b", bs), M = b.dim("m", m, parallel_tiling()),
      N = b.dim("n", n, parallel_tiling());
  Dim K = b.dim("k", k, reduction_tiling());
  Value a = b.load(A, {Bt, M, K}), bv = b.load(B, {Bt, K, N});
  b.store(C, {Bt, M, N}, b.fma(a, bv, b.reduce(b.constant(0.0), {K})));
  return std::move(b).finish();
}

void batched_matmul_reference(const Sizes& sizes, HostArgs& args) {
  const int64_t bs = sizes.at("b"), m = sizes.at("m"), n = sizes.at("n"), k = sizes.at("k");
  const float* A = args.array("A").as<float>();
  const float* B = args.array("B").as<float>();
  float* C = args.array("C").as<float>();
  for (int64_t p = 0; p < bs; ++p) {
    reference_gemm(m, n, k, {A + p * m * k, k}, {B + p * k * n, n}, C + p * m * n);
  }
}

Kernel build_tbmm(const Sizes& sizes) {
  Builder b("tbmm");
  Size bs = b.size("b", sizes.at("b")), n = b.size("n", sizes.at("n"));
  Size m = b.size("m", sizes.at("m")), k = b.size("k", sizes.at("k"));
  Array X = b.array("X", ElemType::kF32, {bs, n, m}, MemRegion::Kind::kInput);
  Array Y = b.array("Y", ElemType::kF32, {bs, k, m}, MemRegion::Kind::kInput);
  Array Z = b.array("Z", ElemType::kF32, {bs, n, k}, MemRegion::Kind::kOutput);
  Dim Bt = b.dim("b", bs), N = b.dim("n", n, parallel_tiling()),
      K = b.dim("k", k, parallel_tiling());
  Dim M = b.dim("m", m, reduction_tiling());
  Value x = b.load(X, {Bt, N, M}), y = b.load(Y, {Bt, K, M});
  b.store(Z, {Bt, N, K}, b.fma(x, y, b.reduce(b.constant(0.0), {M})));
  return std::move(b).finish();
}

void tbmm_reference(const Sizes& sizes, HostArgs& args) {
  const int64_t bs = sizes.at("b"), n = sizes.at("n"), m = sizes.at("m"), k = sizes.at("k");
  const float* X = args.array("X").as<float>();
  const float* Y = args.array("Y").as<float>();
  float* Z = args.array("Z").as<float>();
  // Y[p] is read transposed: element (l, j) of the k-column operand is Y(p, j, l).
  for (int64_t p = 0; p < bs; ++p) {
    reference_gemm(n, k, m, {X + p * n * m, m}, {Y + p * k * m, 1, m}, Z + p * n * k);
  }
}

}  // namespace

void add_batched_matmul(std::vector<backbone::KernelInfo>& kernels) {
  kernels.push_back({"batched_matmul", "", {}, build_batched_matmul, batched_matmul_reference});
  kernels.push_back({"tbmm", "", {}, build_tbmm, tbmm_reference});
}

}  // namespace sculpt::hand_written
