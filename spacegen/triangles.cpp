// Triangle shapes (see TriangleShape): the support tables whose wake-ups scan every third
// object 64 at a time, and the choices whose stores must keep the scan's rows current.
#include "spacegen/passes.h"

namespace sculpt::spacegen {

namespace {

using spacedsl::ChoiceId;
using spacedsl::VarId;

std::optional<TriangleShape> triangle_shape(const ModelQueries& q, const Plan& plan, std::size_t i,
                                            std::size_t k) {
  const std::optional<SupportTable>& table = plan.supports[i];
  const Item& item = plan.constraints[i];
  if (!table || table->patterns.size() != 3 || item.vars.size() != 3) return std::nullopt;
  const std::vector<Pattern>& ps = table->patterns;
  const ChoiceId c = ps[k].choice;
  const auto& args = q.model().choices[c].args;
  if (!q.triangular(c) || q.num_values(c) > 8 || q.ranked(q.membership_set(args[0].set))) {
    return std::nullopt;
  }
  for (std::size_t p = 0; p < 3; ++p) {
    if (ps[p].choice != c) return std::nullopt;
  }
  const VarId x = ps[k].args[0];
  const VarId y = ps[k].args[1];
  TriangleShape shape{{}, {}, VarId(3 - x - y)};
  if (q.is_parametric(q.effective_set(item.vars[shape.third].set))) return std::nullopt;
  for (VarId v : {x, y}) {
    if (q.effective_set(item.vars[v].set) != q.membership_set(args[0].set)) return std::nullopt;
  }
  for (std::size_t e = 0; e < 2; ++e) {
    const VarId end = e == 0 ? x : y;
    bool found = false;
    for (std::size_t p = 0; p < 3 && !found; ++p) {
      const std::vector<VarId>& a = ps[p].args;
      if (a == std::vector<VarId>{end, shape.third} || a == std::vector<VarId>{shape.third, end}) {
        shape.sides[e] = p;
        shape.flipped[e] = a[0] == shape.third;
        found = true;
      }
    }
    if (!found) return std::nullopt;
  }
  return shape;
}

}  // namespace

void plan_triangles(const ModelQueries& q, Plan& plan) {
  plan.scanned_as_triangle.assign(q.model().choices.size(), false);
  for (std::size_t i = 0; i < plan.constraints.size(); ++i) {
    plan.triangles.emplace_back(plan.patterns[i].size());
    for (std::size_t k : plan.woken_patterns[i]) {
      plan.triangles[i][k] = triangle_shape(q, plan, i, k);
      if (plan.triangles[i][k]) plan.scanned_as_triangle[plan.patterns[i][k].choice] = true;
    }
  }
}

}  // namespace sculpt::spacegen
