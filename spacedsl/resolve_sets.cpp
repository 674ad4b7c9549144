// Passes: the header of each set (its parameter, superset and, for a quotient, the element
// variable), then its fields.
#include <algorithm>
#include <utility>

#include "spacedsl/resolve_state.h"

namespace sculpt::spacedsl::resolver {
namespace {

/// The `$` names host code may use in a set field besides `$fun` and the set's parameter.
std::vector<std::string_view> field_names_in_scope(std::string_view field) {
  if (field == "item_getter") return {"id"};
  if (field == "id_getter" || field == "from_superset" || field == "add_to_set") return {"item"};
  if (field == "new_objs") return {"new"};
  return {};
}

}  // namespace

void resolve_set_headers(State& s) {
  for (SetId id = 0; id < s.set_sources.size(); ++id) {
    const SetSource& source = s.set_sources[id];
    const SourceFile& file = *source.file;
    Set& set = s.model.sets[id];
    const auto& param = source.param();
    Scope scope;
    if (param && s.declare_var(file, *param, scope)) set.parameter = scope.vars.front();
    if (source.set) {
      if (source.set->superset) set.superset = s.find_set(file, *source.set->superset);
    } else if (s.declare_var(file, source.quotient->element, scope)) {
      set.superset = scope.vars.back().set;
      Quotient& quotient = s.model.quotients[*set.quotient];
      quotient.vars = scope.vars;
      s.model.choices[quotient.repr_choice].args = std::move(scope.vars);
    }
  }
}

void resolve_set_fields(State& s) {
  for (SetId id = 0; id < s.set_sources.size(); ++id) {
    const SetSource& source = s.set_sources[id];
    const SourceFile& file = *source.file;
    Set& set = s.model.sets[id];
    Scope scope;
    if (set.parameter) scope.vars.push_back(*set.parameter);
    std::vector<std::string> seen;
    bool has_disjoint = false;
    for (const ast::SetField& field : source.fields()) {
      if (const auto* host = boost::get<ast::HostField>(&field)) {
        const std::string& name = host->field.text;
        std::string* target = host_field(set, name);
        if (!target) {
          std::string list;
          for (std::string_view f : kHostFields)
            list += (list.empty() ? "" : ", ") + std::string(f);
          s.error(file, host->field.offset,
                  "unknown set field '" + name + "' (fields: " + list + ")");
          continue;
        }
        if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
          s.error(file, host->field.offset, "field '" + name + "' is set twice");
          continue;
        }
        seen.push_back(name);
        // Instances over parametric and quotient sets live over their plain superset.
        if (name == "all_ids" && (set.parameter || set.quotient)) {
          s.error(file, host->field.offset,
                  std::string("'all_ids' is for plain sets, not ") +
                      (set.parameter ? "parametric" : "quotient") + " ones");
          continue;
        }
        *target = s.code(file, host->code, scope, field_names_in_scope(name));
      } else if (const auto* disjoint = boost::get<ast::DisjointField>(&field)) {
        if (has_disjoint) {
          s.error(file, disjoint->offset, "'disjoint' is given twice");
          continue;
        }
        has_disjoint = true;
        for (const ast::Name& other : disjoint->sets) {
          std::optional<SetId> other_id = s.find_set(file, other);
          if (!other_id) continue;
          if (*other_id == id) {
            s.error(file, other.offset, "set '" + other.text + "' cannot be disjoint from itself");
          } else {
            set.disjoint.push_back(*other_id);
          }
        }
      } else {
        const auto& reverse = boost::get<ast::ReverseField>(field);
        if (!set.parameter) {
          s.error(file, reverse.offset, "'reverse' is only for parametric sets");
          continue;
        }
        if (set.reverse) {
          s.error(file, reverse.offset, "'reverse' is given twice");
          continue;
        }
        Scope member;
        if (!s.declare_var(file, reverse.var, member)) continue;
        std::string text = s.code(file, reverse.code, member);
        set.reverse = ReverseField{member.vars[0].name, member.vars[0].set, std::move(text)};
      }
    }
  }
}

}  // namespace sculpt::spacedsl::resolver
