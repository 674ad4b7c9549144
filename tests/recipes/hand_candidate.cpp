#include "tests/recipes/hand_candidate.h"

#include <stdexcept>

namespace sculpt::recipes {

namespace values = gpu_space::values;

HandCandidate::HandCandidate(backbone::Kernel kernel, const gpu_space::DeviceDescription& device)
    : candidate_(gpu_space::make_root(std::move(kernel), device)) {
  if (candidate_->conflict()) {
    throw std::invalid_argument("the space is empty: " + candidate_->conflict()->to_string());
  }
}

std::uint32_t HandCandidate::dim(const std::string& name) const {
  for (const backbone::Dimension* d : kernel().dimensions()) {
    if (d->name == name) return kernel().stmt_id(d->id).value;
  }
  throw std::invalid_argument("no dimension " + name);
}

std::uint32_t HandCandidate::inst(const std::string& name) const {
  for (std::uint32_t i = 0; i < kernel().inst_capacity(); ++i) {
    if (kernel().inst(backbone::InstId(i)).name == name) return i;
  }
  throw std::invalid_argument("no instruction " + name);
}

std::uint32_t HandCandidate::statement(const std::string& name) const {
  for (const backbone::Dimension* d : kernel().dimensions()) {
    if (d->name == name) return kernel().stmt_id(d->id).value;
  }
  return inst(name);
}

HandCandidate& HandCandidate::check(spacegen::Status status, const std::string& what) {
  if (status == spacegen::Status::Ok) status = candidate_->propagate();
  if (status != spacegen::Status::Ok) {
    throw std::invalid_argument(what + ": " + candidate_->conflict()->to_string());
  }
  return *this;
}

HandCandidate& HandCandidate::size(const std::string& d, std::int64_t v) {
  return check(candidate_->restrict_size(dim(d), {v, v}), "size of " + d);
}

HandCandidate& HandCandidate::kind(const std::string& d, spacegen::ValueSet kind) {
  return check(candidate_->restrict_dim_kind(dim(d), kind), "kind of " + d);
}

HandCandidate& HandCandidate::level(const std::string& d, std::uint32_t level) {
  return check(candidate_->restrict_thread_mapping(dim(d), level, values::thread_mapping::MAPPED),
               "thread level of " + d);
}

HandCandidate& HandCandidate::mapping(const std::string& src, spacegen::ValueSet impl) {
  for (const backbone::DimMapping* m : kernel().dim_mappings()) {
    if (kernel().dim(m->src).name == src) {
      return check(candidate_->restrict_dim_mapping(m->id.value, impl), "mapping from " + src);
    }
  }
  throw std::invalid_argument("no mapping from " + src);
}

HandCandidate& HandCandidate::order(const std::string& a, const std::string& b,
                                    spacegen::ValueSet order) {
  return check(candidate_->restrict_order(statement(a), statement(b), order),
               "order of " + a + " and " + b);
}

HandCandidate& HandCandidate::shared(const std::string& temp) {
  for (const backbone::MemRegion* mem : kernel().mem_regions()) {
    if (mem->name == temp) {
      return check(candidate_->restrict_mem_space(mem->id.value, values::mem_space::SHARED),
                   "memory space of " + temp);
    }
  }
  throw std::invalid_argument("no temporary " + temp + " (is its communication lowered?)");
}

HandCandidate& HandCandidate::cache(const std::string& i, spacegen::ValueSet cache) {
  return check(candidate_->restrict_cache(kernel().stmt_id(backbone::InstId(inst(i))).value, cache),
               "cache of " + i);
}

const gpu_space::Candidate& HandCandidate::complete() {
  while (auto open = candidate_->first_open_instance()) {
    const std::vector<std::uint32_t> values = candidate_->domain(*open);
    if (candidate_->restrict(*open, {values.front()}) != spacegen::Status::Ok) {
      throw std::invalid_argument("completing the candidate: " +
                                  candidate_->conflict()->to_string());
    }
  }
  return *candidate_;
}

}  // namespace sculpt::recipes
