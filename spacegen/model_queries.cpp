#include "spacegen/model_queries.h"

#include "support/check.h"

namespace sculpt::spacegen {

using spacedsl::ChoiceId;
using spacedsl::SetId;

// The model's comparison operators are the runtime's, in the same order: the runtime's
// negation and mirror serve the generator too.
static_assert(static_cast<int>(spacedsl::CompareOp::Lt) == static_cast<int>(CompareOp::Lt) &&
              static_cast<int>(spacedsl::CompareOp::Le) == static_cast<int>(CompareOp::Le) &&
              static_cast<int>(spacedsl::CompareOp::Gt) == static_cast<int>(CompareOp::Gt) &&
              static_cast<int>(spacedsl::CompareOp::Ge) == static_cast<int>(CompareOp::Ge) &&
              static_cast<int>(spacedsl::CompareOp::Eq) == static_cast<int>(CompareOp::Eq) &&
              static_cast<int>(spacedsl::CompareOp::Ne) == static_cast<int>(CompareOp::Ne));

spacedsl::CompareOp negated_op(spacedsl::CompareOp op) {
  return static_cast<spacedsl::CompareOp>(negate(static_cast<CompareOp>(op)));
}

spacedsl::CompareOp mirrored_op(spacedsl::CompareOp op) {
  return static_cast<spacedsl::CompareOp>(mirror(static_cast<CompareOp>(op)));
}

SetId ModelQueries::effective_set(SetId s) const {
  while (is_quotient(s)) s = m_.quotients[*m_.sets[s].quotient].vars.back().set;
  return s;
}

SetId ModelQueries::membership_set(SetId s) const {
  s = effective_set(s);
  while (is_parametric(s)) s = effective_set(*m_.sets[s].superset);
  return s;
}

SetId ModelQueries::root(SetId s) const {
  s = effective_set(s);
  while (m_.sets[s].superset) s = effective_set(*m_.sets[s].superset);
  return s;
}

bool ModelQueries::ranked(SetId s) const {
  while (m_.sets[s].all_ids.empty()) {
    if (!m_.sets[s].superset) return false;
    s = effective_set(*m_.sets[s].superset);
  }
  return true;
}

std::uint64_t ModelQueries::full_mask(ChoiceId c) const {
  std::size_t n = num_values(c);
  return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
}

std::uint64_t ModelQueries::value_bit(ChoiceId c, const std::string& name) const {
  const auto& values = m_.choices[c].values;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].name == name) return std::uint64_t{1} << i;
  }
  SCULPT_CHECK(false) << "choice " << cname(c) << " has no value " << name;
  return 0;
}

bool ModelQueries::same_values(ChoiceId from, ChoiceId to) const {
  if (from == to) return true;
  bool same = num_values(from) == num_values(to);
  for (std::size_t i = 0; same && i < num_values(from); ++i) {
    same = m_.choices[from].values[i].name == m_.choices[to].values[i].name;
  }
  return same;
}

ValueSet ModelQueries::flip_values(ChoiceId c, ValueSet values) const {
  if (!antisymmetric(c)) return values;
  ValueSet out = 0;
  for (std::size_t v = 0; v < num_values(c); ++v) {
    if ((values >> v) & 1) out |= ValueSet{1} << involution_of(c, v);
  }
  return out;
}

std::size_t ModelQueries::involution_of(ChoiceId c, std::size_t v) const {
  const auto& map = m_.choices[c].antisymmetric_map;
  return v < map.size() ? map[v] : v;
}

}  // namespace sculpt::spacegen
