#pragma once
// A candidate fixed by hand: decisions named after the backbone's objects (dimensions,
// instructions, temporaries), then, on complete(), every choice left open fixed to its first
// possible value in the space's decision order. For golden tests, benchmarks of known-good
// implementations and users who know what they want. A name that matches nothing, or a
// decision the space rejects, throws std::invalid_argument saying which.
#include <cstdint>
#include <memory>
#include <string>

#include "gpu_space/space.h"
#include "perf_model/description.h"

namespace sculpt::recipes {

class HandCandidate {
 public:
  explicit HandCandidate(
      backbone::Kernel kernel,
      const gpu_space::DeviceDescription& device = perf_model::Description::named("sm_90").limits);

  const backbone::Kernel& kernel() const { return candidate_->backbone().kernel(); }

  HandCandidate& size(const std::string& dim, std::int64_t value);
  HandCandidate& kind(const std::string& dim, spacegen::ValueSet kind);
  /// Maps a thread dimension to level 0 (x), 1 (y) or 2 (z).
  HandCandidate& level(const std::string& dim, std::uint32_t level);
  /// How the mapping whose source dimension is `src` is implemented.
  HandCandidate& mapping(const std::string& src, spacegen::ValueSet impl);
  /// `a` and `b` name dimensions or instructions.
  HandCandidate& order(const std::string& a, const std::string& b, spacegen::ValueSet order);
  HandCandidate& shared(const std::string& temp);
  HandCandidate& cache(const std::string& inst, spacegen::ValueSet cache);

  /// Fixes every open choice to its first possible value and returns the candidate.
  const gpu_space::Candidate& complete();

 private:
  std::uint32_t dim(const std::string& name) const;
  std::uint32_t inst(const std::string& name) const;
  std::uint32_t statement(const std::string& name) const;
  HandCandidate& check(spacegen::Status status, const std::string& what);

  std::unique_ptr<gpu_space::Candidate> candidate_;
};

}  // namespace sculpt::recipes
