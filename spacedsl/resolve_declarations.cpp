// Pass: every set, quotient and choice gets its id, name, location and doc comment, and the
// `require`s and triggers are listed for the later passes. A name declared twice is an error.
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "spacedsl/resolve_state.h"

namespace sculpt::spacedsl::resolver {
namespace {

/// Gives `name` the id `id` in `ids`; a name `ids` has already is an error, which says where
/// the first `what` of that name (among `declared`) is.
template <typename Id, typename Declared>
void claim_name(State& s, const SourceFile& file, const ast::Name& name, Id id,
                std::unordered_map<std::string, Id>& ids, const char* what,
                const std::vector<Declared>& declared) {
  auto [it, inserted] = ids.emplace(name.text, id);
  if (!inserted) {
    s.error(file, name.offset,
            std::string(what) + " '" + name.text + "' is declared twice (first at " +
                where(file, declared[it->second].loc) + ")");
  }
}

void declare_set(State& s, const SourceFile& file, const ast::Name& name, std::size_t item_offset,
                 bool parametric) {
  SetId id = s.model.sets.size();
  Set set;
  set.name = name.text;
  set.loc = s.loc(file, name.offset);
  set.doc = doc_above(file, item_offset);
  claim_name(s, file, name, id, s.set_ids, "set", s.model.sets);
  s.model.sets.push_back(std::move(set));
  s.parametric.push_back(parametric);
}

void add_choice(State& s, const SourceFile& file, const ast::Name& name, std::size_t item_offset,
                ChoiceKind kind, ChoiceSource source) {
  ChoiceId id = s.model.choices.size();
  Choice choice;
  choice.name = name.text;
  choice.loc = s.loc(file, name.offset);
  choice.doc = doc_above(file, item_offset);
  choice.kind = kind;
  claim_name(s, file, name, id, s.choice_ids, "choice", s.model.choices);
  s.model.choices.push_back(std::move(choice));
  s.choice_sources.push_back(source);
}

void declare_choice(State& s, const SourceFile& file, const ast::ChoiceDecl& decl) {
  ChoiceSource source{&file, &decl, nullptr};
  if (const auto* e = boost::get<ast::EnumChoice>(&decl)) {
    add_choice(s, file, e->name, e->offset, ChoiceKind::Enum, source);
  } else if (const auto* i = boost::get<ast::IntegerChoice>(&decl)) {
    add_choice(s, file, i->name, i->offset, ChoiceKind::Integer, source);
  } else if (const auto* c = boost::get<ast::CounterChoice>(&decl)) {
    add_choice(s, file, c->name, c->offset, ChoiceKind::Counter, source);
  }
}

void declare_quotient(State& s, const SourceFile& file, const ast::QuotientDecl& decl) {
  std::size_t index = s.model.quotients.size();
  SetId set = s.model.sets.size();
  declare_set(s, file, decl.name, decl.offset, decl.param.has_value());
  s.set_sources.push_back({&file, nullptr, &decl});
  s.model.sets[set].quotient = index;
  ChoiceId repr = s.model.choices.size();
  add_choice(s, file, decl.repr, decl.offset, ChoiceKind::Enum, {&file, nullptr, &decl});
  Choice& choice = s.model.choices[repr];
  choice.doc = "Whether the object represents its class in quotient set " + decl.name.text + ".";
  choice.values = {{"FALSE", "", choice.loc}, {"TRUE", "", choice.loc}};
  choice.quotient = index;
  Quotient quotient;
  quotient.set = set;
  quotient.repr_choice = repr;
  quotient.loc = s.loc(file, decl.name.offset);
  s.model.quotients.push_back(std::move(quotient));
}

}  // namespace

void collect_declarations(State& s) {
  for (const ParsedFile& parsed : s.files) {
    const SourceFile& file = *parsed.source;
    for (const ast::Item& item : parsed.syntax.items) {
      if (const auto* set = boost::get<ast::SetDecl>(&item)) {
        declare_set(s, file, set->name, set->offset, set->param.has_value());
        s.set_sources.push_back({&file, set, nullptr});
      } else if (const auto* quotient = boost::get<ast::QuotientDecl>(&item)) {
        declare_quotient(s, file, *quotient);
      } else if (const auto* choice = boost::get<ast::ChoiceDecl>(&item)) {
        declare_choice(s, file, *choice);
      } else if (const auto* require = boost::get<ast::RequireDecl>(&item)) {
        s.require_items.push_back({&file, require});
      } else if (const auto* trigger = boost::get<ast::TriggerDecl>(&item)) {
        s.trigger_items.push_back({&file, trigger});
      }
    }
  }
}

}  // namespace sculpt::spacedsl::resolver
