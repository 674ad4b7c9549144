// Matrix-vector kernels by hand: mv (y = A . x) and PolyBench's gesummv (y = alpha A x + beta B x).
#include <vector>

#include "tests/zoo/hand_written.h"
#include "zoo/reference_gemm.h"

namespace sculpt::hand_written {
namespace {

using zoo::reference_gemm;

Kernel build_mv(const Sizes& sizes) {
  Builder b("mv");
  Size m = b.size("m", sizes.at("m")), n = b.size("n", sizes.at("n"));
  Array A = b.array("A", ElemType::kF32, {m, n}, MemRegion::Kind::kInput);
  Array X = b.array("x", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array Y = b.array("y", ElemType::kF32, {m}, MemRegion::Kind::kOutput);
  Dim I = b.dim("i", m, parallel_tiling()), J = b.dim("j", n, reduction_tiling());
  Value a = b.load(A, {I, J}), x = b.load(X, {J});
  b.store(Y, {I}, b.fma(a, x, b.reduce(b.constant(0.0), {J})));
  return std::move(b).finish();
}

void mv_reference(const Sizes& sizes, HostArgs& args) {
  const int64_t m = sizes.at("m"), n = sizes.at("n");
  const float* A = args.array("A").as<float>();
  const float* x = args.array("x").as<float>();
  // x is an n x 1 matrix.
  reference_gemm(m, 1, n, {A, n}, {x, 1}, args.array("y").as<float>());
}

Kernel build_gesummv(const Sizes& sizes) {
  Builder b("gesummv");
  Size n = b.size("n", sizes.at("n"));
  Value alpha = b.scalar("alpha", ElemType::kF32), beta = b.scalar("beta", ElemType::kF32);
  Array A = b.array("A", ElemType::kF32, {n, n}, MemRegion::Kind::kInput);
  Array B = b.array("B", ElemType::kF32, {n, n}, MemRegion::Kind::kInput);
  Array X = b.array("x", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array Y = b.array("y", ElemType::kF32, {n}, MemRegion::Kind::kOutput);
  Dim I = b.dim("i", n, parallel_tiling()), J = b.dim("j", n, reduction_tiling());
  Value x = b.load(X, {J});
  Value ax = b.fma(b.load(A, {I, J}), x, b.reduce(b.constant(0.0), {J}));
  Value bx = b.fma(b.load(B, {I, J}), x, b.reduce(b.constant(0.0), {J}));
  b.store(Y, {I}, b.fma(alpha, ax, b.mul(beta, bx)));
  return std::move(b).finish();
}

void gesummv_reference(const Sizes& sizes, HostArgs& args) {
  const int64_t n = sizes.at("n");
  const double alpha = args.scalar("alpha"), beta = args.scalar("beta");
  const float* A = args.array("A").as<float>();
  const float* B = args.array("B").as<float>();
  const float* x = args.array("x").as<float>();
  float* y = args.array("y").as<float>();
  std::vector<double> ax(static_cast<size_t>(n));
  reference_gemm(n, 1, n, {A, n}, {x, 1},
                 [&](int64_t i, std::span<const double> sums) { ax[i] = sums[0]; });
  reference_gemm(n, 1, n, {B, n}, {x, 1}, [&](int64_t i, std::span<const double> sums) {
    y[i] = static_cast<float>(alpha * ax[i] + beta * sums[0]);
  });
}

}  // namespace

void add_matvec(std::vector<backbone::KernelInfo>& kernels) {
  kernels.push_back({"mv", "", {}, build_mv, mv_reference});
  kernels.push_back({"gesummv", "", {}, build_gesummv, gesummv_reference});
}

}  // namespace sculpt::hand_written
