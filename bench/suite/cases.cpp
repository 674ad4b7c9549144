// The suite's cases and their peers' C.
#include "bench/suite/cases.h"

#include <fmt/format.h>

#include <random>

#include "frontend/definition.h"
#include "search/session/problem.h"
#include "support/check.h"
#include "zoo/zoo.h"

namespace sculpt::bench {
namespace {

constexpr const char* kDefinitions =
    R"tc(# The suite's kernels that the zoo lacks (sculpt's frontend/LANGUAGE.md).

# A convolution without padding, stride 1, in NCHW with weights FCHW.
def conv2d(float(N,C,H,W) I, float(F,C,KH,KW) Wt) -> (O) {
  O(n,f,y,x) +=! I(n,c,y+kh,x+kw) * Wt(f,c,kh,kw)
}

# Softmax along each row, stabilised by the row's maximum.
def softmax(float(R,C) X) -> (Y) {
  mx(r) max=! X(r,c)
  e(r,c) = exp(X(r,c) - mx(r))
  s(r) +=! e(r,c)
  Y(r,c) = e(r,c) / s(r)
}

# Layer normalisation of each row, without scale and shift.
def layernorm(float(R,C) X) -> (Y) {
  mean(r) +=! X(r,c) / C
  d(r,c) = X(r,c) - mean(r)
  var(r) +=! d(r,c) * d(r,c) / C
  Y(r,c) = d(r,c) / sqrt(var(r) + 1e-5)
}
)tc";

// The peers, by kernel. Their bodies read the kernel's parameters by name (peer_code.h).

Peer openblas_sgemm() {
  return {"openblas_sgemm", Library::openblas,
          "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, k, B, n, "
          "0.0f, C, n);"};
}

/// oneDNN's matmul primitive on operands of `ndims` dimensions, made on the first call.
Peer onednn_matmul(std::string name, std::string make, std::string run) {
  return {std::move(name), Library::onednn,
          fmt::format("  static Matmul mm;\n  static int made = 0;\n  if (!made) {{\n{}\n"
                      "    made = 1;\n  }}\n{}",
                      make, run)};
}

std::vector<Peer> matmul_peers() {
  return {openblas_sgemm(),
          onednn_matmul("onednn_matmul",
                        "    const dnnl_dim_t a[2] = {m, k}, b[2] = {k, n}, c[2] = {m, n};\n"
                        "    mm = make_matmul(2, a, dnnl_ab, b, dnnl_ab, c, 0, 0);",
                        "  run_matmul(&mm, A, B, NULL, C);")};
}

std::vector<Peer> batched_matmul_peers() {
  return {{"openblas_sgemm_loop", Library::openblas,
           "  for (int32_t i = 0; i < b; ++i)\n"
           "    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,\n"
           "                A + (int64_t)i * m * k, k, B + (int64_t)i * k * n, n, 0.0f,\n"
           "                C + (int64_t)i * m * n, n);"},
          onednn_matmul("onednn_matmul",
                        "    const dnnl_dim_t a[3] = {b, m, k}, w[3] = {b, k, n}, c[3] = {b, m, "
                        "n};\n    mm = make_matmul(3, a, dnnl_abc, w, dnnl_abc, c, 0, 0);",
                        "  run_matmul(&mm, A, B, NULL, C);")};
}

// Z(b,n,k) = sum_m X(b,n,m) Y(b,k,m): Y is each batch's right operand transposed.
std::vector<Peer> tbmm_peers() {
  return {{"openblas_sgemm_loop", Library::openblas,
           "  for (int32_t i = 0; i < b; ++i)\n"
           "    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, k, m, 1.0f,\n"
           "                X + (int64_t)i * n * m, m, Y + (int64_t)i * k * m, m, 0.0f,\n"
           "                Z + (int64_t)i * n * k, k);"},
          onednn_matmul("onednn_matmul",
                        "    const dnnl_dim_t x[3] = {b, n, m}, y[3] = {b, m, k}, z[3] = {b, n, "
                        "k};\n    mm = make_matmul(3, x, dnnl_abc, y, dnnl_acb, z, 0, 0);",
                        "  run_matmul(&mm, X, Y, NULL, Z);")};
}

std::vector<Peer> matmul_bias_relu_peers() {
  return {{"openblas_sgemm_then_loop", Library::openblas,
           "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, k, B, n, "
           "0.0f, C, n);\n"
           "#pragma omp parallel for\n"
           "  for (int64_t i = 0; i < m; ++i)\n"
           "    for (int64_t j = 0; j < n; ++j) C[i * n + j] = fmaxf(C[i * n + j] + bias[j], "
           "0.0f);"},
          onednn_matmul("onednn_matmul_bias_relu",
                        "    const dnnl_dim_t a[2] = {m, k}, b[2] = {k, n}, c[2] = {m, n};\n"
                        "    mm = make_matmul(2, a, dnnl_ab, b, dnnl_ab, c, 1, 1);",
                        "  run_matmul(&mm, A, B, bias, C);")};
}

// Y = max(X . W1, 0) . W2, the hidden layer in a buffer of the peer's.
std::vector<Peer> mlp2_peers() {
  return {{"openblas_sgemm_twice", Library::openblas,
           "  static float* hidden = NULL;\n"
           "  if (hidden == NULL) hidden = malloc(sizeof(float) * (size_t)m * (size_t)h);\n"
           "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, h, k, 1.0f, X, k, W1, h, "
           "0.0f, hidden, h);\n"
           "#pragma omp parallel for\n"
           "  for (int64_t i = 0; i < (int64_t)m * h; ++i) hidden[i] = fmaxf(hidden[i], 0.0f);\n"
           "  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, h, 1.0f, hidden, h, W2, "
           "n, 0.0f, Y, n);"},
          {"onednn_matmul_twice", Library::onednn,
           "  static Matmul first, second;\n"
           "  static float* hidden = NULL;\n"
           "  if (hidden == NULL) {\n"
           "    const dnnl_dim_t x[2] = {m, k}, w1[2] = {k, h}, t[2] = {m, h};\n"
           "    const dnnl_dim_t w2[2] = {h, n}, y[2] = {m, n};\n"
           "    first = make_matmul(2, x, dnnl_ab, w1, dnnl_ab, t, 0, 1);\n"
           "    second = make_matmul(2, t, dnnl_ab, w2, dnnl_ab, y, 0, 0);\n"
           "    hidden = malloc(sizeof(float) * (size_t)m * (size_t)h);\n"
           "  }\n"
           "  run_matmul(&first, X, W1, NULL, hidden);\n"
           "  run_matmul(&second, hidden, W2, NULL, Y);"}};
}

std::vector<Peer> mv_peers() {
  return {{"openblas_sgemv", Library::openblas,
           "  cblas_sgemv(CblasRowMajor, CblasNoTrans, m, n, 1.0f, A, n, x, 1, 0.0f, y, 1);"}};
}

std::vector<Peer> gesummv_peers() {
  return {{"openblas_sgemv_twice", Library::openblas,
           "  cblas_sgemv(CblasRowMajor, CblasNoTrans, n, n, alpha, A, n, x, 1, 0.0f, y, 1);\n"
           "  cblas_sgemv(CblasRowMajor, CblasNoTrans, n, n, beta, B, n, x, 1, 1.0f, y, 1);"}};
}

std::vector<Peer> axpy_peers() {
  return {{"openmp_loop", Library::openmp,
           "#pragma omp parallel for simd schedule(static)\n"
           "  for (int64_t i = 0; i < n; ++i) z[i] = alpha * x[i] + y[i];"},
          {"openblas_scopy_saxpy", Library::openblas,
           "  cblas_scopy(n, y, 1, z, 1);\n  cblas_saxpy(n, alpha, x, 1, z, 1);"}};
}

// oneDNN picks the convolution's layouts ("any"); the caller's plain NCHW arrays are reordered
// to and from them at each call.
std::vector<Peer> conv2d_peers() {
  return {{"onednn_convolution", Library::onednn,
           "  static dnnl_primitive_t conv = NULL;\n"
           "  static Operand src, weights, dst;\n"
           "  if (conv == NULL) {\n"
           "    const dnnl_dim_t s[4] = {N, C, H, W}, w[4] = {F, C, KH, KW};\n"
           "    const dnnl_dim_t d[4] = {N, F, y_size, x_size};\n"
           "    const dnnl_dim_t strides[2] = {1, 1}, padding[2] = {0, 0};\n"
           "    open_engine();\n"
           "    const dnnl_memory_desc_t s_md = plain_desc(4, s, dnnl_nchw);\n"
           "    const dnnl_memory_desc_t w_md = plain_desc(4, w, dnnl_oihw);\n"
           "    const dnnl_memory_desc_t d_md = plain_desc(4, d, dnnl_nchw);\n"
           "    const dnnl_memory_desc_t s_any = plain_desc(4, s, dnnl_format_tag_any);\n"
           "    const dnnl_memory_desc_t w_any = plain_desc(4, w, dnnl_format_tag_any);\n"
           "    const dnnl_memory_desc_t d_any = plain_desc(4, d, dnnl_format_tag_any);\n"
           "    dnnl_convolution_desc_t desc;\n"
           "    DNNL(dnnl_convolution_forward_desc_init(&desc, dnnl_forward_inference,\n"
           "        dnnl_convolution_direct, &s_any, &w_any, NULL, &d_any, strides, padding,\n"
           "        padding));\n"
           "    dnnl_primitive_desc_t pd;\n"
           "    conv = make_primitive(&desc, NULL, &pd);\n"
           "    src = make_operand(&s_md, dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0), "
           "0);\n"
           "    weights = make_operand(&w_md,\n"
           "        dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), 0);\n"
           "    dst = make_operand(&d_md, dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0), "
           "1);\n"
           "  }\n"
           "  bind_input(&src, I);\n"
           "  bind_input(&weights, Wt);\n"
           "  bind_output(&dst, O);\n"
           "  dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, src.inner}, {DNNL_ARG_WEIGHTS, "
           "weights.inner},\n"
           "                             {DNNL_ARG_DST, dst.inner}};\n"
           "  execute(conv, 3, args);\n"
           "  finish_output(&dst);"}};
}

std::vector<Peer> softmax_peers() {
  return {{"onednn_softmax", Library::onednn,
           "  static dnnl_primitive_t softmax = NULL;\n"
           "  static Operand src, dst;\n"
           "  if (softmax == NULL) {\n"
           "    const dnnl_dim_t dims[2] = {R, C};\n"
           "    open_engine();\n"
           "    const dnnl_memory_desc_t md = plain_desc(2, dims, dnnl_ab);\n"
           "    dnnl_softmax_v2_desc_t desc;\n"
           "    DNNL(dnnl_softmax_v2_forward_desc_init(&desc, dnnl_forward_inference,\n"
           "        dnnl_softmax_accurate, &md, &md, 1));\n"
           "    dnnl_primitive_desc_t pd;\n"
           "    softmax = make_primitive(&desc, NULL, &pd);\n"
           "    src = make_operand(&md, &md, 0);\n"
           "    dst = make_operand(&md, &md, 1);\n"
           "  }\n"
           "  bind_input(&src, X);\n"
           "  bind_output(&dst, Y);\n"
           "  dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, src.inner}, {DNNL_ARG_DST, dst.inner}};\n"
           "  execute(softmax, 2, args);\n"
           "  finish_output(&dst);"},
          {"openmp_loop", Library::openmp,
           "#pragma omp parallel for schedule(static)\n"
           "  for (int64_t r = 0; r < R; ++r) {\n"
           "    const float* x = X + r * C;\n"
           "    float* y = Y + r * C;\n"
           "    float mx = -INFINITY, s = 0.0f;\n"
           "    for (int64_t c = 0; c < C; ++c) mx = fmaxf(mx, x[c]);\n"
           "    for (int64_t c = 0; c < C; ++c) s += y[c] = expf(x[c] - mx);\n"
           "    for (int64_t c = 0; c < C; ++c) y[c] /= s;\n"
           "  }"}};
}

std::vector<Peer> layernorm_peers() {
  return {{"onednn_layer_normalization", Library::onednn,
           "  static dnnl_primitive_t norm = NULL;\n"
           "  static Operand src, dst;\n"
           "  static dnnl_memory_t mean, variance;\n"
           "  if (norm == NULL) {\n"
           "    const dnnl_dim_t dims[2] = {R, C};\n"
           "    open_engine();\n"
           "    const dnnl_memory_desc_t md = plain_desc(2, dims, dnnl_ab);\n"
           "    dnnl_layer_normalization_desc_t desc;\n"
           "    DNNL(dnnl_layer_normalization_forward_desc_init(&desc, dnnl_forward_inference, "
           "&md,\n"
           "        NULL, 1e-5f, 0));\n"
           "    dnnl_primitive_desc_t pd;\n"
           "    norm = make_primitive(&desc, NULL, &pd);\n"
           "    src = make_operand(&md, &md, 0);\n"
           "    dst = make_operand(&md, &md, 1);\n"
           "    const dnnl_memory_desc_t* stats = dnnl_primitive_desc_query_md(pd,\n"
           "        dnnl_query_exec_arg_md, DNNL_ARG_MEAN);\n"
           "    mean = make_memory(stats, DNNL_MEMORY_ALLOCATE);\n"
           "    variance = make_memory(stats, DNNL_MEMORY_ALLOCATE);\n"
           "  }\n"
           "  bind_input(&src, X);\n"
           "  bind_output(&dst, Y);\n"
           "  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, src.inner}, {DNNL_ARG_DST, dst.inner},\n"
           "                             {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, variance}};\n"
           "  execute(norm, 4, args);\n"
           "  finish_output(&dst);"},
          {"openmp_loop", Library::openmp,
           "#pragma omp parallel for schedule(static)\n"
           "  for (int64_t r = 0; r < R; ++r) {\n"
           "    const float* x = X + r * C;\n"
           "    float* y = Y + r * C;\n"
           "    float mean = 0.0f, var = 0.0f;\n"
           "    for (int64_t c = 0; c < C; ++c) mean += x[c];\n"
           "    mean /= C;\n"
           "    for (int64_t c = 0; c < C; ++c) var += (x[c] - mean) * (x[c] - mean);\n"
           "    const float scale = 1.0f / sqrtf(var / C + 1e-5f);\n"
           "    for (int64_t c = 0; c < C; ++c) y[c] = (x[c] - mean) * scale;\n"
           "  }"}};
}

Case zoo_case(const std::string& kernel, const std::string& sizes, const std::string& test_sizes,
              std::vector<Peer> peers) {
  return {kernel + " " + sizes, kernel, sizes, test_sizes, "", std::move(peers)};
}

Case defined_case(const std::string& kernel, const std::string& sizes,
                  const std::string& test_sizes, std::vector<Peer> peers) {
  return {kernel + " " + sizes, kernel, sizes, test_sizes, suite_definitions(), std::move(peers)};
}

}  // namespace

