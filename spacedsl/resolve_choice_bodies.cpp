// Passes: what a choice declares beyond its signature (enum properties and `requires`, integer
// universes, counters), and, once everything else resolved, counters counting themselves.
#include <utility>

#include "spacedsl/resolve_state.h"

namespace sculpt::spacedsl::resolver {
namespace {

/// Symmetric and antisymmetric choices relate two objects of the same set.
bool check_pair(State& s, const SourceFile& file, std::size_t offset, const Choice& choice,
                std::string_view what) {
  if (choice.args.size() == 2 && choice.args[0].set == choice.args[1].set) return true;
  s.error(file, offset,
          std::string(what) + " choice takes exactly two arguments from the same set");
  return false;
}

void resolve_antisymmetric(State& s, const SourceFile& file, Choice& choice,
                           const ast::Antisymmetric& decl) {
  std::size_t n = choice.values.size();
  std::vector<std::optional<std::size_t>> map(n);
  std::vector<bool> explicit_source(n, false);
  auto index = [&](const ast::Name& name) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < n; ++i) {
      if (choice.values[i].name == name.text) return i;
    }
    s.error(file, name.offset,
            "'" + name.text + "' is not a value of choice '" + choice.name + "'");
    return std::nullopt;
  };
  for (const ast::Mapping& mapping : decl.mappings) {
    std::optional<std::size_t> from = index(mapping.from);
    std::optional<std::size_t> to = index(mapping.to);
    if (!from || !to) continue;
    if (map[*from] == to) continue;  // restates the completion of an earlier mapping
    bool ok = true;
    for (auto [value, name] : {std::pair{*from, &mapping.from}, std::pair{*to, &mapping.to}}) {
      if (!map[value] || !ok) continue;
      if (explicit_source[value] || *map[value] == value) {
        s.error(file, name->offset, "value '" + name->text + "' is mapped twice");
      } else {
        s.error(file, mapping.offset,
                "mapping '" + mapping.from.text + " -> " + mapping.to.text +
                    "' breaks the involution: '" + name->text + "' already maps to '" +
                    choice.values[*map[value]].name + "'");
      }
      ok = false;
    }
    if (!ok) continue;
    map[*from] = *to;
    map[*to] = *from;
    explicit_source[*from] = true;
  }
  choice.antisymmetric_map.resize(n);
  for (std::size_t i = 0; i < n; ++i) choice.antisymmetric_map[i] = map[i].value_or(i);
}

void resolve_enum(State& s, const SourceFile& file, ChoiceId id, const ast::EnumChoice& decl) {
  Choice& choice = s.model.choices[id];
  const ast::Antisymmetric* antisymmetric = nullptr;
  for (const ast::EnumItem& item : decl.items) {
    if (const auto* sym = boost::get<ast::Symmetric>(&item)) {
      if (choice.symmetric) {
        s.error(file, sym->offset, "'symmetric' is given twice");
      } else if (check_pair(s, file, sym->offset, choice, "a symmetric")) {
        choice.symmetric = true;
      }
    } else if (const auto* anti = boost::get<ast::Antisymmetric>(&item)) {
      if (antisymmetric) {
        s.error(file, anti->offset, "'antisymmetric' is given twice");
      } else {
        antisymmetric = anti;
      }
    }
  }
  if (antisymmetric) {
    if (choice.symmetric) {
      s.error(file, antisymmetric->offset, "a choice cannot be both symmetric and antisymmetric");
    } else if (check_pair(s, file, antisymmetric->offset, choice, "an antisymmetric")) {
      resolve_antisymmetric(s, file, choice, *antisymmetric);
    }
  }
  if (choice.values.empty())
    s.error(file, decl.name.offset, "choice '" + choice.name + "' has no value");
  Scope scope{choice.args};
  std::vector<VarId> self(choice.args.size());
  for (VarId i = 0; i < self.size(); ++i) self[i] = i;
  for (const ast::EnumItem& item : decl.items) {
    const std::vector<ast::Requirement>* reqs = nullptr;
    const ast::Name* name = nullptr;
    if (const auto* value = boost::get<ast::ValueDecl>(&item)) {
      reqs = &value->requires_;
      name = &value->name;
    } else if (const auto* alias = boost::get<ast::AliasDecl>(&item)) {
      reqs = &alias->requires_;
      name = &alias->name;
    } else {
      continue;
    }
    std::optional<ValueSet> values = value_bits(choice, name->text);
    if (!values || reqs->empty()) continue;
    // `c($args) is V requires X` is the clause `c($args) is not V || X`.
    Condition guard;
    guard.kind = Condition::Kind::Is;
    guard.loc = s.loc(file, name->offset);
    guard.lhs = ChoiceInstance{id, self, guard.loc};
    guard.values = ~*values & all_values(choice.values.size());
    for (const ast::Requirement& req : *reqs) {
      std::optional<Constraint> lowered = s.constraint(file, req, scope, guard);
      if (!lowered) continue;
      lowered->doc = "requires of " + choice.name + " = " + name->text;
      s.lowered.push_back(std::move(*lowered));
    }
  }
}

