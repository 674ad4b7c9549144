#include <algorithm>
#include <memory>
#include <sstream>

#include "frontend/definition.h"
#include "support/check.h"
#include "zoo/matmul.h"
#include "zoo/zoo.h"

namespace sculpt::zoo {
namespace {

using backbone::KernelInfo;
using backbone::SizeSpec;
using backbone::Tiling;

/// What the registry adds to a definition of zoo.tc: what the language does not say.
struct Entry {
  std::string name;
  std::string description;
  std::vector<SizeSpec> sizes;  // the definition's sizes, in the order of the `--size` string
  std::vector<backbone::PaperSize> paper_sizes = {};
  frontend::BuildOptions options = {};
};

const std::vector<SizeSpec> kSquare = {{"m", 1024, 16}, {"n", 1024, 12}, {"k", 1024, 8}};

/// Batches are not strip-mined: a batch element is a whole problem.
frontend::BuildOptions untiled_batch() { return {{{"b", Tiling{}}}}; }

KernelInfo from_definition(const std::vector<frontend::Definition>& defs, Entry entry) {
  auto def = std::find_if(defs.begin(), defs.end(),
                          [&](const frontend::Definition& d) { return d.name == entry.name; });
  SCULPT_CHECK(def != defs.end()) << "zoo.tc does not define " << entry.name;
  SCULPT_CHECK(entry.sizes.size() == def->sizes.size()) << entry.name << ": sizes differ";
  for (const SizeSpec& spec : entry.sizes) {
    SCULPT_CHECK(std::count(def->sizes.begin(), def->sizes.end(), spec.name) == 1)
        << entry.name << " has no size " << spec.name;
  }
  KernelInfo info = frontend::kernel_info(std::make_shared<const frontend::Definition>(*def),
                                          std::move(entry.sizes), std::move(entry.options));
  info.description = std::move(entry.description);
  info.paper_sizes = std::move(entry.paper_sizes);
  return info;
}

std::vector<KernelInfo> make_zoo() {
  frontend::Diagnostics diags;
  const std::vector<frontend::Definition> defs =
      frontend::load_definitions(zoo_definitions(), "zoo.tc", diags);
  std::ostringstream errors;
  diags.print(errors);
  SCULPT_CHECK(!diags.has_errors()) << errors.str();
  std::vector<KernelInfo> zoo;
  auto define = [&](Entry entry) { zoo.push_back(from_definition(defs, std::move(entry))); };
  define({"axpy",
          "z = alpha * x + y over vectors of n floats",
          {{"n", int64_t{1} << 26, 96}},
          {{"Telamon, axpy n = 2^26", "67108864"}},
          // A bandwidth-bound vector: blocks of up to 1024 threads, each with a few elements.
          {{{"n", Tiling{{Tiling::range(2, 1024), Tiling::range(2, 4)}}}}}});
  define({"matmul",
          "C = A . B, A m x k, B k x n, row-major",
          kSquare,
          {{"Telamon, matmul 256x256x32", "256x256x32"},
           {"Telamon, matmul 1024x1024x1024; Diesel SGEMM", "1024x1024x1024"}}});
  define({"matmul_ta", "C = A^T . B, A stored k x m", kSquare});
  // TC's transposed matmul (tmm) defaults to its first shape: M=128, K=32, N=256.
  define({"matmul_tb",
          "C = A . B^T, B stored n x k (TC's tmm)",
          {{"m", 128, 16}, {"n", 256, 12}, {"k", 32, 8}},
          {{"Tensor Comprehensions, tmm (M,K,N) = (128,32,256)", "128x256x32"},
           {"Tensor Comprehensions, tmm (128,1024,1024)", "128x1024x1024"},
           {"Tensor Comprehensions, tmm (128,4096,16384)", "128x16384x4096"}}});
  // The language has no strided layouts.
  zoo.push_back(matmul_kernel("strided_matmul",
                              "C = A . B with consecutive elements of A 32 elements apart",
                              {false, false, 32}, kSquare));
  zoo.back().paper_sizes = {{"Telamon, strided matmul", "1024x1024x1024"}};
  define({"batched_matmul",
          "C[b] = A[b] . B[b] for each batch element b",
          {{"b", 32, 3}, {"m", 256, 8}, {"n", 256, 12}, {"k", 256, 5}},
          {},
          untiled_batch()});
  define({"tbmm",
          "Z(b,n,k) = sum_m X(b,n,m) * Y(b,k,m), TC's transposed batched matmul at the "
          "Factorization Machines shape",
          {{"b", 500, 3}, {"n", 26, 6}, {"m", 72, 5}, {"k", 26, 4}},
          {{"Tensor Comprehensions, tbmm (B,N,M,K) = (500,26,72,26)", "500x26x72x26"}},
          untiled_batch()});
  define({"mv", "y = A . x, A m x n", {{"m", 4096, 16}, {"n", 4096, 7}}});
  define({"gesummv",
          "y = alpha * A . x + beta * B . x, A and B n x n (PolyBench)",
          {{"n", 4096, 12}},
          {},
          // j is on the left-hand side of x's broadcast, but only reduced over by the products.
          {{{"j", frontend::reduction_tiling()}}}});
  define({"matmul_bias_relu",
          "C = max(A . B + bias, 0), bias over the columns",
          {{"m", 1024, 16}, {"n", 1024, 12}, {"k", 1024, 8}}});
  define({"mlp2",
          "Y = max(X . W1, 0) . W2: two chained matmuls with a ReLU between",
          {{"m", 128, 8}, {"k", 512, 6}, {"h", 512, 12}, {"n", 256, 4}}});
  return zoo;
}

}  // namespace

std::span<const KernelInfo> kernel_zoo() {
  static const std::vector<KernelInfo> kZoo = make_zoo();
  return kZoo;
}

const KernelInfo* find_kernel(std::string_view name) {
  for (const KernelInfo& info : kernel_zoo()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

ZooLookup lookup_kernel(std::string_view name, std::string_view size) {
  ZooLookup lookup;
  lookup.info = find_kernel(name);
  if (!lookup.info) {
    std::string known;
    for (const KernelInfo& info : kernel_zoo()) known += " " + info.name;
    lookup.error = "unknown kernel '" + std::string(name) + "' (known:" + known + ")";
    return lookup;
  }
  backbone::SizeParse parse = backbone::parse_sizes(size, lookup.info->sizes);
  lookup.sizes = std::move(parse.sizes);
  lookup.error = std::move(parse.error);
  return lookup;
}

}  // namespace sculpt::zoo
