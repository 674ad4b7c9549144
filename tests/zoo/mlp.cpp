// Neural-network layers by hand: a matmul fused with a bias and a ReLU (Diesel's GEMM + bias +
// ReLU, TC's fcrelu), and two chained matmuls with a ReLU between them (an MLP layer pair).
#include <algorithm>

#include "tests/zoo/hand_written.h"
#include "zoo/reference_gemm.h"

namespace sculpt::hand_written {
namespace {

using zoo::reference_gemm;

Kernel build_matmul_bias_relu(const Sizes& sizes) {
  Builder b("matmul_bias_relu");
  Size m = b.size("m", sizes.at("m")), n = b.size("n", sizes.at("n"));
  Size k = b.size("k", sizes.at("k"));
  Array A = b.array("A", ElemType::kF32, {m, k}, MemRegion::Kind::kInput);
  Array B = b.array("B", ElemType::kF32, {k, n}, MemRegion::Kind::kInput);
  Array Bias = b.array("bias", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array C = b.array("C", ElemType::kF32, {m, n}, MemRegion::Kind::kOutput);
  Dim M = b.dim("m", m, parallel_tiling()), N = b.dim("n", n, parallel_tiling());
  Dim K = b.dim("k", k, reduction_tiling());
  Value a = b.load(A, {M, K}), bv = b.load(B, {K, N});
  Value c = b.fma(a, bv, b.reduce(b.constant(0.0), {K}));
  Value biased = b.add(c, b.load(Bias, {N}));
  b.store(C, {M, N}, b.max(biased, b.constant(0.0)));
  return std::move(b).finish();
}

void matmul_bias_relu_reference(const Sizes& sizes, HostArgs& args) {
  const int64_t m = sizes.at("m"), n = sizes.at("n"), k = sizes.at("k");
  const float* A = args.array("A").as<float>();
  const float* B = args.array("B").as<float>();
  const float* bias = args.array("bias").as<float>();
  float* C = args.array("C").as<float>();
  reference_gemm(m, n, k, {A, k}, {B, n}, [&](int64_t i, std::span<const double> sums) {
    for (int64_t j = 0; j < n; ++j) {
      // The device rounds the product to f32 before adding the bias.
      const float biased = static_cast<float>(static_cast<float>(sums[j]) + bias[j]);
      C[i * n + j] = std::max(biased, 0.0f);
    }
  });
}

Kernel build_mlp2(const Sizes& sizes) {
  Builder b("mlp2");
  Size m = b.size("m", sizes.at("m")), k = b.size("k", sizes.at("k"));
  Size h = b.size("h", sizes.at("h")), n = b.size("n", sizes.at("n"));
  Array X = b.array("X", ElemType::kF32, {m, k}, MemRegion::Kind::kInput);
  Array W1 = b.array("W1", ElemType::kF32, {k, h}, MemRegion::Kind::kInput);
  Array W2 = b.array("W2", ElemType::kF32, {h, n}, MemRegion::Kind::kInput);
  Array Y = b.array("Y", ElemType::kF32, {m, n}, MemRegion::Kind::kOutput);
  // The language's order: the first statement's left-hand dimensions, then its reduced one (the
  // C++ zoo had m, k, h, n: the same space, but for the order of dimensions and of W1's nest).
  Dim M = b.dim("m", m, parallel_tiling()), H = b.dim("h", h, parallel_tiling());
  Dim K = b.dim("k", k, reduction_tiling()), N = b.dim("n", n, parallel_tiling());
  Value x = b.load(X, {M, K}), w1 = b.load(W1, {K, H});
  Value hidden = b.max(b.fma(x, w1, b.reduce(b.constant(0.0), {K})), b.constant(0.0));
  Value w2 = b.load(W2, {H, N});
  b.store(Y, {M, N}, b.fma(hidden, w2, b.reduce(b.constant(0.0), {H})));
  return std::move(b).finish();
}

void mlp2_reference(const Sizes& sizes, HostArgs& args) {
  const int64_t m = sizes.at("m"), k = sizes.at("k"), h = sizes.at("h"), n = sizes.at("n");
  const float* X = args.array("X").as<float>();
  const float* W1 = args.array("W1").as<float>();
  const float* W2 = args.array("W2").as<float>();
  float* Y = args.array("Y").as<float>();
  std::vector<float> hidden(static_cast<size_t>(m * h));
  reference_gemm(m, h, k, {X, k}, {W1, h}, [&](int64_t i, std::span<const double> sums) {
    for (int64_t j = 0; j < h; ++j) hidden[i * h + j] = std::max(static_cast<float>(sums[j]), 0.0f);
  });
  reference_gemm(m, n, h, {hidden.data(), h}, {W2, n}, Y);
}

}  // namespace

void add_mlp(std::vector<backbone::KernelInfo>& kernels) {
  kernels.push_back(
      {"matmul_bias_relu", "", {}, build_matmul_bias_relu, matmul_bias_relu_reference});
  kernels.push_back({"mlp2", "", {}, build_mlp2, mlp2_reference});
}

}  // namespace sculpt::hand_written
