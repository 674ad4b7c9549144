#pragma once
// The check of generated spaces against the reference evaluator (spacedsl/oracle.h) on tiny
// test backbones, random and hand-built.
// Exhaustively, where no lowering can add objects (no assignment meets a trigger's condition):
// every full assignment is enumerated and judged by the oracle, and the generated propagation must
//  - never remove a value of an oracle solution consistent with random restrictions, and
//    report a conflict only when no such solution remains (soundness);
//  - after each restriction, stop where posting every constraint again stops (a fixpoint);
//  - accept a full assignment exactly when the oracle does.
// By sampling, on every space (the only check of those whose lowerings add objects, and of
// backbones too large to enumerate): random descents of the generated propagation to a full
// assignment, each an oracle solution over the candidate's own backbone, whose lowerings ran
// exactly where a trigger's condition holds; soundness and fixpoints relative to each solution S
// (restrictions consistent with S keep S's values, fail nothing and bring no instance S lacks);
// perturbations of S (one or two instances changed), which the generated propagation reaches
// when the oracle accepts them over S's backbone with S's lowerings, and only if it accepts them.
// Each generated space registers itself (oracle_space.cpp.in); the oracle reads the space's
// own file, while the generated code may come from a mutated model (mutants.cmake).
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "spacedsl/model.h"
#include "spacedsl/oracle.h"
#include "spacegen/runtime/candidate.h"
#include "tests/spacegen/test_backbone.h"

namespace sculpt::spacegen::test {

/// The tuples on which each trigger's condition holds (Model::triggers order), whose lowerings
/// must have run.
using Lowerings = std::vector<std::vector<std::vector<spacedsl::oracle::ObjectId>>>;

/// What the sampling check needs of a generated space, whatever its backbone.
struct SampledSpace {
  /// Posts every constraint again (the generated `initialize`).
  std::function<Status(CandidateBase&)> repost;
  /// The oracle's host over a candidate's backbone, with the objects its lowerings added.
  std::function<spacedsl::oracle::Host(const CandidateBase&)> host;
  /// What is wrong with the lowerings a candidate ran; empty when they are those of `holding`.
  std::function<std::string(const CandidateBase&, const Lowerings& holding)> check_lowerings;
};

/// The sampled view of a space over the test backbone.
SampledSpace sampled_test_space(std::function<Status(CandidateBase&)> repost,
                                std::function<const Backbone&(const CandidateBase&)> backbone);

struct SpaceUnderTest {
  std::string name;
  std::string file;  // the root .space file
  /// A fresh, initialized candidate over `fun`; `status` says whether initialization failed.
  std::function<std::unique_ptr<CandidateBase>(const Backbone& fun, Status* status)> make;
  SampledSpace sampled;
};

/// Adds a space to `registered_spaces()`; returns true, for static initializers.
bool register_space(SpaceUnderTest space);
std::vector<SpaceUnderTest>& registered_spaces();

template <typename Candidate>
SpaceUnderTest space_of(std::string name, std::string file) {
  SpaceUnderTest s{std::move(name), std::move(file), nullptr, {}};
  s.make = [](const Backbone& fun, Status* status) -> std::unique_ptr<CandidateBase> {
    auto shared = std::make_shared<Backbone>(fun);
    auto c = std::make_unique<Candidate>(shared, Candidate::make_layout(*shared));
    *status = c->initialize();
    return c;
  };
  s.sampled =
      sampled_test_space([](CandidateBase& c) { return static_cast<Candidate&>(c).initialize(); },
                         [](const CandidateBase& c) -> const Backbone& {
                           return static_cast<const Candidate&>(c).backbone();
                         });
  return s;
}

struct OracleCheckOptions {
  int backbones = 12;           // tractable random backbones per space
  int max_assignments = 20000;  // larger enumerations are skipped
  int sequences = 10;           // random restriction sequences per backbone
  int full_checks = 3000;       // solutions, and rejected assignments, applied per backbone
  int descents = 4;             // random descents to a solution per backbone
  int perturbations = 20;       // perturbed assignments per solution a descent reaches
};

/// A random strict, non-empty subset of a domain of several values.
std::vector<std::uint32_t> random_restriction(const std::vector<std::uint32_t>& domain,
                                              std::mt19937& rng);

/// The sampling check from `root` (see above), reporting failures through gtest; `solutions`
/// counts the full assignments the descents reached.
void check_by_sampling(const SampledSpace& space, const spacedsl::Model& model,
                       const CandidateBase& root, std::mt19937& rng,
                       const OracleCheckOptions& options, int* solutions);

/// Runs the checks on `space`, reporting failures through gtest.
void check_against_oracle(const SpaceUnderTest& space, const OracleCheckOptions& options);

}  // namespace sculpt::spacegen::test
