// Pass: the condition and the equivalence of each quotient.
#include "spacedsl/resolve_state.h"

namespace sculpt::spacedsl::resolver {

void resolve_quotients(State& s) {
  for (SetId id = 0; id < s.set_sources.size(); ++id) {
    const SetSource& source = s.set_sources[id];
    if (!source.quotient || !s.model.sets[id].quotient) continue;
    const ast::QuotientDecl& decl = *source.quotient;
    const SourceFile& file = *source.file;
    Quotient& quotient = s.model.quotients[*s.model.sets[id].quotient];
    if (quotient.vars.empty()) continue;  // the element variable did not resolve
    Scope scope{quotient.vars};
    quotient.condition = s.conditions(file, decl.condition, scope);
    for (const Condition& c : quotient.condition) {
      bool reads_repr =
          (c.kind != Condition::Kind::Code && c.kind != Condition::Kind::Constant) &&
          (c.lhs.choice == quotient.repr_choice ||
           ((c.kind == Condition::Kind::ChoiceEqual || c.kind == Condition::Kind::ChoiceNotEqual ||
             c.kind == Condition::Kind::CompareChoices) &&
            c.rhs.choice == quotient.repr_choice));
      if (reads_repr) {
        s.found.error(c.loc,
                      "the condition of quotient '" + decl.name.text + "' cannot use '" +
                          decl.repr.text + "', the choice it defines",
                      file.line_view(c.loc.line));
      }
    }
    std::optional<ChoiceId> equiv = s.find_choice(file, decl.equivalence);
    if (!equiv) continue;
    const Choice& choice = s.model.choices[*equiv];
    SetId element = quotient.vars.back().set;
    if (choice.kind != ChoiceKind::Enum || choice.args.size() != 2 ||
        choice.args[0].set != choice.args[1].set || !s.is_subset(element, choice.args[0].set)) {
      s.error(file, decl.equivalence.offset,
              "the equivalence of a quotient must be an enum choice over two objects of '" +
                  s.model.sets[element].name + "' or of one of its supersets");
      continue;
    }
    quotient.equivalence = *equiv;
    if (auto values = s.value_set(file, *equiv, decl.equivalence_values)) {
      quotient.equivalence_values = *values;
    }
  }
}

}  // namespace sculpt::spacedsl::resolver
