#pragma once
// What the resolver's passes share (resolver.cpp runs them in turn): the model they build, the
// errors they find, where each declaration came from, and the lookups of names, variables, host
// code and conditions that several passes make.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "spacedsl/ast.h"
#include "spacedsl/diagnostics.h"
#include "spacedsl/model.h"
#include "spacedsl/resolver.h"
#include "spacedsl/source_file.h"

namespace sculpt::spacedsl::resolver {

/// The host fields of a set, in the order they are listed in messages.
inline constexpr std::array<std::string_view, 10> kHostFields = {
    "type",     "id_type",       "iterator",   "item_getter", "id_getter",
    "new_objs", "from_superset", "add_to_set", "capacity",    "all_ids"};

/// The member holding a host field of a set (const or not), nullptr for an unknown field.
template <typename S>
auto host_field(S& set, std::string_view field) -> decltype(&set.type) {
  if (field == "type") return &set.type;
  if (field == "id_type") return &set.id_type;
  if (field == "iterator") return &set.iterator;
  if (field == "item_getter") return &set.item_getter;
  if (field == "id_getter") return &set.id_getter;
  if (field == "new_objs") return &set.new_objs;
  if (field == "from_superset") return &set.from_superset;
  if (field == "add_to_set") return &set.add_to_set;
  if (field == "capacity") return &set.capacity;
  if (field == "all_ids") return &set.all_ids;
  return nullptr;
}

inline ValueSet all_values(std::size_t count) {
  return count >= 64 ? ~ValueSet{0} : (ValueSet{1} << count) - 1;
}

/// The variables bound where a condition or host code appears; VarId = index.
struct Scope {
  std::vector<Variable> vars;

  std::optional<VarId> find(std::string_view name) const {
    for (std::size_t i = 0; i < vars.size(); ++i) {
      if (vars[i].name == name) return i;
    }
    return std::nullopt;
  }
};

/// The declaration of a set: a `set` or a `quotient`, which share their header and fields.
struct SetSource {
  const SourceFile* file;
  const ast::SetDecl* set = nullptr;
  const ast::QuotientDecl* quotient = nullptr;

  const ast::Name& name() const { return set ? set->name : quotient->name; }
  const boost::optional<ast::VarDecl>& param() const { return set ? set->param : quotient->param; }
  const std::vector<ast::SetField>& fields() const { return set ? set->fields : quotient->fields; }
};
/// The declaration of a choice: a `choice`, or the `repr` choice a `quotient` defines.
struct ChoiceSource {
  const SourceFile* file;
  const ast::ChoiceDecl* decl = nullptr;
  const ast::QuotientDecl* quotient = nullptr;
};
template <typename Decl>
struct ItemSource {
  const SourceFile* file;
  const Decl* decl;
};

/// `line:column` of an earlier declaration, with its file when it is another one.
std::string where(const SourceFile& here, const SourceLocation& l);
/// The `///` lines right above the line of `offset`, without the slashes.
std::string doc_above(const SourceFile& file, std::size_t offset);
/// The values a value or alias of `choice` named `name` stands for.
std::optional<ValueSet> value_bits(const Choice& choice, const std::string& name);

/// One run of the resolver: the passes fill `model` and `found` in turn.
struct State {
  explicit State(const std::vector<ParsedFile>& parsed) : files(parsed) {}

  SourceLocation loc(const SourceFile& file, std::size_t offset) const {
    return file.location(offset);
  }
  void error(const SourceFile& file, std::size_t offset, std::string message);

