#pragma once
// What the learnt model (additive_model.h) reads of a fully specified candidate: keys, each
// held or not. The search is handed it and never looks inside a candidate itself; the GPU
// space's is the code a candidate becomes (gpu/code_features.h).
#include <cstdint>
#include <vector>

#include "spacegen/runtime/candidate.h"

namespace sculpt::search {

class Features {
 public:
  virtual ~Features() = default;
  /// The features of `candidate`; thread-safe.
  virtual std::vector<std::uint64_t> of(const spacegen::CandidateBase& candidate) const = 0;
};

}  // namespace sculpt::search