const std::string& suite_definitions() {
  static const std::string text = kDefinitions;
  return text;
}

std::vector<Case> suite_cases() {
  return {
      zoo_case("matmul", "1024x1024x1024", "33x40x17", matmul_peers()),
      zoo_case("matmul", "512x2048x128", "16x64x8", matmul_peers()),
      zoo_case("matmul", "96x1000x512", "12x20x16", matmul_peers()),
      zoo_case("matmul_bias_relu", "512x512x512", "24x40x16", matmul_bias_relu_peers()),
      zoo_case("mlp2", "128x512x512x256", "8x16x24x12", mlp2_peers()),
      zoo_case("batched_matmul", "32x256x256x256", "3x8x12x5", batched_matmul_peers()),
      zoo_case("tbmm", "500x26x72x26", "7x5x9x6", tbmm_peers()),
      zoo_case("mv", "4096x4096", "40x24", mv_peers()),
      zoo_case("gesummv", "4096", "40", gesummv_peers()),
      zoo_case("axpy", "16777216", "1000", axpy_peers()),
      defined_case("conv2d", "N=1,C=64,H=58,W=58,F=64,KH=3,KW=3", "N=2,C=5,H=9,W=8,F=6,KH=3,KW=3",
                   conv2d_peers()),
      defined_case("conv2d", "N=1,C=128,H=30,W=30,F=128,KH=3,KW=3",
                   "N=1,C=16,H=6,W=7,F=8,KH=3,KW=2", conv2d_peers()),
      defined_case("conv2d", "N=1,C=256,H=56,W=56,F=64,KH=1,KW=1",
                   "N=1,C=32,H=5,W=6,F=16,KH=1,KW=1", conv2d_peers()),
      defined_case("softmax", "R=4096,C=1024", "R=7,C=33", softmax_peers()),
      defined_case("layernorm", "R=4096,C=1024", "R=7,C=33", layernorm_peers()),
  };
}

