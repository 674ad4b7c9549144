#pragma once
// The brute-force check of generated spaces against the reference evaluator
// (spacedsl/oracle.h): on random tiny test backbones, every full assignment is enumerated and
// judged by the oracle, and the generated propagation must
//  - never remove a value of an oracle solution consistent with random restrictions, and
//    report a conflict only when no such solution remains (soundness);
//  - after each restriction, stop where posting every constraint again stops (a fixpoint);
//  - accept a full assignment exactly when the oracle does.
// Each generated space registers itself (oracle_space.cpp.in); the oracle reads the space's
// own file, while the generated code may come from a mutated model (mutants.cmake).
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "spacegen/runtime/candidate.h"
#include "tests/spacegen/test_backbone.h"

namespace sculpt::spacegen::test {

struct SpaceUnderTest {
  std::string name;
  std::string file;  // the root .space file
  /// A fresh, initialized candidate over `fun`; `status` says whether initialization failed.
  std::function<std::unique_ptr<CandidateBase>(const Backbone& fun, Status* status)> make;
  /// Posts every constraint again (the generated `initialize`).
  std::function<Status(CandidateBase&)> repost;
};

/// Adds a space to `registered_spaces()`; returns true, for static initializers.
bool register_space(SpaceUnderTest space);
std::vector<SpaceUnderTest>& registered_spaces();

template <typename Candidate>
SpaceUnderTest space_of(std::string name, std::string file) {
  SpaceUnderTest s{std::move(name), std::move(file), nullptr, nullptr};
  s.make = [](const Backbone& fun, Status* status) -> std::unique_ptr<CandidateBase> {
    auto shared = std::make_shared<Backbone>(fun);
    auto c = std::make_unique<Candidate>(shared, Candidate::make_layout(*shared));
    *status = c->initialize();
    return c;
  };
  s.repost = [](CandidateBase& c) { return static_cast<Candidate&>(c).initialize(); };
  return s;
}

struct OracleCheckOptions {
  int backbones = 12;           // tractable random backbones per space
  int max_assignments = 20000;  // larger enumerations are skipped
  int sequences = 10;           // random restriction sequences per backbone
  int full_checks = 3000;       // solutions, and rejected assignments, applied per backbone
};

/// A random strict, non-empty subset of a domain of several values.
std::vector<std::uint32_t> random_restriction(const std::vector<std::uint32_t>& domain,
                                              std::mt19937& rng);

/// Runs the checks on `space`, reporting failures through gtest.
void check_against_oracle(const SpaceUnderTest& space, const OracleCheckOptions& options);

}  // namespace sculpt::spacegen::test
