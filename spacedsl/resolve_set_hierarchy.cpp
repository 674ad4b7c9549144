// Passes over the `subsetof` relation: cycles and chains too deep are cut, `disjoint` against a
// sub- or superset is refused, and subsets inherit the fields they do not set.
#include <algorithm>
#include <cstdint>

#include "spacedsl/resolve_state.h"

namespace sculpt::spacedsl::resolver {
namespace {

// A bound on the depth of `subsetof` chains, which keeps every walk up a chain cheap on any
// input; real spaces stay far below it.
constexpr std::size_t kMaxSetDepth = 64;

SetId root_of(const State& s, SetId id) {
  while (s.model.sets[id].superset) id = *s.model.sets[id].superset;
  return id;
}

}  // namespace

/// Reports each `subsetof` cycle once, at its set with the lowest id, and breaks it there.
void check_superset_cycles(State& s) {
  s.cut.assign(s.model.sets.size(), false);
  enum class Visit : std::uint8_t { Unvisited, OnPath, Done };
  std::vector<Visit> state(s.model.sets.size(), Visit::Unvisited);
  for (SetId root = 0; root < s.model.sets.size(); ++root) {
    std::vector<SetId> path;
    std::optional<SetId> current = root;
    while (current && state[*current] == Visit::Unvisited) {
      state[*current] = Visit::OnPath;
      path.push_back(*current);
      current = s.model.sets[*current].superset;
    }
    if (current && state[*current] == Visit::OnPath) {
      auto first = std::find(path.begin(), path.end(), *current);
      SetId lowest = *std::min_element(first, path.end());
      const SetSource& source = s.set_sources[lowest];
      s.error(*source.file, source.name().offset,
              "set '" + s.model.sets[lowest].name + "' is its own superset through 'subsetof'");
      s.model.sets[lowest].superset.reset();
      s.cut[lowest] = true;
    }
    for (SetId id : path) state[id] = Visit::Done;
  }
}

/// The depth of each set under its root set. A set deeper than kMaxSetDepth is an error and
/// its `subsetof` is dropped, which bounds every later walk up a chain.
void compute_set_depths(State& s) {
  s.depth.assign(s.model.sets.size(), 0);
  std::vector<bool> known(s.model.sets.size(), false);
  for (SetId id = 0; id < s.model.sets.size(); ++id) {
    std::vector<SetId> chain;
    SetId current = id;
    while (!known[current] && s.model.sets[current].superset) {
      chain.push_back(current);
      current = *s.model.sets[current].superset;
    }
    std::size_t d = known[current] ? s.depth[current] : 0;
    known[current] = true;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (++d > kMaxSetDepth) {
        const SetSource& source = s.set_sources[*it];
        s.error(*source.file, source.name().offset,
                "set '" + s.model.sets[*it].name + "' is nested too deeply (at most " +
                    std::to_string(kMaxSetDepth) + " levels of 'subsetof')");
        s.model.sets[*it].superset.reset();
        s.cut[*it] = true;
        d = 0;
      }
      s.depth[*it] = d;
      known[*it] = true;
    }
  }
}

/// `disjoint` between a set and one of its subsets or supersets would make one of them empty.
void check_disjoint(State& s) {
  for (SetId id = 0; id < s.model.sets.size(); ++id) {
    const SetSource& source = s.set_sources[id];
    for (const ast::SetField& field : source.fields()) {
      const auto* disjoint = boost::get<ast::DisjointField>(&field);
      if (!disjoint) continue;
      for (const ast::Name& other : disjoint->sets) {
        auto it = s.set_ids.find(other.text);
        if (it == s.set_ids.end() || it->second == id) continue;
        if (s.is_subset(id, it->second) || s.is_subset(it->second, id)) {
          s.error(*source.file, other.offset,
                  "'" + s.model.sets[id].name + "' cannot be disjoint from '" + other.text +
                      "': one is a subset of the other");
        }
      }
    }
  }
}

/// Supersets first, then subsets take what they do not set (see model.h).
void inherit_fields(State& s) {
  const std::vector<std::size_t>& depth = s.depth;
  std::vector<SetId> order(s.model.sets.size());
  for (SetId id = 0; id < order.size(); ++id) order[id] = id;
  std::stable_sort(order.begin(), order.end(),
                   [&](SetId a, SetId b) { return depth[a] < depth[b]; });
  for (SetId id : order) {
    Set& set = s.model.sets[id];
    if (!set.superset) continue;
    const Set& super = s.model.sets[*set.superset];
    for (std::string_view field : kHostFields) {
      if (field == "iterator" || field == "from_superset" || field == "all_ids") continue;
      std::string* mine = host_field(set, field);
      if (mine->empty()) *mine = *host_field(super, field);
    }
  }
  for (SetId id = 0; id < s.model.sets.size(); ++id) {
    const Set& set = s.model.sets[id];
    // Below a dropped `subsetof`, missing fields are a consequence of the first error.
    if (s.cut[root_of(s, id)]) continue;
    std::string missing;
    for (std::string_view field :
         {"type", "id_type", "iterator", "item_getter", "id_getter", "capacity"}) {
      if (host_field(set, field)->empty()) {
        missing += (missing.empty() ? "" : ", ") + std::string(field);
      }
    }
    if (set.superset && !set.quotient && set.from_superset.empty()) {
      missing += (missing.empty() ? "" : ", ") + std::string("from_superset");
    }
    if (!missing.empty()) {
      const SetSource& source = s.set_sources[id];
      s.error(*source.file, source.name().offset,
              "set '" + set.name + "' lacks required fields: " + missing);
    }
  }
}

}  // namespace sculpt::spacedsl::resolver
