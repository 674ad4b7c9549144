// Pass: the `require`s, then the constraints lowered from `requires`, then the triggers.
#include <utility>

#include "spacedsl/resolve_state.h"

namespace sculpt::spacedsl::resolver {

void resolve_items(State& s) {
  for (const auto& [file, decl] : s.require_items) {
    if (auto c = s.constraint(*file, decl->body, Scope{}, std::nullopt)) {
      c->doc = doc_above(*file, decl->offset);
      c->loc = s.loc(*file, decl->offset);
      s.model.constraints.push_back(std::move(*c));
    }
  }
  for (Constraint& c : s.lowered) s.model.constraints.push_back(std::move(c));
  for (const auto& [file, decl] : s.trigger_items) {
    Scope scope;
    bool ok = s.declare_vars(*file, decl->forall, scope);
    if (!ok) continue;
    Trigger trigger;
    trigger.code = s.code(*file, decl->code, scope);
    trigger.conditions = s.conditions(*file, decl->conditions, scope);
    trigger.doc = doc_above(*file, decl->offset);
    trigger.loc = s.loc(*file, decl->offset);
    trigger.vars = std::move(scope.vars);
    s.model.triggers.push_back(std::move(trigger));
  }
}

}  // namespace sculpt::spacedsl::resolver