std::shared_ptr<const device::Problem> case_problem(const Case& c, const std::string& sizes,
                                                    std::uint64_t seed) {
  if (c.definition.empty()) {
    const zoo::ZooLookup lookup = zoo::lookup_kernel(c.kernel, sizes);
    SCULPT_CHECK(lookup.ok()) << lookup.error;
    const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
    return search::make_problem(*lookup.info, lookup.sizes, kernel, seed);
  }
  frontend::DefinitionLookup lookup =
      frontend::lookup_definition(c.definition, "suite", c.kernel, sizes);
  SCULPT_CHECK(lookup.ok() && lookup.info) << lookup.error;
  // The problem's reference calls the kernel's: the problem holds it.
  struct Held {
    backbone::KernelInfo info;
    std::shared_ptr<const device::Problem> problem;
  };
  auto held = std::make_shared<Held>(Held{std::move(*lookup.info), nullptr});
  const backbone::Kernel kernel = held->info.build(lookup.sizes);
  held->problem = search::make_problem(held->info, lookup.sizes, kernel, seed);
  return {held, held->problem.get()};
}

std::vector<Case> random_matmul_cases(std::uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dimension(64, 1536);
  std::vector<Case> cases;
  for (int i = 0; i < count; ++i) {
    const int m = dimension(rng), n = dimension(rng), k = dimension(rng);
    cases.push_back(
        zoo_case("matmul", fmt::format("{}x{}x{}", m, n, k), "33x40x17", {openblas_sgemm()}));
  }
  return cases;
}

}  // namespace sculpt::bench
