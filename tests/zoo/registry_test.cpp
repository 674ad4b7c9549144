// The zoo's registry: names, sizes and lookups, each kernel's shape, and its reference against
// the interpreter and against values worked out by hand.
#include "zoo/zoo.h"

#include <gtest/gtest.h>

#include "backbone/reference.h"
#include "tests/zoo/zoo_names.h"

namespace sculpt::backbone {
namespace {

using zoo::find_kernel;
using zoo::kernel_zoo;
using zoo::lookup_kernel;
using zoo::zoo_names;
using zoo::ZooLookup;

const KernelInfo& zoo_kernel(std::string_view name) {
  const KernelInfo* info = find_kernel(name);
  EXPECT_NE(info, nullptr) << name;
  return *info;
}

int count_ops(const Kernel& kernel, Operator op) {
  int count = 0;
  for (const Instruction* inst : kernel.instructions()) count += inst->op == op;
  return count;
}

/// Interprets `kernel` (built by `info` at `sizes`, maybe lowered since) on inputs drawn from
/// `seed` and expects its outputs to match those of the kernel's reference, which it returns.
HostArgs expect_interpreter_matches_reference(const KernelInfo& info, const Sizes& sizes,
                                              const Kernel& kernel, std::uint64_t seed) {
  HostArgs expected = make_host_args(kernel, seed);
  HostArgs actual = expected;
  info.reference(sizes, expected);
  interpret(kernel, actual);
  const std::optional<Mismatch> mismatch =
      compare_outputs(kernel, expected, actual, default_tolerance(kernel));
  EXPECT_FALSE(mismatch) << mismatch->to_string();
  return expected;
}

// Every zoo kernel: the interpreter of its backbone agrees with its reference on
// seeded random inputs at the test sizes.
class ZooKernel : public testing::TestWithParam<std::string> {};

TEST_P(ZooKernel, InterpreterMatchesReference) {
  const KernelInfo& info = zoo_kernel(GetParam());
  const Sizes sizes = test_sizes(info.sizes);
  const Kernel kernel = info.build(sizes);
  const HostArgs expected = expect_interpreter_matches_reference(info, sizes, kernel, 7);
  // The reference wrote something: outputs are not all zero.
  for (const MemRegion* mem : kernel.mem_regions()) {
    if (mem->kind != MemRegion::Kind::kOutput) continue;
    const Buffer& out = expected.array(mem->name);
    bool any = false;
    for (int64_t i = 0; i < out.size(); ++i) any |= out.get(i) != 0;
    EXPECT_TRUE(any) << mem->name;
  }
}

TEST_P(ZooKernel, BuildsAtDefaultSizesWithConsistentIds) {
  const KernelInfo& info = zoo_kernel(GetParam());
  const Kernel kernel = info.build(default_sizes(info.sizes));
  for (const SizeSpec& spec : info.sizes) {
    EXPECT_EQ(kernel.size_value(spec.name), spec.default_value) << spec.name;
  }
  for (uint32_t i = 0; i < kernel.inst_capacity(); ++i) {
    EXPECT_EQ(kernel.inst(InstId(i)).id.value, i);
    EXPECT_EQ(kernel.statement(kernel.inst(InstId(i)).stmt_id()).as_inst(),
              &kernel.inst(InstId(i)));
  }
  // Statement ids are dense, the present statements first.
  const uint32_t present = static_cast<uint32_t>(kernel.statements().size());
  for (uint32_t s = 0; s < kernel.stmt_capacity(); ++s) {
    const Statement& stmt = kernel.statement(StmtId(s));
    EXPECT_EQ(stmt.stmt_id().value, s);
    const bool added =
        stmt.as_inst() ? kernel.added(*stmt.as_inst()) : kernel.added(*stmt.as_dim());
    EXPECT_EQ(added, s < present) << s;
  }
  for (uint32_t i = 0; i < kernel.dim_capacity(); ++i) {
    const Dimension& dim = kernel.dim(DimId(i));
    EXPECT_EQ(dim.id.value, i);
    // Static dims offer sizes dividing their logical size; dynamic ones none.
    const int64_t size = kernel.logical_dim(dim.logical).size;
    EXPECT_EQ(dim.is_static(), !dim.possible_sizes.empty());
    for (int64_t candidate : dim.possible_sizes) EXPECT_EQ(size % candidate, 0);
  }
  for (const Communication& comm : kernel.comms()) {
    if (comm.kind != Communication::Kind::kValue) continue;
    EXPECT_FALSE(kernel.added(kernel.inst(comm.store)));
    EXPECT_FALSE(kernel.added(kernel.mem(comm.temp)));
  }
}

TEST_P(ZooKernel, LoweringEveryCommunicationKeepsTheSemantics) {
  const KernelInfo& info = zoo_kernel(GetParam());
  const Sizes sizes = test_sizes(info.sizes);
  Kernel kernel = info.build(sizes);
  size_t lowered = 0;
  for (const DimMapping* mapping : kernel.dim_mappings()) {
    if (kernel.comm(mapping->comm).kind != Communication::Kind::kValue) continue;
    lowered += kernel.lower_communication(mapping->id) ? 1 : 0;
  }
  EXPECT_EQ(kernel.instructions().size(), kernel.inst_capacity());
  EXPECT_GT(lowered, 0u);
  expect_interpreter_matches_reference(info, sizes, kernel, 11);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooKernel, testing::ValuesIn(zoo_names()),
                         [](const auto& info) { return info.param; });

TEST(Zoo, ListsThePapersKernels) {
  for (const char* name : {"axpy", "matmul", "matmul_ta", "matmul_tb", "strided_matmul", "mv",
                           "gesummv", "batched_matmul", "matmul_bias_relu", "mlp2", "tbmm"}) {
    EXPECT_NE(find_kernel(name), nullptr) << name;
  }
  EXPECT_EQ(find_kernel("nope"), nullptr);
  const KernelInfo& tbmm = zoo_kernel("tbmm");
  EXPECT_EQ(format_sizes(default_sizes(tbmm.sizes)), "500x26x72x26");
  EXPECT_EQ(format_sizes(default_sizes(zoo_kernel("axpy").sizes)), "67108864");
}

TEST(Zoo, LookupByNameAndSize) {
  const ZooLookup found = lookup_kernel("mv", "64x32");
  ASSERT_TRUE(found.ok()) << found.error;
  EXPECT_EQ(found.info->name, "mv");
  EXPECT_EQ(found.sizes.at("n"), 32);
  EXPECT_EQ(lookup_kernel("gesummv", "").sizes.at("n"), 4096);
  const ZooLookup unknown = lookup_kernel("gemm", "64");
  EXPECT_EQ(unknown.info, nullptr);
  EXPECT_EQ(unknown.error.rfind("unknown kernel 'gemm' (known: axpy matmul ", 0), 0u);
  EXPECT_EQ(lookup_kernel("mv", "64").error.rfind("size '64' has 1 field, the kernel takes 2", 0),
            0u);
}

TEST(Zoo, PaperSizesParse) {
  int count = 0;
  for (const KernelInfo& info : kernel_zoo()) {
    for (const PaperSize& paper : info.paper_sizes) {
      const SizeParse parse = parse_sizes(paper.size, info.sizes);
      EXPECT_TRUE(parse.ok()) << info.name << " " << paper.source << ": " << parse.error;
      ++count;
    }
  }
  EXPECT_GE(count, 8);
  const SizeParse tmm =
      parse_sizes(zoo_kernel("matmul_tb").paper_sizes[2].size, zoo_kernel("matmul_tb").sizes);
  EXPECT_EQ(tmm.sizes.at("n"), 16384);
  EXPECT_EQ(tmm.sizes.at("k"), 4096);
}

// Shapes: instruction counts and nests of each family.
TEST(Zoo, MatmulShape) {
  const KernelInfo& info = zoo_kernel("matmul");
  const Kernel kernel = info.build(default_sizes(info.sizes));
  EXPECT_EQ(kernel.instructions().size(), 5u);
  EXPECT_EQ(count_ops(kernel, Operator::kFma), 1);
  const LogicalDim& m = *kernel.logical_dims()[0];
  // [2, 32] and [2, 8] keep the powers of two dividing 1024, plus 1; k has one level.
  EXPECT_EQ(m.tile_sizes[0], (std::vector<int64_t>{1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(m.tile_sizes[1], (std::vector<int64_t>{1, 2, 4, 8}));
  const LogicalDim& k = *kernel.logical_dims()[2];
  EXPECT_EQ(k.tile_sizes, (std::vector<std::vector<int64_t>>{{1, 2, 4, 8, 16, 32}}));
  EXPECT_EQ(kernel.mem(MemId(0)).num_elements(), 1024 * 1024);
}

TEST(Zoo, StridedMatmulSpacesAsElements) {
  const KernelInfo& info = zoo_kernel("strided_matmul");
  const Kernel kernel = info.build(test_sizes(info.sizes));  // m=16, k=8
  const MemRegion& A = kernel.mem(MemId(0));
  EXPECT_EQ(A.strides, (std::vector<int64_t>{8 * 32, 32}));
  EXPECT_EQ(A.num_elements(), (16 * 8 - 1) * 32 + 1);
  const Access& load_a = *kernel.instructions()[0]->access;
  EXPECT_EQ(load_a.index.terms[1].coeff, 32);
}

TEST(Zoo, FamiliesShapes) {
  auto build = [](std::string_view name) {
    const KernelInfo& info = zoo_kernel(name);
    return info.build(test_sizes(info.sizes));
  };
  const Kernel axpy = build("axpy");
  EXPECT_EQ(axpy.instructions().size(), 4u);  // 2 loads, fma, store
  EXPECT_EQ(axpy.logical_dims()[0]->tile_sizes.size(), 2u);
  const Kernel gesummv = build("gesummv");
  EXPECT_EQ(count_ops(gesummv, Operator::kFma), 3);
  EXPECT_EQ(count_ops(gesummv, Operator::kLoad), 3);
  const Kernel bias = build("matmul_bias_relu");
  EXPECT_EQ(count_ops(bias, Operator::kMax), 1);
  EXPECT_EQ(count_ops(bias, Operator::kAdd), 1);
  const Kernel mlp = build("mlp2");
  EXPECT_EQ(count_ops(mlp, Operator::kFma), 2);
  EXPECT_EQ(count_ops(mlp, Operator::kMov), 2);  // the two reduction inits
  const Kernel tbmm = build("tbmm");
  EXPECT_EQ(tbmm.instructions()[3]->loops.size(), 4u);  // fma in (b, n, k, m)
  EXPECT_EQ(tbmm.logical_dim(tbmm.loop(tbmm.instructions()[3]->loops[3]).logical).name, "m");
}

// A reference computes in arrays it views, as devices have it do in their own arrays: the
// results land there, and copies of a view share its elements.
TEST(ZooReference, ComputesInViewedArrays) {
  const KernelInfo& info = zoo_kernel("axpy");
  Sizes sizes;
  sizes.set("n", 2);
  std::vector<float> x = {1, -3}, y = {0.5, 1}, z = {0, 0};
  auto bytes = [](std::vector<float>& v) { return reinterpret_cast<std::byte*>(v.data()); };
  HostArgs args;
  args.scalars["alpha"] = 2;
  args.arrays["x"] = Buffer::view(ElemType::kF32, 2, bytes(x));
  args.arrays["y"] = Buffer::view(ElemType::kF32, 2, bytes(y));
  args.arrays["z"] = Buffer::view(ElemType::kF32, 2, bytes(z));
  EXPECT_EQ(args.array("z").num_bytes(), 8);
  info.reference(sizes, args);
  EXPECT_EQ(z, (std::vector<float>{2.5, -5}));
  Buffer copy = args.array("z");
  copy.set(0, 7);
  EXPECT_EQ(z[0], 7);
  // An owned buffer's copy owns its own elements.
  Buffer owned(ElemType::kF32, 2);
  Buffer owned_copy = owned;
  owned_copy.set(0, 7);
  EXPECT_EQ(owned.get(0), 0);
}

// Hand values: references on inputs small enough to compute by hand.
TEST(ZooReference, MatmulByHand) {
  const KernelInfo& info = zoo_kernel("matmul");
  Sizes sizes;
  sizes.set("m", 2), sizes.set("n", 2), sizes.set("k", 2);
  HostArgs args = make_host_args(info.build(sizes), 0);
  const float a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
  for (int i = 0; i < 4; ++i) args.array("A").set(i, a[i]), args.array("B").set(i, b[i]);
  info.reference(sizes, args);
  const float* c = args.array("C").as<float>();
  EXPECT_EQ(c[0], 19);  // 1*5 + 2*7
  EXPECT_EQ(c[1], 22);
  EXPECT_EQ(c[2], 43);
  EXPECT_EQ(c[3], 50);
}

TEST(ZooReference, TransposedAndStridedMatmulByHand) {
  Sizes sizes;
  sizes.set("m", 2), sizes.set("n", 1), sizes.set("k", 2);
  {  // A^T stored k x m: A(i, l) = At[l][i].
    const KernelInfo& info = zoo_kernel("matmul_ta");
    HostArgs args = make_host_args(info.build(sizes), 0);
    const float at[] = {1, 3, 2, 4}, b[] = {5, 7};
    for (int i = 0; i < 4; ++i) args.array("A").set(i, at[i]);
    for (int i = 0; i < 2; ++i) args.array("B").set(i, b[i]);
    info.reference(sizes, args);
    EXPECT_EQ(args.array("C").get(0), 19);
    EXPECT_EQ(args.array("C").get(1), 43);
  }
  {  // Strided: A's element e at 32 * e.
    const KernelInfo& info = zoo_kernel("strided_matmul");
    HostArgs args = make_host_args(info.build(sizes), 0);
    ASSERT_EQ(args.array("A").size(), 3 * 32 + 1);
    for (int64_t i = 0; i < args.array("A").size(); ++i) args.array("A").set(i, 100);
    const float a[] = {1, 2, 3, 4}, b[] = {5, 7};
    for (int i = 0; i < 4; ++i) args.array("A").set(32 * i, a[i]);
    for (int i = 0; i < 2; ++i) args.array("B").set(i, b[i]);
    info.reference(sizes, args);
    EXPECT_EQ(args.array("C").get(0), 19);
    EXPECT_EQ(args.array("C").get(1), 43);
  }
}

TEST(ZooReference, AxpyGesummvAndReluByHand) {
  {
    const KernelInfo& info = zoo_kernel("axpy");
    Sizes sizes;
    sizes.set("n", 2);
    HostArgs args = make_host_args(info.build(sizes), 0);
    args.scalars["alpha"] = 2;
    args.array("x").set(0, 1), args.array("x").set(1, -3);
    args.array("y").set(0, 0.5), args.array("y").set(1, 1);
    info.reference(sizes, args);
    EXPECT_EQ(args.array("z").get(0), 2.5);
    EXPECT_EQ(args.array("z").get(1), -5);
  }
  {
    const KernelInfo& info = zoo_kernel("gesummv");
    Sizes sizes;
    sizes.set("n", 1);
    HostArgs args = make_host_args(info.build(sizes), 0);
    args.scalars["alpha"] = 2, args.scalars["beta"] = 3;
    args.array("A").set(0, 4), args.array("B").set(0, 5), args.array("x").set(0, 0.5);
    info.reference(sizes, args);
    EXPECT_EQ(args.array("y").get(0), 2 * 4 * 0.5 + 3 * 5 * 0.5);
  }
  {
    const KernelInfo& info = zoo_kernel("matmul_bias_relu");
    Sizes sizes;
    sizes.set("m", 1), sizes.set("n", 2), sizes.set("k", 1);
    HostArgs args = make_host_args(info.build(sizes), 0);
    args.array("A").set(0, 2);
    args.array("B").set(0, 1), args.array("B").set(1, -1);
    args.array("bias").set(0, 0.5), args.array("bias").set(1, 1);
    info.reference(sizes, args);
    EXPECT_EQ(args.array("C").get(0), 2.5);
    EXPECT_EQ(args.array("C").get(1), 0);  // 2 * -1 + 1 < 0
  }
}

TEST(ZooReference, Mlp2AndTbmmByHand) {
  {
    const KernelInfo& info = zoo_kernel("mlp2");
    Sizes sizes;
    sizes.set("m", 1), sizes.set("k", 1), sizes.set("h", 2), sizes.set("n", 1);
    HostArgs args = make_host_args(info.build(sizes), 0);
    args.array("X").set(0, 2);
    args.array("W1").set(0, 1), args.array("W1").set(1, -1);  // hidden = relu(2, -2) = (2, 0)
    args.array("W2").set(0, 3), args.array("W2").set(1, 5);
    info.reference(sizes, args);
    EXPECT_EQ(args.array("Y").get(0), 6);
  }
  {
    const KernelInfo& info = zoo_kernel("tbmm");
    Sizes sizes;
    sizes.set("b", 1), sizes.set("n", 1), sizes.set("m", 2), sizes.set("k", 2);
    HostArgs args = make_host_args(info.build(sizes), 0);
    args.array("X").set(0, 1), args.array("X").set(1, 2);
    const float y[] = {3, 4, 5, 6};  // Y(0, k, m)
    for (int i = 0; i < 4; ++i) args.array("Y").set(i, y[i]);
    info.reference(sizes, args);
    EXPECT_EQ(args.array("Z").get(0), 1 * 3 + 2 * 4);
    EXPECT_EQ(args.array("Z").get(1), 1 * 5 + 2 * 6);
  }
}

}  // namespace
}  // namespace sculpt::backbone