  // Lookups that report what they cannot find (resolve_state.cpp).
  std::optional<SetId> find_set(const SourceFile& file, const ast::Name& name);
  std::optional<ChoiceId> find_choice(const SourceFile& file, const ast::Name& name);
  /// Whether every object of `sub` is in `super` (following `subsetof`; cycles are broken
  /// before this is used).
  bool is_subset(SetId sub, SetId super) const;
  /// Binds `$x in S[($p)]` at the end of `scope`; false (after an error) when it cannot.
  bool declare_var(const SourceFile& file, const ast::VarDecl& decl, Scope& scope);
  /// Binds a list of declarations (arguments or `forall` heads) after those of `scope`.
  bool declare_vars(const SourceFile& file, const std::vector<ast::VarDecl>& decls, Scope& scope);
  std::optional<VarId> use_var(const SourceFile& file, const ast::VarRef& ref, const Scope& scope);
  /// Decodes host code after checking that each `$name` in it is bound (or one of the
  /// `reserved` names, `$fun` always).
  std::string code(const SourceFile& file, const ast::HostCode& host, const Scope& scope,
                   const std::vector<std::string_view>& reserved = {});
  /// `choice($a, $b)`: the choice, its arity and the sets of the arguments.
  std::optional<ChoiceInstance> instance(const SourceFile& file, const ast::ChoiceRef& ref,
                                         const Scope& scope);
  /// The values named in `is V1 | ALIAS ...` of an enum choice.
  std::optional<ValueSet> value_set(const SourceFile& file, ChoiceId id,
                                    const std::vector<ast::Name>& names);

  // Conditions and constraints (resolve_conditions.cpp).
  std::optional<Condition> condition(const SourceFile& file, const ast::Condition& syntax,
                                     const Scope& scope);
  std::vector<Condition> conditions(const SourceFile& file,
                                    const std::vector<ast::Condition>& syntax, const Scope& scope);
  /// `forall ...: clauses` on top of `scope`; `prefix` (if any) is or-ed into every clause.
  std::optional<Constraint> constraint(const SourceFile& file, const ast::Requirement& body,
                                       Scope scope, const std::optional<Condition>& prefix);

  const std::vector<ParsedFile>& files;
  Diagnostics found;  // the passes' errors, in the order the checks found them
  Model model;
  std::unordered_map<std::string, SetId> set_ids;
  std::unordered_map<std::string, ChoiceId> choice_ids;
  std::vector<bool> parametric;
  std::vector<std::size_t> depth;  // of each set under its root, once cycles are broken
  std::vector<bool> cut;           // sets whose `subsetof` was dropped after an error
  std::vector<SetSource> set_sources;
  std::vector<ChoiceSource> choice_sources;
  std::vector<ItemSource<ast::RequireDecl>> require_items;
  std::vector<ItemSource<ast::TriggerDecl>> trigger_items;
  std::vector<Constraint> lowered;  // from `requires`, appended after the `require`s
};

// The passes, in the order resolve() runs them; each reads what the ones before it resolved.
/// Names, ids and doc comments of sets, quotients and choices; the `require`s and triggers
/// (resolve_declarations.cpp).
void collect_declarations(State& s);
/// Parameters, supersets and quotients' element variables; then host fields, `disjoint` and
/// `reverse` (resolve_sets.cpp).
void resolve_set_headers(State& s);
void resolve_set_fields(State& s);
/// `subsetof` cycles and depths, `disjoint` against sub- and supersets, inherited and missing
/// fields (resolve_set_hierarchy.cpp).
void check_superset_cycles(State& s);
void compute_set_depths(State& s);
void check_disjoint(State& s);
void inherit_fields(State& s);
/// Arguments, values and aliases of choices (resolve_choice_signatures.cpp).
void resolve_choice_signatures(State& s);
/// Quotients' conditions and equivalences (resolve_quotients.cpp).
void resolve_quotients(State& s);
/// Enum properties and `requires`, integer universes, counters (resolve_choice_bodies.cpp).
void resolve_choice_bodies(State& s);
/// `require`s and triggers (resolve_items.cpp).
void resolve_items(State& s);
/// Counters that count themselves, once everything else resolved (resolve_choice_bodies.cpp).
void check_counter_cycles(State& s);

}  // namespace sculpt::spacedsl::resolver
