#pragma once
// Hand-fixed candidates for tests: decisions named after the backbone's objects, then every
// choice left open fixed to its first possible value, in the space's decision order.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "gpu_space/space.h"

namespace sculpt::codegen::test {

class Decide {
 public:
  explicit Decide(backbone::Kernel kernel)
      : root_(gpu_space::make_root(std::move(kernel), gpu_space::DeviceDescription::sm90())) {
    EXPECT_FALSE(root_->conflict()) << root_->conflict()->to_string();
  }

  const backbone::Kernel& kernel() const { return root_->backbone().kernel(); }
  gpu_space::Candidate& candidate() { return *root_; }

  std::uint32_t dim(const std::string& name) const {
    for (const backbone::Dimension* d : kernel().dimensions()) {
      if (d->name == name) return kernel().stmt_id(d->id).value;
    }
    ADD_FAILURE() << "no dimension " << name;
    return 0;
  }
  std::uint32_t inst(const std::string& name) const {
    for (std::uint32_t i = 0; i < kernel().inst_capacity(); ++i) {
      if (kernel().inst(backbone::InstId(i)).name == name) return i;
    }
    ADD_FAILURE() << "no instruction " << name;
    return 0;
  }
  /// The mapping whose source dimension is `src`.
  std::uint32_t mapping_from(const std::string& src) const {
    for (const backbone::DimMapping* m : kernel().dim_mappings()) {
      if (kernel().dim(m->src).name == src) return m->id.value;
    }
    ADD_FAILURE() << "no mapping from " << src;
    return 0;
  }

  Decide& size(const std::string& d, std::int64_t v) {
    return check(root_->restrict_size(dim(d), {v, v}));
  }
  Decide& kind(const std::string& d, spacegen::ValueSet kind) {
    return check(root_->restrict_dim_kind(dim(d), kind));
  }
  /// Maps a thread dimension to level 0 (x), 1 (y) or 2 (z).
  Decide& level(const std::string& d, std::uint32_t level) {
    return check(root_->restrict_thread_mapping(dim(d), level, gpu_space::values::thread_mapping::MAPPED));
  }
  Decide& mapping(const std::string& src, spacegen::ValueSet impl) {
    return check(root_->restrict_dim_mapping(mapping_from(src), impl));
  }
  /// `a` and `b` name dimensions or instructions.
  Decide& order(const std::string& a, const std::string& b, spacegen::ValueSet order) {
    return check(root_->restrict_order(stmt(a), stmt(b), order));
  }
  Decide& shared(const std::string& temp) {
    for (const backbone::MemRegion* mem : kernel().mem_regions()) {
      if (mem->name == temp) {
        return check(root_->restrict_mem_space(mem->id.value, gpu_space::values::mem_space::SHARED));
      }
    }
    ADD_FAILURE() << "no temporary " << temp;
    return *this;
  }

  /// Fixes every open choice to its first possible value; the candidate must stay alive.
  gpu_space::Candidate& complete() {
    while (auto open = root_->first_open_instance()) {
      const std::vector<std::uint32_t> values = root_->domain(*open);
      if (root_->restrict(*open, {values.front()}) != spacegen::Status::Ok) {
        ADD_FAILURE() << "completing: " << root_->conflict()->to_string();
        break;
      }
    }
    return *root_;
  }

 private:
  std::uint32_t stmt(const std::string& name) const {
    for (const backbone::Dimension* d : kernel().dimensions()) {
      if (d->name == name) return kernel().stmt_id(d->id).value;
    }
    return inst(name);
  }
  Decide& check(spacegen::Status status) {
    if (status == spacegen::Status::Ok) status = root_->propagate();
    EXPECT_EQ(status, spacegen::Status::Ok) << root_->conflict()->to_string();
    return *this;
  }

  std::unique_ptr<gpu_space::Candidate> root_;
};

}  // namespace sculpt::codegen::test
