// The GPU space against the reference evaluator (spacedsl/oracle.h) on tiny zoo kernels, by
// the sampling check of oracle_harness.h: no enumeration is possible there. The host code is
// evaluated by the table generated from the model (gpu_space_host.h).
// SCULPT_GPU_ORACLE_DESCENTS sets the random descents per kernel.
#include <gtest/gtest.h>

#include <iostream>
#include <optional>

#include "gpu_space/space.h"
#include "perf_model/description.h"
#include "spacedsl/frontend.h"
#include "tests/spacegen/gpu_space_host.h"
#include "tests/spacegen/gpu_space_host_key.h"
#include "tests/spacegen/oracle_harness.h"
#include "zoo/zoo.h"

#ifndef SCULPT_GPU_ORACLE_DESCENTS
#define SCULPT_GPU_ORACLE_DESCENTS 4
#endif
#ifndef SCULPT_GPU_ORACLE_SUITE
#define SCULPT_GPU_ORACLE_SUITE GpuSpaceOracle
#endif

namespace sculpt::spacegen::test {
namespace {

using spacedsl::oracle::Binding;

std::string key_of(const std::string& code, GpuBindings b) {
  return host_key(code, [&](const std::string& name) -> std::optional<spacedsl::SetId> {
    for (const Binding& binding : b) {
      if (binding.name == name) return binding.set;
    }
    return std::nullopt;
  });
}

spacedsl::oracle::Host gpu_host(const gpu_space::Function& fun) {
  spacedsl::oracle::Host host;
  host.scalar = [&fun](const std::string& code, GpuBindings b) {
    const auto& table = gpu_host_table().scalars;
    auto it = table.find(key_of(code, b));
    SCULPT_CHECK(it != table.end()) << "no evaluator for host code \"" << code << "\"";
    return it->second(fun, b);
  };
  host.range = [&fun](const std::string& code, GpuBindings b) {
    const auto& table = gpu_host_table().ranges;
    auto it = table.find(key_of(code, b));
    SCULPT_CHECK(it != table.end()) << "no evaluator for host range \"" << code << "\"";
    return it->second(fun, b);
  };
  return host;
}

const gpu_space::Function& function_of(const CandidateBase& c) {
  return static_cast<const gpu_space::Candidate&>(c).backbone();
}

/// The GPU space's one trigger lowers the communication of a mapping (all of its mappings at
/// once): exactly the communications of the mappings whose condition holds are lowered.
std::string check_lowered(const spacedsl::Model& model, const CandidateBase& c,
                          const Lowerings& holding) {
  const backbone::Kernel& kernel = function_of(c).kernel();
  std::vector<bool> must(kernel.comms().size(), false);
  for (std::size_t t = 0; t < holding.size(); ++t) {
    if (model.triggers[t].code != "$fun.lower_communication($m)") {
      return "a trigger this test does not know: " + model.triggers[t].code;
    }
    for (const auto& tuple : holding[t]) {
      must.at(kernel.mapping(backbone::DimMappingId(tuple.at(0))).comm.value) = true;
    }
  }
  for (const backbone::Communication& comm : kernel.comms()) {
    if (kernel.lowered(comm.id) != must[comm.id.value]) {
      return "communication " + std::to_string(comm.id.value) +
             (must[comm.id.value] ? " is not lowered" : " is lowered") + " against its trigger";
    }
  }
  return {};
}

struct TinyKernel {
  const char* name;
  const char* size;
};

TEST(SCULPT_GPU_ORACLE_SUITE, TinyZooKernelsAgreeWithTheOracle) {
  spacedsl::Diagnostics diags;
  const std::optional<spacedsl::Model> model = spacedsl::load_space(SCULPT_GPU_SPACE_FILE, diags);
  ASSERT_TRUE(model);
  SampledSpace space;
  space.repost = [](CandidateBase& c) {
    return static_cast<gpu_space::Candidate&>(c).initialize();
  };
  space.host = [](const CandidateBase& c) { return gpu_host(function_of(c)); };
  space.check_lowerings = [&](const CandidateBase& c, const Lowerings& holding) {
    return check_lowered(*model, c, holding);
  };
  OracleCheckOptions options;
  options.descents = SCULPT_GPU_ORACLE_DESCENTS;
  options.sequences = 3;
  options.perturbations = 10;
  const auto limits = perf_model::Description::named("sm_90").limits;
  for (const TinyKernel& k :
       {TinyKernel{"axpy", "8"}, TinyKernel{"mv", "4x8"}, TinyKernel{"matmul", "4x4x4"}}) {
    SCOPED_TRACE(std::string(k.name) + " " + k.size);
    const zoo::ZooLookup lookup = zoo::lookup_kernel(k.name, k.size);
    ASSERT_TRUE(lookup.ok()) << lookup.error;
    const auto root = gpu_space::make_root(lookup.info->build(lookup.sizes), limits);
    ASSERT_FALSE(root->conflict()) << root->conflict()->to_string();
    std::mt19937 rng(7);
    int solutions = 0;
    check_by_sampling(space, *model, *root, rng, options, &solutions);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_GT(solutions, 0) << "no random descent reached a solution";
    std::cout << k.name << " " << k.size << ": " << solutions << " solutions checked\n";
  }
}

}  // namespace
}  // namespace sculpt::spacegen::test
