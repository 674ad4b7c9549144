// Support tables (see SupportTable): which constraints get one, the values each pattern keeps
// given the other domains, computed by enumerating the assignments, and the wake classes.
#include <algorithm>
#include <map>
#include <numeric>

#include "spacegen/passes.h"
#include "support/check.h"

namespace sculpt::spacegen {

namespace {

using spacedsl::Condition;
using spacedsl::Variable;
using spacedsl::VarId;
using Kind = spacedsl::Condition::Kind;
using Permutation = std::vector<VarId>;

/// Pattern `p` with its variables renamed by `perm`: the index of the pattern of `ps` it
/// reads and whether it reads it flipped (an antisymmetric choice with swapped arguments).
std::optional<std::pair<std::size_t, bool>> permuted_pattern(const ModelQueries& q,
                                                             const std::vector<Pattern>& ps,
                                                             const Pattern& p,
                                                             const Permutation& perm) {
  Pattern image{p.choice, {}};
  for (VarId v : p.args) image.args.push_back(perm[v]);
  for (std::size_t r = 0; r < ps.size(); ++r) {
    if (ps[r] == image) return std::pair{r, false};
  }
  if (image.args.size() != 2 || !q.triangular(p.choice)) return std::nullopt;
  std::swap(image.args[0], image.args[1]);
  for (std::size_t r = 0; r < ps.size(); ++r) {
    if (ps[r] == image) return std::pair{r, q.antisymmetric(p.choice)};
  }
  return std::nullopt;
}

/// Whether the item reads two or three enum instances and nothing else, with small enough
/// tables.
bool qualifies(const ModelQueries& q, const Item& item, const std::vector<Pattern>& ps) {
  for (const auto& clause : item.clauses) {
    for (const Condition& cond : clause) {
      bool enum_only = cond.kind == Kind::Constant ||
                       ((cond.kind == Kind::Is || cond.kind == Kind::ChoiceEqual ||
                         cond.kind == Kind::ChoiceNotEqual) &&
                        q.is_enum(cond.lhs.choice));
      if (!enum_only) return false;
    }
  }
  if (ps.size() < 2 || ps.size() > 3) return false;
  std::size_t total_bits = 0;
  for (const Pattern& p : ps) total_bits += q.num_values(p.choice);
  return std::all_of(ps.begin(), ps.end(), [&](const Pattern& p) {
    return total_bits - q.num_values(p.choice) <= kMaxSupportIndexBits;
  });
}

/// The permutations of the variables under which the constraint is read: the identity, or
/// every permutation when each maps the patterns onto patterns (or their flips); sets
/// `table.symmetric` accordingly.
std::vector<Permutation> read_permutations(const ModelQueries& q, const Item& item,
                                           SupportTable& table) {
  const std::vector<Pattern>& ps = table.patterns;
  std::vector<Permutation> perms{Permutation(item.vars.size())};
  std::iota(perms[0].begin(), perms[0].end(), VarId{0});
  table.symmetric = std::all_of(item.vars.begin(), item.vars.end(), [&](const Variable& v) {
    return v.set == item.vars[0].set && !q.is_parametric(q.effective_set(v.set));
  });
  for (Permutation perm = perms[0];
       table.symmetric && std::next_permutation(perm.begin(), perm.end());) {
    table.symmetric = std::all_of(ps.begin(), ps.end(), [&](const Pattern& p) {
      return permuted_pattern(q, ps, p, perm).has_value();
    });
    perms.push_back(perm);
  }
  if (!table.symmetric) perms.resize(1);
  return perms;
}

/// Every assignment of values to the patterns that satisfies all clauses, under every
/// permutation read.
std::vector<std::vector<std::size_t>> allowed_assignments(const ModelQueries& q, const Item& item,
                                                          const std::vector<Pattern>& ps,
                                                          const std::vector<Permutation>& perms) {
  auto holds = [&](const Condition& cond, const std::vector<std::size_t>& value,
                   const Permutation& perm) {
    auto value_of = [&](const spacedsl::ChoiceInstance& ci) {
      auto [r, flipped] = *permuted_pattern(q, ps, Pattern{ci.choice, ci.args}, perm);
      return flipped ? q.model().choices[ci.choice].antisymmetric_map[value[r]] : value[r];
    };
    if (cond.kind == Kind::Constant) return cond.constant;
    std::size_t l = value_of(cond.lhs);
    if (cond.kind == Kind::Is) return ((cond.values >> l) & 1) != 0;
    const std::string& ln = q.model().choices[cond.lhs.choice].values[l].name;
    const std::string& rn = q.model().choices[cond.rhs.choice].values[value_of(cond.rhs)].name;
    return (ln == rn) == (cond.kind == Kind::ChoiceEqual);
  };
  std::vector<std::vector<std::size_t>> allowed;
  std::vector<std::size_t> value(ps.size(), 0);
  while (true) {
    bool ok = std::all_of(perms.begin(), perms.end(), [&](const Permutation& perm) {
      return std::all_of(item.clauses.begin(), item.clauses.end(), [&](const auto& clause) {
        return std::any_of(clause.begin(), clause.end(),
                           [&](const Condition& c) { return holds(c, value, perm); });
      });
    });
    if (ok) allowed.push_back(value);
    std::size_t i = 0;
    while (i < ps.size() && ++value[i] == q.num_values(ps[i].choice)) value[i++] = 0;
    if (i == ps.size()) break;
  }
  return allowed;
}

/// The table of pattern i: for each index of the other domains, the values of i some allowed
/// assignment within them supports.
std::vector<std::uint64_t> keep_table(const ModelQueries& q, const std::vector<Pattern>& ps,
                                      const std::vector<std::vector<std::size_t>>& allowed,
                                      std::size_t i) {
  std::size_t bits = 0;
  for (std::size_t j = 0; j < ps.size(); ++j) {
    if (j != i) bits += q.num_values(ps[j].choice);
  }
  std::vector<std::uint64_t> keep(std::size_t{1} << bits, 0);
  for (std::size_t index = 0; index < keep.size(); ++index) {
    for (const auto& a : allowed) {
      bool supported = true;
      for (std::size_t j = 0; j < ps.size(); ++j) {
        if (j == i) continue;
        supported = supported && ((index >> (index_shift(q, ps, i, j) + a[j])) & 1) != 0;
      }
      if (supported) keep[index] |= std::uint64_t{1} << a[i];
    }
  }
  return keep;
}

/// The wake classes of pattern k of `table` (see SupportTable::wake_classes).
std::vector<std::uint8_t> wake_classes(const ModelQueries& q, const SupportTable& table,
                                       std::size_t k) {
  const std::vector<Pattern>& ps = table.patterns;
  const std::size_t domains = std::size_t{1} << q.num_values(ps[k].choice);
  // The rows of the tables that read pattern k's domain as `d`, in a fixed order.
  std::vector<std::vector<std::uint64_t>> rows(domains);
  for (std::size_t p = 0; p < ps.size(); ++p) {
    if (p == k) continue;
    const std::size_t shift = index_shift(q, ps, p, k);
    for (std::size_t index = 0; index < table.keep[p].size(); ++index) {
      rows[(index >> shift) & (domains - 1)].push_back(table.keep[p][index]);
    }
  }
  std::map<std::vector<std::uint64_t>, std::uint8_t> ids;
  std::vector<std::uint8_t> classes;
  for (const auto& row : rows) {
    auto [it, inserted] = ids.try_emplace(row, static_cast<std::uint8_t>(ids.size()));
    classes.push_back(it->second);
    SCULPT_CHECK(ids.size() <= 256) << "more than 256 wake classes";
  }
  if (ids.size() == domains) classes.clear();
  return classes;
}

/// The support table of a constraint, when it qualifies (see SupportTable).
std::optional<SupportTable> support_table(const ModelQueries& q, const Item& item) {
  SupportTable table{patterns_of(item), false, {}, {}};
  if (!qualifies(q, item, table.patterns)) return std::nullopt;
  const std::vector<Permutation> perms = read_permutations(q, item, table);
  const auto allowed = allowed_assignments(q, item, table.patterns, perms);
  for (std::size_t i = 0; i < table.patterns.size(); ++i) {
    table.keep.push_back(keep_table(q, table.patterns, allowed, i));
  }
  for (std::size_t k = 0; k < table.patterns.size(); ++k) {
    table.wake_classes.push_back(wake_classes(q, table, k));
  }
  return table;
}

/// The index in pattern p's table of the other patterns' domains.
std::size_t support_index(const ModelQueries& q, const std::vector<Pattern>& ps, std::size_t p,
                          const std::vector<ValueSet>& domain) {
  std::size_t index = 0;
  for (std::size_t j = 0; j < ps.size(); ++j) {
    if (j != p) index |= domain[j] << index_shift(q, ps, p, j);
  }
  return index;
}

}  // namespace

std::size_t index_shift(const ModelQueries& q, const std::vector<Pattern>& ps, std::size_t p,
                        std::size_t j) {
  std::size_t below = 0;
  for (std::size_t k = j + 1; k < ps.size(); ++k) {
    if (k != p) below += q.num_values(ps[k].choice);
  }
  return below;
}

/// As a new object's instances are until a restriction wakes the table, whatever the other
/// domains.
bool inert_at_universe(const ModelQueries& q, const SupportTable& table, VarId v) {
  const std::vector<Pattern>& ps = table.patterns;
  std::vector<std::size_t> others;
  std::vector<ValueSet> domain(ps.size());
  for (std::size_t p = 0; p < ps.size(); ++p) {
    domain[p] = q.full_mask(ps[p].choice);
    if (std::find(ps[p].args.begin(), ps[p].args.end(), v) == ps[p].args.end()) {
      others.push_back(p);
    }
  }
  if (others.size() == ps.size()) return false;
  // Every combination of non-empty domains of the others, as an odometer.
  for (std::size_t p : others) domain[p] = 1;
  while (true) {
    for (std::size_t p = 0; p < ps.size(); ++p) {
      if ((domain[p] & ~table.keep[p][support_index(q, ps, p, domain)]) != 0) return false;
    }
    std::size_t k = 0;
    for (; k < others.size(); ++k) {
      const std::size_t p = others[k];
      if (++domain[p] < ValueSet{1} << q.num_values(ps[p].choice)) break;
      domain[p] = 1;
    }
    if (k == others.size()) return true;
  }
}

void plan_support_tables(const ModelQueries& q, Plan& plan) {
  for (const Item& item : plan.constraints) plan.supports.push_back(support_table(q, item));
}

}  // namespace sculpt::spacegen
