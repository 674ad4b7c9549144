#pragma once
// Questions about a checked space model that both the analysis and the emitters ask: what a
// set really iterates, how a choice is stored, its values.
#include <cstddef>
#include <cstdint>
#include <string>

#include "spacedsl/model.h"
#include "spacegen/runtime/domain.h"

namespace sculpt::spacegen {

/// The condition that holds exactly when `x op y` does not: `x op' y`.
spacedsl::CompareOp negated_op(spacedsl::CompareOp op);
/// `x op y` seen from y: `y op' x`.
spacedsl::CompareOp mirrored_op(spacedsl::CompareOp op);

class ModelQueries {
 public:
  explicit ModelQueries(const spacedsl::Model& model) : m_(model) {}

  const spacedsl::Model& model() const { return m_; }
  bool is_quotient(spacedsl::SetId s) const { return m_.sets[s].quotient.has_value(); }
  bool is_parametric(spacedsl::SetId s) const { return m_.sets[s].parameter.has_value(); }
  /// The set a quantifier really iterates: a quotient's element set, else the set itself.
  spacedsl::SetId effective_set(spacedsl::SetId s) const;
  /// The set whose membership bitset tells whether an object can be a member of `s`.
  spacedsl::SetId membership_set(spacedsl::SetId s) const;
  spacedsl::SetId root(spacedsl::SetId s) const;
  /// Whether a plain set's instances are numbered over an `all_ids` list (its own or its
  /// nearest plain superset's) rather than over ids.
  bool ranked(spacedsl::SetId s) const;
  bool triangular(spacedsl::ChoiceId c) const {
    return m_.choices[c].symmetric || !m_.choices[c].antisymmetric_map.empty();
  }
  bool antisymmetric(spacedsl::ChoiceId c) const {
    return !m_.choices[c].antisymmetric_map.empty();
  }
  bool is_enum(spacedsl::ChoiceId c) const {
    return m_.choices[c].kind == spacedsl::ChoiceKind::Enum;
  }
  bool is_counter(spacedsl::ChoiceId c) const {
    return m_.choices[c].kind == spacedsl::ChoiceKind::Counter;
  }
  const std::string& cname(spacedsl::ChoiceId c) const { return m_.choices[c].name; }
  std::size_t num_values(spacedsl::ChoiceId c) const { return m_.choices[c].values.size(); }
  std::uint64_t full_mask(spacedsl::ChoiceId c) const;
  std::uint64_t value_bit(spacedsl::ChoiceId c, const std::string& name) const;
  /// Whether two enum choices have the same values in the same order (no mapping between them).
  bool same_values(spacedsl::ChoiceId from, spacedsl::ChoiceId to) const;
  /// `values` of choice `c` as read with its two arguments swapped.
  ValueSet flip_values(spacedsl::ChoiceId c, ValueSet values) const;
  std::size_t involution_of(spacedsl::ChoiceId c, std::size_t v) const;

 protected:
  const spacedsl::Model& m_;
};

}  // namespace sculpt::spacegen
