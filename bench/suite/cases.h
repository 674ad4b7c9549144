#pragma once
// The suite's cases: kernels of the zoo and definitions of the suite's own, each at a size users
// bring, with the peers a user would otherwise call.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/suite/peer_code.h"
#include "device/problem.h"

namespace sculpt::bench {

struct Case {
  /// "matmul 1024x1024x1024": the table's name.
  std::string name;
  /// A zoo kernel, or a definition of `definition`.
  std::string kernel;
  /// As the library call takes them: "1024x1024x1024", or "N=1,C=64,..." for a definition.
  std::string sizes;
  /// Small sizes of the same kernel, at which a test checks every peer against the reference.
  std::string test_sizes;
  /// Empty for a zoo kernel; else the text of definitions (suite_definitions()).
  std::string definition;
  std::vector<Peer> peers;
};

/// The definitions of the suite's kernels that the zoo lacks: convolutions, a softmax, a layer
/// normalisation.
const std::string& suite_definitions();

/// The suite's fixed cases, in the order it runs them.
std::vector<Case> suite_cases();

/// The problem of `c`'s kernel at `sizes` (its own, or its test sizes), with the inputs of
/// `seed`, as a search of it measures candidates on.
std::shared_ptr<const device::Problem> case_problem(const Case& c, const std::string& sizes,
                                                    std::uint64_t seed);

/// `count` matmuls of sizes drawn from `seed`, each dimension uniform in 64..1536 (Diesel's
/// experiment), against OpenBLAS.
std::vector<Case> random_matmul_cases(std::uint64_t seed, int count);

}  // namespace sculpt::bench
