#pragma once
// The part of a generated space's `Candidate` (generated space.h) that is the same in every
// space: the backbone it owns (copied on the first lowering), the action origin and the
// helpers the generated code uses.
#include <cstdint>
#include <memory>
#include <utility>

#include "spacegen/runtime/candidate.h"

namespace sculpt::spacegen {

/// The base of the `Candidate` of a space over backbones of type `B` (the type of `$fun`).
template <typename B>
class SpaceCandidate : public CandidateBase {
 public:
  using Backbone = B;
  /// The action origin: restrictions that come from the search.
  static constexpr Origin kAction{0, 0};

  const Backbone& backbone() const { return *fun_; }

 protected:
  SpaceCandidate(std::shared_ptr<Backbone> fun, std::shared_ptr<const Layout> layout)
      : CandidateBase(std::move(layout)), fun_(std::move(fun)) {}

  static constexpr std::uint32_t kNoChoice = ~0u;
  /// The interval of one value (a host integer).
  static Interval constant(std::int64_t v) { return {v, v}; }

  std::shared_ptr<Backbone> fun_;
};

}  // namespace sculpt::spacegen
