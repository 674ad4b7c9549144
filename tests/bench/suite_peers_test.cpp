// The suite's peers (bench/suite/) compute what the kernels they are compared with compute: each
// is compiled, run and checked against the kernel's reference by the CPU device, at small sizes.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "bench/suite/cases.h"
#include "bench/suite/peer_code.h"
#include "device/cpu_evaluator.h"

namespace sculpt::bench {
namespace {

TEST(PeerCode, NamesEveryParameterByItsTypeAndRole) {
  const Case matmul = suite_cases().front();
  ASSERT_EQ(matmul.kernel, "matmul");
  const device::KernelCode code =
      peer_code(matmul.peers.front(), *case_problem(matmul, matmul.test_sizes, 1));
  EXPECT_EQ(code.entry, "peer_openblas_sgemm");
  EXPECT_EQ(code.language, device::Language::c);
  for (const char* line : {"const int32_t m = *(const int32_t*)params[0];",
                           "const int32_t k = *(const int32_t*)params[2];",
                           "const float* restrict A = *(float* const*)params[3];",
                           "float* restrict C = *(float* const*)params[5];",
                           "void peer_openblas_sgemm(void** params) {", "#include <cblas.h>"}) {
    EXPECT_NE(code.source.find(line), std::string::npos) << line << " not in\n" << code.source;
  }
}

TEST(SuiteCases, RandomSizesAreSeededAndInRange) {
  const std::vector<Case> a = random_matmul_cases(7, 20), b = random_matmul_cases(7, 20);
  ASSERT_EQ(a.size(), 20u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].sizes, b[i].sizes);
    int m = 0, n = 0, k = 0;
    ASSERT_EQ(std::sscanf(a[i].sizes.c_str(), "%dx%dx%d", &m, &n, &k), 3) << a[i].sizes;
    for (int d : {m, n, k}) {
      EXPECT_GE(d, 64);
      EXPECT_LE(d, 1536);
    }
  }
  EXPECT_NE(random_matmul_cases(8, 1).front().sizes, a.front().sizes);
}

class SuitePeers : public testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    std::string pattern = testing::TempDir() + "sculpt-suite-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    cache_dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(cache_dir_); }
  std::filesystem::path cache_dir_;
};

TEST_P(SuitePeers, EachPeerPassesTheKernelsCheck) {
  const Case& c = GetParam();
  device::CpuEvaluatorOptions options;
  for (const std::string& flag : peer_link_flags()) options.flags.push_back(flag);
  options.cache_dir = cache_dir_;
  device::CpuEvaluator evaluator(options);
  const auto problem = case_problem(c, c.test_sizes, 3);
  ASSERT_FALSE(c.peers.empty());
  for (const Peer& peer : c.peers) {
    const device::Evaluation e = evaluator.evaluate(peer_code(peer, *problem), problem);
    EXPECT_EQ(e.check, device::Check::ok) << peer.name << ": " << e.message;
    EXPECT_TRUE(e.time_ns.has_value()) << peer.name;
  }
}

std::string case_name(const testing::TestParamInfo<Case>& info) {
  std::string name = std::to_string(info.index) + "_" + info.param.kernel;
  return name;
}

INSTANTIATE_TEST_SUITE_P(Suite, SuitePeers, testing::ValuesIn(suite_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(RandomSizes, SuitePeers, testing::ValuesIn(random_matmul_cases(1, 1)),
                         case_name);

}  // namespace
}  // namespace sculpt::bench
