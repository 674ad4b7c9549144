// Pass: what conditions elsewhere need of each choice, its arguments, values and aliases.
#include <utility>

#include "spacedsl/resolve_state.h"

namespace sculpt::spacedsl::resolver {
namespace {

constexpr std::size_t kMaxEnumValues = 64;

const std::vector<ast::VarDecl>& args_of(const ast::ChoiceDecl& decl) {
  if (const auto* e = boost::get<ast::EnumChoice>(&decl)) return e->args;
  if (const auto* i = boost::get<ast::IntegerChoice>(&decl)) return i->args;
  return boost::get<ast::CounterChoice>(decl).args;
}

}  // namespace

void resolve_choice_signatures(State& s) {
  for (ChoiceId id = 0; id < s.model.choices.size(); ++id) {
    const ChoiceSource& source = s.choice_sources[id];
    if (!source.decl) continue;
    const SourceFile& file = *source.file;
    Scope scope;
    s.declare_vars(file, args_of(*source.decl), scope);
    Choice& choice = s.model.choices[id];
    choice.args = std::move(scope.vars);
    const auto* e = boost::get<ast::EnumChoice>(source.decl);
    if (!e) continue;
    for (const ast::EnumItem& item : e->items) {
      const auto* value = boost::get<ast::ValueDecl>(&item);
      if (!value) continue;
      if (value_bits(choice, value->name.text)) {
        s.error(file, value->name.offset,
                "value '" + value->name.text + "' is declared twice in '" + choice.name + "'");
      } else if (choice.values.size() == kMaxEnumValues) {
        s.error(file, value->name.offset, "choice '" + choice.name + "' has more than 64 values");
      } else {
        choice.values.push_back(
            {value->name.text, doc_above(file, value->offset), s.loc(file, value->name.offset)});
      }
    }
    for (const ast::EnumItem& item : e->items) {
      const auto* alias = boost::get<ast::AliasDecl>(&item);
      if (!alias) continue;
      std::optional<ValueSet> values;
      if (value_bits(choice, alias->name.text)) {
        s.error(file, alias->name.offset,
                "alias '" + alias->name.text + "' has the name of a value or alias of '" +
                    choice.name + "'");
        continue;
      }
      values = s.value_set(file, id, alias->values);
      if (!values) continue;
      choice.aliases.push_back({alias->name.text, doc_above(file, alias->offset), *values,
                                s.loc(file, alias->name.offset)});
    }
  }
}

}  // namespace sculpt::spacedsl::resolver
