// Matrix multiplications C = A . B (row-major, m x k times k x n), with A or B stored transposed
// and with A's elements strided (the paper's "strided matmul": consecutive elements 32 apart).
#include "backbone/zoo/families.h"
#include "backbone/zoo/reference_gemm.h"

namespace sculpt::backbone::zoo {
namespace {

struct MatmulLayout {
  bool transpose_a = false;  // A stored k x m
  bool transpose_b = false;  // B stored n x k (TC's tmm)
  int64_t a_stride = 1;      // distance between consecutive elements of A
};

Kernel build_matmul(const std::string& name, const MatmulLayout& layout, const Sizes& sizes) {
  Builder b(name);
  Size m = b.size("m", sizes.at("m")), n = b.size("n", sizes.at("n"));
  Size k = b.size("k", sizes.at("k"));
  const int64_t s = layout.a_stride;
  Array A = layout.transpose_a
                ? b.array("A", ElemType::kF32, {k, m}, MemRegion::Kind::kInput, {m.value * s, s})
                : b.array("A", ElemType::kF32, {m, k}, MemRegion::Kind::kInput, {k.value * s, s});
  Array B = layout.transpose_b ? b.array("B", ElemType::kF32, {n, k}, MemRegion::Kind::kInput)
                               : b.array("B", ElemType::kF32, {k, n}, MemRegion::Kind::kInput);
  Array C = b.array("C", ElemType::kF32, {m, n}, MemRegion::Kind::kOutput);
  Dim M = b.dim("m", m, matmul_tiling()), N = b.dim("n", n, matmul_tiling());
  Dim K = b.dim("k", k, reduction_tiling());
  Value a = layout.transpose_a ? b.load(A, {K, M}) : b.load(A, {M, K});
  Value bv = layout.transpose_b ? b.load(B, {N, K}) : b.load(B, {K, N});
  b.store(C, {M, N}, b.fma(a, bv, b.reduce(b.constant(0.0), {K})));
  return std::move(b).finish();
}

void matmul_reference(const MatmulLayout& layout, const Sizes& sizes, HostArgs& args) {
  const int64_t m = sizes.at("m"), n = sizes.at("n"), k = sizes.at("k");
  const float* A = args.array("A").as<float>();
  const float* B = args.array("B").as<float>();
  const int64_t s = layout.a_stride;
  const MatrixView a = layout.transpose_a ? MatrixView{A, s, m * s} : MatrixView{A, k * s, s};
  const MatrixView b = layout.transpose_b ? MatrixView{B, 1, k} : MatrixView{B, n};
  reference_gemm(m, n, k, a, b, args.array("C").as<float>());
}

KernelInfo matmul_info(std::string name, std::string description, MatmulLayout layout,
                       std::vector<SizeSpec> sizes) {
  return {name, std::move(description), std::move(sizes),
          [name, layout](const Sizes& s) { return build_matmul(name, layout, s); },
          [layout](const Sizes& s, HostArgs& args) { matmul_reference(layout, s, args); }};
}

}  // namespace

void add_matmul(std::vector<KernelInfo>& zoo) {
  const std::vector<SizeSpec> square = {{"m", 1024, 16}, {"n", 1024, 12}, {"k", 1024, 8}};
  zoo.push_back(matmul_info("matmul", "C = A . B, A m x k, B k x n, row-major", {}, square));
  zoo.back().paper_sizes = {{"Telamon, matmul 256x256x32", "256x256x32"},
                            {"Telamon, matmul 1024x1024x1024; Diesel SGEMM", "1024x1024x1024"}};
  zoo.push_back(matmul_info("matmul_ta", "C = A^T . B, A stored k x m", {true, false, 1}, square));
  // TC's transposed matmul (tmm) defaults to its first shape: M=128, K=32, N=256.
  zoo.push_back(matmul_info("matmul_tb", "C = A . B^T, B stored n x k (TC's tmm)", {false, true, 1},
                            {{"m", 128, 16}, {"n", 256, 12}, {"k", 32, 8}}));
  zoo.back().paper_sizes = {{"Tensor Comprehensions, tmm (M,K,N) = (128,32,256)", "128x256x32"},
                            {"Tensor Comprehensions, tmm (128,1024,1024)", "128x1024x1024"},
                            {"Tensor Comprehensions, tmm (128,4096,16384)", "128x16384x4096"}};
  zoo.push_back(matmul_info("strided_matmul",
                            "C = A . B with consecutive elements of A 32 elements apart",
                            {false, false, 32}, square));
  zoo.back().paper_sizes = {{"Telamon, strided matmul", "1024x1024x1024"}};
}

}  // namespace sculpt::backbone::zoo
