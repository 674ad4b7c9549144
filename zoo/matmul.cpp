// The matmul builder and reference of zoo/matmul.h.
#include "zoo/matmul.h"

#include "backbone/builder.h"
#include "frontend/tc_builder.h"
#include "zoo/reference_gemm.h"

namespace sculpt::zoo {
namespace {

using backbone::Array;
using backbone::Dim;
using backbone::ElemType;
using backbone::MemRegion;
using backbone::Size;
using backbone::Value;

backbone::Kernel build_matmul(const std::string& name, const MatmulLayout& layout,
                              const backbone::Sizes& sizes) {
  backbone::Builder b(name);
  Size m = b.size("m", sizes.at("m")), n = b.size("n", sizes.at("n"));
  Size k = b.size("k", sizes.at("k"));
  const int64_t s = layout.a_stride;
  Array A = layout.transpose_a
                ? b.array("A", ElemType::kF32, {k, m}, MemRegion::Kind::kInput, {m.value * s, s})
                : b.array("A", ElemType::kF32, {m, k}, MemRegion::Kind::kInput, {k.value * s, s});
  Array B = layout.transpose_b ? b.array("B", ElemType::kF32, {n, k}, MemRegion::Kind::kInput)
                               : b.array("B", ElemType::kF32, {k, n}, MemRegion::Kind::kInput);
  Array C = b.array("C", ElemType::kF32, {m, n}, MemRegion::Kind::kOutput);
  Dim M = b.dim("m", m, frontend::parallel_tiling());
  Dim N = b.dim("n", n, frontend::parallel_tiling());
  Dim K = b.dim("k", k, frontend::reduction_tiling());
  Value a = layout.transpose_a ? b.load(A, {K, M}) : b.load(A, {M, K});
  Value bv = layout.transpose_b ? b.load(B, {N, K}) : b.load(B, {K, N});
  b.store(C, {M, N}, b.fma(a, bv, b.reduce(b.constant(0.0), {K})));
  return std::move(b).finish();
}

void matmul_reference(const MatmulLayout& layout, const backbone::Sizes& sizes,
                      backbone::HostArgs& args) {
  const int64_t m = sizes.at("m"), n = sizes.at("n"), k = sizes.at("k");
  const float* A = args.array("A").as<float>();
  const float* B = args.array("B").as<float>();
  const int64_t s = layout.a_stride;
  const MatrixView a = layout.transpose_a ? MatrixView{A, s, m * s} : MatrixView{A, k * s, s};
  const MatrixView b = layout.transpose_b ? MatrixView{B, 1, k} : MatrixView{B, n};
  reference_gemm(m, n, k, a, b, args.array("C").as<float>());
}

}  // namespace

backbone::KernelInfo matmul_kernel(std::string name, std::string description, MatmulLayout layout,
                                   std::vector<backbone::SizeSpec> sizes) {
  return {name, std::move(description), std::move(sizes),
          [name, layout](const backbone::Sizes& s) { return build_matmul(name, layout, s); },
          [layout](const backbone::Sizes& s, backbone::HostArgs& args) {
            matmul_reference(layout, s, args);
          }};
}

}  // namespace sculpt::zoo