std::size_t offset_of(const ast::Condition& c) {
  return boost::apply_visitor([](const auto& node) { return node.offset; }, c);
}

void resolve_counter(State& s, const SourceFile& file, ChoiceId id,
                     const ast::CounterChoice& decl) {
  Choice& choice = s.model.choices[id];
  Counter counter;
  counter.op = decl.op == "sum"   ? CounterOp::Sum
               : decl.op == "mul" ? CounterOp::Mul
                                  : CounterOp::Max;
  counter.half = decl.half;
  counter.loc = s.loc(file, decl.offset);
  Scope scope{choice.args};
  bool ok = s.declare_vars(file, decl.forall, scope);
  if (!ok) return;
  counter.forall.assign(scope.vars.begin() + static_cast<std::ptrdiff_t>(choice.args.size()),
                        scope.vars.end());
  if (const auto* host = boost::get<ast::HostCode>(&decl.value)) {
    counter.value.code = s.code(file, *host, scope);
  } else {
    const auto& ref = boost::get<ast::ChoiceRef>(decl.value);
    counter.value.choice = s.instance(file, ref, scope);
    if (counter.value.choice) {
      const Choice& value = s.model.choices[counter.value.choice->choice];
      if (value.kind == ChoiceKind::Enum) {
        s.error(file, ref.name.offset,
                "a counter counts host code, an integer choice or a counter; '" + value.name +
                    "' is an enum choice");
      }
    }
  }
  for (const ast::Condition& syntax : decl.when) {
    std::optional<Condition> c = s.condition(file, syntax, scope);
    if (!c) continue;
    if (c->kind != Condition::Kind::Is && c->kind != Condition::Kind::Code) {
      s.error(file, offset_of(syntax),
              "a counter's 'when' takes 'choice is VALUES' conditions and host-code filters "
              "only");
      continue;
    }
    counter.when.push_back(std::move(*c));
  }
  s.model.choices[id].counter = std::move(counter);
}

std::string_view source_line(const State& s, const SourceLocation& l) {
  for (const ParsedFile& f : s.files) {
    if (f.source->name() == l.file) return f.source->line_view(l.line);
  }
  return {};
}

}  // namespace

void resolve_choice_bodies(State& s) {
  for (ChoiceId id = 0; id < s.model.choices.size(); ++id) {
    const ChoiceSource& source = s.choice_sources[id];
    if (!source.decl) continue;
    if (const auto* e = boost::get<ast::EnumChoice>(source.decl)) {
      resolve_enum(s, *source.file, id, *e);
    } else if (const auto* i = boost::get<ast::IntegerChoice>(source.decl)) {
      Scope scope{s.model.choices[id].args};
      s.model.choices[id].universe = s.code(*source.file, i->universe, scope);
    } else {
      resolve_counter(s, *source.file, id, boost::get<ast::CounterChoice>(*source.decl));
    }
  }
}

/// A counter may not count itself, directly or through other counters.
void check_counter_cycles(State& s) {
  if (s.found.has_errors()) return;
  std::size_t n = s.model.choices.size();
  std::vector<int> state(n, 0);  // 0 unvisited, 1 on the path, 2 done
  for (ChoiceId root = 0; root < n; ++root) {
    if (state[root] != 0 || s.model.choices[root].kind != ChoiceKind::Counter) continue;
    std::vector<ChoiceId> path{root};
    state[root] = 1;
    while (!path.empty()) {
      ChoiceId current = path.back();
      const auto& value = s.model.choices[current].counter->value.choice;
      std::optional<ChoiceId> next;
      if (value && s.model.choices[value->choice].kind == ChoiceKind::Counter) {
        next = value->choice;
      }
      if (next && state[*next] == 1) {
        const Choice& c = s.model.choices[current];
        s.found.error(c.counter->value.choice->loc,
                      "counter '" + c.name + "' depends on itself through its value",
                      source_line(s, c.counter->value.choice->loc));
        state[current] = 2;
        path.pop_back();
      } else if (next && state[*next] == 0) {
        state[*next] = 1;
        path.push_back(*next);
      } else {
        state[current] = 2;
        path.pop_back();
      }
    }
  }
}

}  // namespace sculpt::spacedsl::resolver
