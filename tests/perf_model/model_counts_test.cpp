// The model never charges more than a kernel executes: random fully specified candidates of every
// zoo kernel at its test sizes, and of the selects and the layernorm of
// frontend/examples/kernels.tc (SCULPT_CANDIDATES: 20 in CI, 200 in the slow run), their PTX run on
// the PTX emulator, which counts what ran (tests/device/ptx_emulator.h). For every instruction,
// each class of warp instructions, the global sectors and the shared-memory wavefronts the model
// charges are at most the emulator's; the barriers a block passes too. And the model's coalescing
// is right: the sectors it says the printed PTX moves equal the emulator's on at least 95% of the
// global accesses.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>

#include "codegen/device_code.h"
#include "device/problem_data.h"
#include "perf_model/model.h"
#include "search/session/candidate_evaluator.h"
#include "search/session/descent.h"
#include "search/session/problem.h"
#include "tests/device/ptx_emulator.h"
#include "tests/frontend/new_kernels.h"
#include "tests/zoo/zoo_names.h"
#include "zoo/zoo.h"

namespace sculpt::perf_model {
namespace {

/// Host memory as cuMemAlloc gives it: 256-byte aligned.
struct Buffer {
  explicit Buffer(std::size_t bytes)
      : size((bytes + 255) / 256 * 256),
        data(static_cast<std::byte*>(std::aligned_alloc(256, size))) {}
  ~Buffer() { std::free(data); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::size_t size;
  std::byte* data;
};

/// Runs `code` on the emulator with the problem's initial values, counting what ran.
ptx_emulator::Outcome run_counted(const device::KernelCode& code, const device::ProblemData& data) {
  const device::Problem& problem = data.problem();
  std::vector<std::unique_ptr<Buffer>> buffers;
  std::vector<std::uint64_t> pointers(problem.params.size(), 0);
  std::vector<void*> params;
  ptx_emulator::Launch launch;
  for (std::size_t i = 0; i < problem.params.size(); ++i) {
    buffers.push_back(std::make_unique<Buffer>(data.bytes(i)));
    data.write_initial(i, buffers.back()->data);
    if (std::holds_alternative<device::ArrayParam>(problem.params[i])) {
      pointers[i] = reinterpret_cast<std::uint64_t>(buffers.back()->data);
      params.push_back(&pointers[i]);
      launch.allocations.emplace_back(pointers[i], buffers.back()->size);
    } else {
      params.push_back(buffers.back()->data);
    }
  }
  launch.grid = {code.launch.grid[0], code.launch.grid[1], code.launch.grid[2]};
  launch.block = {code.launch.block[0], code.launch.block[1], code.launch.block[2]};
  launch.params = params.data();
  launch.count = true;
  ptx_emulator::Module module(code.source);
  return module.run(code.entry, launch);
}

struct Tally {
  int candidates = 0;
  int violations = 0;
  int global_accesses = 0;
  int equal_sectors = 0;
};

/// Checks one candidate's counts against what its PTX executed.
void compare(const Bound& model, const ptx_emulator::Counts& ran, const std::string& what,
             Tally& tally) {
  auto violation = [&](const std::string& message) {
    if (++tally.violations <= 5) ADD_FAILURE() << what << ": " << message;
  };
  for (const InstructionCounts& charged : model.counts.instructions) {
    const auto found = ran.by_instruction.find(charged.name);
    const ptx_emulator::InstructionCounts executed =
        found == ran.by_instruction.end() ? ptx_emulator::InstructionCounts{} : found->second;
    for (std::size_t k = 0; k < kInstrClasses; ++k) {
      if (charged.charged[k] > static_cast<double>(executed.warp_instructions[k])) {
        violation(fmt::format("{}: {:g} {} warp instructions charged, {} ran", charged.name,
                              charged.charged[k], kInstrClassNames[k],
                              executed.warp_instructions[k]));
      }
    }
    if (charged.charged_sectors > static_cast<double>(executed.sectors)) {
      violation(fmt::format("{}: {:g} sectors charged, {} ran", charged.name,
                            charged.charged_sectors, executed.sectors));
    }
    if (charged.charged_wavefronts > static_cast<double>(executed.wavefronts)) {
      violation(fmt::format("{}: {:g} wavefronts charged, {} ran", charged.name,
                            charged.charged_wavefronts, executed.wavefronts));
    }
    const std::size_t loads = static_cast<std::size_t>(InstrClass::global_load);
    const std::size_t stores = static_cast<std::size_t>(InstrClass::global_store);
    if (executed.warp_instructions[loads] + executed.warp_instructions[stores] > 0) {
      ++tally.global_accesses;
      if (charged.executed_sectors == static_cast<double>(executed.sectors)) {
        ++tally.equal_sectors;
      } else if (tally.global_accesses - tally.equal_sectors <= 3) {
        std::printf("%s: %s moves %.0f sectors by the model, %llu on the emulator\n", what.c_str(),
                    charged.name.c_str(), charged.executed_sectors,
                    static_cast<unsigned long long>(executed.sectors));
      }
    }
  }
  if (model.counts.barriers_per_block > static_cast<double>(ran.barriers_per_block)) {
    violation(fmt::format("{:g} barriers per block charged, {} ran",
                          model.counts.barriers_per_block, ran.barriers_per_block));
  }
}

class ModelCounts : public testing::TestWithParam<std::string> {};

TEST_P(ModelCounts, NeverExceedWhatRan) {
  // A zoo kernel at its test sizes, or a kernel of frontend/examples/kernels.tc.
  backbone::KernelInfo info;
  backbone::Sizes sizes;
  if (const backbone::KernelInfo* zoo = zoo::find_kernel(GetParam())) {
    info = *zoo;
    sizes = backbone::test_sizes(info.sizes);
  } else {
    const frontend::DefinitionLookup lookup = frontend::testing::lookup_new_kernel(GetParam());
    ASSERT_TRUE(lookup.ok()) << lookup.error;
    info = *lookup.info;
    sizes = lookup.sizes;
  }
  const backbone::Kernel kernel = info.build(sizes);
  const Description sm90 = Description::named("sm_90");
  const auto root = gpu_space::make_root(kernel, sm90.limits);
  const Model model(kernel, sm90);
  const device::ProblemData data(*search::make_problem(info, sizes, kernel, /*seed=*/4));
  const char* count = std::getenv("SCULPT_CANDIDATES");
  const int candidates = count != nullptr ? std::atoi(count) : 20;
  std::mt19937_64 rng(std::hash<std::string>()(info.name) + 7);
  Tally tally;
  for (int i = 0; i < candidates; ++i) {
    const search::Descent descent = search::random_descent(*root, rng);
    if (!descent.candidate) continue;
    const auto& candidate = static_cast<const gpu_space::Candidate&>(*descent.candidate);
    const device::KernelCode code =
        codegen::kernel_code(candidate, device::Language::ptx, "candidate");
    const ptx_emulator::Outcome ran = run_counted(code, data);
    ASSERT_EQ(ran.fault, ptx_emulator::Fault::none) << ran.message << "\n" << code.source;
    ++tally.candidates;
    compare(model.bound(candidate, Layers::all, Counting::executed), ran.counts,
            fmt::format("{} candidate {}", info.name, i), tally);
  }
  EXPECT_EQ(tally.violations, 0);
  ASSERT_GT(tally.global_accesses, 0);
  const double equal = static_cast<double>(tally.equal_sectors) / tally.global_accesses;
  EXPECT_GE(equal, 0.95) << tally.equal_sectors << " of " << tally.global_accesses;
  std::printf("%s: %d candidates, global sectors equal on %d of %d accesses (%.1f%%)\n",
              info.name.c_str(), tally.candidates, tally.equal_sectors, tally.global_accesses,
              100 * equal);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ModelCounts, testing::ValuesIn(zoo::zoo_names()),
                         [](const auto& param) { return param.param; });

// Comparisons and selects, and sqrt, which no zoo kernel has.
INSTANTIATE_TEST_SUITE_P(Definitions, ModelCounts,
                         testing::Values("relu", "threshold", "clamp", "layernorm"),
                         [](const auto& param) { return param.param; });

}  // namespace
}  // namespace sculpt::perf_model
