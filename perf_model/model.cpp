#include "perf_model/model.h"

#include <fmt/format.h>

#include <algorithm>

#include "perf_model/bounds.h"
#include "perf_model/kernel_facts.h"
#include "support/check.h"
#include "support/duration.h"

namespace sculpt::perf_model {

std::string_view to_string(Level level) {
  switch (level) {
    case Level::device:
      return "device";
    case Level::sm:
      return "sm";
    case Level::block:
      return "block";
  }
  return "?";
}

std::string Bound::explain() const {
  std::string out = fmt::format(
      "lower bound {}: bound by {} ({}){}\n", support::format_ns(ns), bottleneck().resource,
      to_string(bottleneck().level),
      launch_ns > 0 ? fmt::format(" after the launch ({})", support::format_ns(launch_ns)) : "");
  for (const Term& t : terms) {
    out += fmt::format("  {:<8} {:<6} {:>12}  {}\n", t.resource, to_string(t.level),
                       support::format_ns(t.ns), t.detail);
  }
  return out;
}

struct Model::Impl {
  Description description;
  KernelFacts facts;
};

Model::Model(const backbone::Kernel& kernel, Description description)
    : impl_(std::make_unique<Impl>(Impl{std::move(description), KernelFacts(kernel)})) {}
Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

const Description& Model::description() const { return impl_->description; }

Bound Model::bound(const gpu_space::Candidate& candidate, Layers layers, Counting counting) const {
  SCULPT_CHECK(!candidate.conflict()) << "the bound of a dead candidate";
  const CandidateView view(candidate, impl_->facts);
  Bound out;
  if (impl_->description.gpu) {
    gpu_bound(view, *impl_->description.gpu, layers, counting, out);
  } else {
    cpu_bound(view, *impl_->description.cpu, layers, out);
  }
  std::stable_sort(out.terms.begin(), out.terms.end(),
                   [](const Term& a, const Term& b) { return a.ns > b.ns; });
  out.ns = out.launch_ns + out.terms.front().ns;
  return out;
}

Bound bound(const gpu_space::Candidate& candidate, const Description& description) {
  return Model(candidate.backbone().kernel(), description).bound(candidate);
}

}  // namespace sculpt::perf_model
