// axpy: z = alpha * x + y (the paper's bandwidth-bound kernel, n = 2^26), by hand.
#include "tests/zoo/hand_written.h"

namespace sculpt::hand_written {
namespace {

using backbone::Tiling;

Kernel build_axpy(const Sizes& sizes) {
  Builder b("axpy");
  Size n = b.size("n", sizes.at("n"));
  Value alpha = b.scalar("alpha", ElemType::kF32);
  Array X = b.array("x", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array Y = b.array("y", ElemType::kF32, {n}, MemRegion::Kind::kInput);
  Array Z = b.array("z", ElemType::kF32, {n}, MemRegion::Kind::kOutput);
  Dim N = b.dim("n", n, Tiling{{Tiling::range(2, 1024), Tiling::range(2, 4)}});
  Value x = b.load(X, {N});
  Value y = b.load(Y, {N});
  b.store(Z, {N}, b.fma(alpha, x, y));
  return std::move(b).finish();
}

void axpy_reference(const Sizes& sizes, HostArgs& args) {
  const int64_t n = sizes.at("n");
  const double alpha = static_cast<float>(args.scalar("alpha"));
  const float* x = args.array("x").as<float>();
  const float* y = args.array("y").as<float>();
  float* z = args.array("z").as<float>();
  for (int64_t i = 0; i < n; ++i) z[i] = static_cast<float>(alpha * x[i] + y[i]);
}

}  // namespace

void add_axpy(std::vector<backbone::KernelInfo>& kernels) {
  kernels.push_back({"axpy", "", {}, build_axpy, axpy_reference});
}

}  // namespace sculpt::hand_written
