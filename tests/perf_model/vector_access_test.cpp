// The model charges the vector accesses codegen prints: for random fully specified candidates of
// every zoo kernel, at its test and its default sizes (SCULPT_CANDIDATES each: 100 in CI, 1,000
// in the slow run), every memory access the lowered kernel vectorises is one the model charges
// as a vector access along the same dimension and of the same width, and none other. Both read
// perf_model/vector_access.h; what this holds them to is the rest: which dimension is the
// vector one, and the access's coefficients (codegen's index expressions, the model's strides
// and temporary layouts).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>
#include <string>

#include "codegen/lower.h"
#include "perf_model/model.h"
#include "search/session/descent.h"
#include "tests/zoo/zoo_names.h"
#include "zoo/zoo.h"

namespace sculpt::perf_model {
namespace {

struct Tally {
  int candidates = 0;
  int accesses = 0;
  int vectors = 0;
  int mismatches = 0;
};

/// Checks one candidate's accesses: the model's view against the lowered kernel's.
void compare(const codegen::LoweredKernel& lowered, const Bound& bound, const std::string& what,
             Tally& tally) {
  std::map<std::string, const InstructionCounts*> model;
  for (const InstructionCounts& c : bound.counts.instructions) model[c.name] = &c;
  auto mismatch = [&](const std::string& message) {
    if (++tally.mismatches <= 5) ADD_FAILURE() << what << ": " << message;
  };
  for (const codegen::Instruction& inst : lowered.instructions) {
    const auto found = model.find(inst.name);
    if (found == model.end()) {
      if (inst.access) mismatch(fmt::format("{}: the model does not charge it", inst.name));
      continue;
    }
    const InstructionCounts& charged = *found->second;
    model.erase(found);
    if (!inst.access) {
      if (charged.vector_dim) mismatch(fmt::format("{}: a vector access of no memory", inst.name));
      continue;
    }
    ++tally.accesses;
    if (!charged.exact) mismatch(fmt::format("{}: the model's counts are not exact", inst.name));
    const codegen::MemAccess& access = *inst.access;
    if (access.vector_dim < 0) {
      if (charged.vector_dim || charged.vector_width != 1) {
        mismatch(fmt::format("{}: scalar in the code, {} wide in the model", inst.name,
                             charged.vector_width));
      }
      continue;
    }
    ++tally.vectors;
    const codegen::LoopDim& loop = lowered.dims[access.vector_dim];
    const bool same_dim =
        charged.vector_dim && std::find(loop.members.begin(), loop.members.end(),
                                        *charged.vector_dim) != loop.members.end();
    if (!same_dim || charged.vector_width != access.width) {
      mismatch(fmt::format("{}: {} wide along {} in the code, {} wide along dim {} in the model",
                           inst.name, access.width, loop.name, charged.vector_width,
                           charged.vector_dim ? static_cast<int>(charged.vector_dim->value) : -1));
    }
  }
  for (const auto& [name, charged] : model) {
    if (charged->vector_dim) mismatch(fmt::format("{}: a vector access not in the code", name));
  }
}

class VectorAccess : public testing::TestWithParam<std::string> {};

TEST_P(VectorAccess, ModelChargesWhatCodegenPrints) {
  const backbone::KernelInfo& info = *zoo::find_kernel(GetParam());
  const Description h200 = Description::named("h200");
  const char* count = std::getenv("SCULPT_CANDIDATES");
  const int candidates = count != nullptr ? std::atoi(count) : 100;
  Tally tally;
  for (const bool test_sizes : {true, false}) {
    const backbone::Sizes sizes =
        test_sizes ? backbone::test_sizes(info.sizes) : backbone::default_sizes(info.sizes);
    const backbone::Kernel kernel = info.build(sizes);
    const auto root = gpu_space::make_root(kernel, h200.limits);
    const Model model(kernel, h200);
    std::mt19937_64 rng(std::hash<std::string>()(info.name) + test_sizes);
    for (int i = 0; i < candidates; ++i) {
      const search::Descent descent = search::random_descent(*root, rng);
      if (!descent.candidate) continue;
      const auto& candidate = static_cast<const gpu_space::Candidate&>(*descent.candidate);
      ++tally.candidates;
      compare(codegen::lower(candidate), model.bound(candidate),
              fmt::format("{} at {} sizes, candidate {}", info.name,
                          test_sizes ? "test" : "default", i),
              tally);
    }
  }
  EXPECT_EQ(tally.mismatches, 0);
  EXPECT_GT(tally.accesses, 0);
  std::printf("%s: %d candidates, %d accesses, %d of them vector accesses\n", info.name.c_str(),
              tally.candidates, tally.accesses, tally.vectors);
}

INSTANTIATE_TEST_SUITE_P(Zoo, VectorAccess, testing::ValuesIn(zoo::zoo_names()),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace sculpt::perf_model
