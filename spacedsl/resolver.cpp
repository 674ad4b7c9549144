// The resolver's driver: runs the passes (resolve_state.h) in turn over one state, then hands
// their errors over in source order.
#include "spacedsl/resolver.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "spacedsl/resolve_state.h"

namespace sculpt::spacedsl {
namespace {

using Pass = void (*)(resolver::State&);

/// In this order: each pass reads what the ones before it resolved.
constexpr Pass kPasses[] = {
    resolver::collect_declarations, resolver::resolve_set_headers,
    resolver::resolve_set_fields,   resolver::check_superset_cycles,
    resolver::compute_set_depths,   resolver::check_disjoint,
    resolver::inherit_fields,       resolver::resolve_choice_signatures,
    resolver::resolve_quotients,    resolver::resolve_choice_bodies,
    resolver::resolve_items,        resolver::check_counter_cycles,
};

/// Hands the errors over in source order (files in load order), whatever check found them.
void report_sorted(const resolver::State& s, Diagnostics& diags) {
  auto file_index = [&](const std::string& name) {
    for (std::size_t i = 0; i < s.files.size(); ++i) {
      if (s.files[i].source->name() == name) return i;
    }
    return s.files.size();
  };
  std::vector<Diagnostic> errors = s.found.errors();
  std::stable_sort(errors.begin(), errors.end(), [&](const Diagnostic& a, const Diagnostic& b) {
    return std::tuple(file_index(a.loc.file), a.loc.line, a.loc.column) <
           std::tuple(file_index(b.loc.file), b.loc.line, b.loc.column);
  });
  for (Diagnostic& d : errors) diags.add(std::move(d));
  diags.add_dropped(s.found.dropped());
}

}  // namespace

std::optional<Model> resolve(const std::vector<ParsedFile>& files, Diagnostics& diags) {
  resolver::State s(files);
  for (Pass pass : kPasses) pass(s);
  report_sorted(s, diags);
  if (diags.has_errors()) return std::nullopt;
  return std::move(s.model);
}

}  // namespace sculpt::spacedsl
