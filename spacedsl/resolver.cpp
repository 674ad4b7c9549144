#include "spacedsl/resolver.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "spacedsl/lexical.h"
#include "spacedsl/parser.h"

namespace sculpt::spacedsl {
namespace {

constexpr std::size_t kMaxEnumValues = 64;
// Bounds on nesting: quantified variables per item and depth of `subsetof` chains. They keep
// every lookup cheap on any input; real spaces stay far below them.
constexpr std::size_t kMaxVariables = 64;
constexpr std::size_t kMaxSetDepth = 64;

constexpr std::array<std::string_view, 4> kReservedVars = {"fun", "id", "item", "new"};

/// The host fields of a set, in the order they are listed in messages.
constexpr std::array<std::string_view, 10> kHostFields = {
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

/// The `$` names host code may use in a set field besides `$fun` and the set's parameter.
std::vector<std::string_view> field_names_in_scope(std::string_view field) {
  if (field == "item_getter") return {"id"};
  if (field == "id_getter" || field == "from_superset" || field == "add_to_set") return {"item"};
  if (field == "new_objs") return {"new"};
  return {};
}

std::string unescape(const std::string& raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size() && (raw[i + 1] == '"' || raw[i + 1] == '\\')) ++i;
    out += raw[i];
  }
  return out;
}

ValueSet all_values(std::size_t count) {
  return count >= 64 ? ~ValueSet{0} : (ValueSet{1} << count) - 1;
}

std::string_view kind_name(ChoiceKind kind) {
  switch (kind) {
    case ChoiceKind::Enum:
      return "an enum choice";
    case ChoiceKind::Integer:
      return "an integer choice";
    case ChoiceKind::Counter:
      return "a counter";
  }
  return "";
}

CompareOp compare_op(const std::string& op) {
  if (op == "<") return CompareOp::Lt;
  if (op == "<=") return CompareOp::Le;
  if (op == ">") return CompareOp::Gt;
  if (op == ">=") return CompareOp::Ge;
  if (op == "==") return CompareOp::Eq;
  return CompareOp::Ne;
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

class Resolver {
 public:
  Resolver(const std::vector<ParsedFile>& files, Diagnostics& diags)
      : files_(files), diags_(diags) {}

  std::optional<Model> run() {
    declare();
    resolve_set_headers();
    resolve_set_fields();
    check_superset_cycles();
    compute_set_depths();
    check_disjoint();
    inherit_fields();
    resolve_choice_signatures();
    resolve_quotients();
    resolve_choice_bodies();
    resolve_items();
    check_counter_cycles();
    report_sorted();
    if (diags_.has_errors()) return std::nullopt;
    return std::move(model_);
  }

 private:
  struct SetSource {
    const SourceFile* file;
    const ast::SetDecl* set = nullptr;
    const ast::QuotientDecl* quotient = nullptr;
  };
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

  SourceLocation loc(const SourceFile& file, std::size_t offset) const {
    return file.location(offset);
  }
  void error(const SourceFile& file, std::size_t offset, std::string message) {
    report(found_, file, offset, std::move(message));
  }

  /// Hands the errors over in source order (files in load order), whatever check found them.
  void report_sorted() {
    auto file_index = [&](const std::string& name) {
      for (std::size_t i = 0; i < files_.size(); ++i) {
        if (files_[i].source->name() == name) return i;
      }
      return files_.size();
    };
    std::vector<Diagnostic> errors = found_.errors();
    std::stable_sort(errors.begin(), errors.end(), [&](const Diagnostic& a, const Diagnostic& b) {
      return std::tuple(file_index(a.loc.file), a.loc.line, a.loc.column) <
             std::tuple(file_index(b.loc.file), b.loc.line, b.loc.column);
    });
    for (Diagnostic& d : errors) diags_.add(std::move(d));
    diags_.add_dropped(found_.dropped());
  }
  /// `line:column` of an earlier declaration, with its file when it is another one.
  static std::string where(const SourceFile& here, const SourceLocation& l) {
    std::string position = std::to_string(l.line) + ":" + std::to_string(l.column);
    return l.file == here.name() ? position : l.file + ":" + position;
  }

  /// The `///` lines right above the line of `offset`, without the slashes.
  static std::string doc_above(const SourceFile& file, std::size_t offset) {
    int line = file.location(offset).line;
    std::vector<std::string> lines;
    for (int l = line - 1; l >= 1; --l) {
      std::string text = file.line_text(l);
      std::size_t start = text.find_first_not_of(" \t");
      if (start == std::string::npos || text.compare(start, 3, "///") != 0) break;
      start += 3;
      if (start < text.size() && text[start] == ' ') ++start;
      lines.push_back(text.substr(start));
    }
    std::string doc;
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
      if (!doc.empty()) doc += '\n';
      doc += *it;
    }
    return doc;
  }

  // ---- declarations ----

  void declare() {
    for (const ParsedFile& parsed : files_) {
      const SourceFile& file = *parsed.source;
      for (const ast::Item& item : parsed.syntax.items) {
        if (const auto* set = boost::get<ast::SetDecl>(&item)) {
          declare_set(file, set->name, set->offset, set->param.has_value());
          set_sources_.push_back({&file, set, nullptr});
        } else if (const auto* quotient = boost::get<ast::QuotientDecl>(&item)) {
          declare_quotient(file, *quotient);
        } else if (const auto* choice = boost::get<ast::ChoiceDecl>(&item)) {
          declare_choice(file, *choice);
        } else if (const auto* require = boost::get<ast::RequireDecl>(&item)) {
          requires_.push_back({&file, require});
        } else if (const auto* trigger = boost::get<ast::TriggerDecl>(&item)) {
          triggers_.push_back({&file, trigger});
        }
      }
    }
  }

  void declare_set(const SourceFile& file, const ast::Name& name, std::size_t item_offset,
                   bool parametric) {
    SetId id = model_.sets.size();
    Set set;
    set.name = name.text;
    set.loc = loc(file, name.offset);
    set.doc = doc_above(file, item_offset);
    auto [it, inserted] = set_ids_.emplace(name.text, id);
    if (!inserted) {
      error(file, name.offset,
            "set '" + name.text + "' is declared twice (first at " +
                where(file, model_.sets[it->second].loc) + ")");
    }
    model_.sets.push_back(std::move(set));
    parametric_.push_back(parametric);
  }

  void add_choice(const SourceFile& file, const ast::Name& name, std::size_t item_offset,
                  ChoiceKind kind, ChoiceSource source) {
    ChoiceId id = model_.choices.size();
    Choice choice;
    choice.name = name.text;
    choice.loc = loc(file, name.offset);
    choice.doc = doc_above(file, item_offset);
    choice.kind = kind;
    auto [it, inserted] = choice_ids_.emplace(name.text, id);
    if (!inserted) {
      error(file, name.offset,
            "choice '" + name.text + "' is declared twice (first at " +
                where(file, model_.choices[it->second].loc) + ")");
    }
    model_.choices.push_back(std::move(choice));
    choice_sources_.push_back(source);
  }

  void declare_choice(const SourceFile& file, const ast::ChoiceDecl& decl) {
    ChoiceSource source{&file, &decl, nullptr};
    if (const auto* e = boost::get<ast::EnumChoice>(&decl)) {
      add_choice(file, e->name, e->offset, ChoiceKind::Enum, source);
    } else if (const auto* i = boost::get<ast::IntegerChoice>(&decl)) {
      add_choice(file, i->name, i->offset, ChoiceKind::Integer, source);
    } else if (const auto* c = boost::get<ast::CounterChoice>(&decl)) {
      add_choice(file, c->name, c->offset, ChoiceKind::Counter, source);
    }
  }

  void declare_quotient(const SourceFile& file, const ast::QuotientDecl& decl) {
    std::size_t index = model_.quotients.size();
    SetId set = model_.sets.size();
    declare_set(file, decl.name, decl.offset, decl.param.has_value());
    set_sources_.push_back({&file, nullptr, &decl});
    model_.sets[set].quotient = index;
    ChoiceId repr = model_.choices.size();
    add_choice(file, decl.repr, decl.offset, ChoiceKind::Enum, {&file, nullptr, &decl});
    Choice& choice = model_.choices[repr];
    choice.doc = "Whether the object represents its class in quotient set " + decl.name.text + ".";
    choice.values = {{"FALSE", "", choice.loc}, {"TRUE", "", choice.loc}};
    choice.quotient = index;
    Quotient quotient;
    quotient.set = set;
    quotient.repr_choice = repr;
    quotient.loc = loc(file, decl.name.offset);
    model_.quotients.push_back(std::move(quotient));
  }

  // ---- names ----

  std::optional<SetId> find_set(const SourceFile& file, const ast::Name& name) {
    auto it = set_ids_.find(name.text);
    if (it != set_ids_.end()) return it->second;
    error(file, name.offset, "unknown set '" + name.text + "'");
    return std::nullopt;
  }

  std::optional<ChoiceId> find_choice(const SourceFile& file, const ast::Name& name) {
    auto it = choice_ids_.find(name.text);
    if (it != choice_ids_.end()) return it->second;
    error(file, name.offset, "unknown choice '" + name.text + "'");
    return std::nullopt;
  }

  /// Whether every object of `sub` is in `super` (following `subsetof`; cycles are broken
  /// before this is used).
  bool is_subset(SetId sub, SetId super) const {
    for (std::size_t steps = 0; steps <= model_.sets.size(); ++steps) {
      if (sub == super) return true;
      if (!model_.sets[sub].superset) return false;
      sub = *model_.sets[sub].superset;
    }
    return false;
  }

  /// Binds `$x in S[($p)]` at the end of `scope`; false (after an error) when it cannot.
  bool declare_var(const SourceFile& file, const ast::VarDecl& decl, Scope& scope) {
    bool ok = true;
    const std::string& name = decl.var.text;
    if (std::find(kReservedVars.begin(), kReservedVars.end(), name) != kReservedVars.end()) {
      error(file, decl.var.offset, "'$" + name + "' is reserved and cannot be bound");
      ok = false;
    } else if (auto previous = scope.find(name)) {
      error(file, decl.var.offset,
            "variable '$" + name + "' is already bound (at " +
                where(file, scope.vars[*previous].loc) + ")");
      ok = false;
    }
    std::optional<SetId> set = find_set(file, decl.set);
    Variable var{name, set.value_or(0), loc(file, decl.var.offset), std::nullopt};
    if (set) {
      if (parametric_[*set] && !decl.set_arg) {
        error(file, decl.set.offset,
              "set '" + decl.set.text + "' takes a parameter: write '" + decl.set.text + "($p)'");
        ok = false;
      } else if (!parametric_[*set] && decl.set_arg) {
        error(file, decl.set_arg->offset, "set '" + decl.set.text + "' has no parameter");
        ok = false;
      } else if (decl.set_arg) {
        var.set_parameter = use_var(file, *decl.set_arg, scope);
        const auto& param = model_.sets[*set].parameter;
        if (!var.set_parameter) {
          ok = false;
        } else if (param && !is_subset(scope.vars[*var.set_parameter].set, param->set)) {
          error(file, decl.set_arg->offset,
                "the parameter of '" + decl.set.text + "' must be in '" +
                    model_.sets[param->set].name + "', '$" + decl.set_arg->text + "' is in '" +
                    model_.sets[scope.vars[*var.set_parameter].set].name + "'");
          ok = false;
        }
      }
    } else {
      ok = false;
    }
    if (ok) scope.vars.push_back(std::move(var));
    return ok;
  }

  /// Binds a list of declarations (arguments or `forall` heads) after those of `scope`.
  bool declare_vars(const SourceFile& file, const std::vector<ast::VarDecl>& decls, Scope& scope) {
    if (scope.vars.size() + decls.size() > kMaxVariables) {
      error(file, decls[kMaxVariables - std::min(scope.vars.size(), kMaxVariables)].offset,
            "too many variables in one item (at most " + std::to_string(kMaxVariables) + ")");
      return false;
    }
    bool ok = true;
    for (const ast::VarDecl& decl : decls) ok = declare_var(file, decl, scope) && ok;
    return ok;
  }

  std::optional<VarId> use_var(const SourceFile& file, const ast::VarRef& ref, const Scope& scope) {
    if (auto id = scope.find(ref.text)) return id;
    error(file, ref.offset, "unknown variable '$" + ref.text + "'");
    return std::nullopt;
  }

  /// Decodes host code after checking that each `$name` in it is bound (or one of the
  /// `reserved` names, `$fun` always).
  std::string code(const SourceFile& file, const ast::HostCode& host, const Scope& scope,
                   const std::vector<std::string_view>& reserved = {}) {
    const std::string& raw = host.raw;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '$' || i + 1 >= raw.size() || !is_ident_start(raw[i + 1])) continue;
      std::size_t end = i + 1;
      while (end < raw.size() && is_ident_char(raw[end])) ++end;
      std::string_view name(raw.data() + i + 1, end - i - 1);
      bool known = name == "fun" || scope.find(name) ||
                   std::find(reserved.begin(), reserved.end(), name) != reserved.end();
      if (!known) {
        error(file, host.offset + 1 + i,
              "unknown variable '$" + std::string(name) + "' in host code");
      }
      i = end - 1;
    }
    return unescape(raw);
  }

  /// `choice($a, $b)`: the choice, its arity and the sets of the arguments.
  std::optional<ChoiceInstance> instance(const SourceFile& file, const ast::ChoiceRef& ref,
                                         const Scope& scope) {
    std::optional<ChoiceId> id = find_choice(file, ref.name);
    std::vector<VarId> args;
    bool ok = id.has_value();
    for (const ast::VarRef& arg : ref.args) {
      std::optional<VarId> var = use_var(file, arg, scope);
      if (!var) {
        ok = false;
        continue;
      }
      if (std::find(args.begin(), args.end(), *var) != args.end()) {
        error(file, arg.offset,
              "variable '$" + arg.text + "' is passed twice to '" + ref.name.text +
                  "' (the arguments of a choice are distinct objects)");
        ok = false;
      }
      args.push_back(*var);
    }
    if (!ok) return std::nullopt;
    const Choice& choice = model_.choices[*id];
    if (ref.args.size() != choice.args.size()) {
      error(file, ref.name.offset,
            "choice '" + choice.name + "' takes " + std::to_string(choice.args.size()) +
                " argument" + (choice.args.size() == 1 ? "" : "s") + ", not " +
                std::to_string(ref.args.size()));
      return std::nullopt;
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
      SetId have = scope.vars[args[i]].set;
      SetId want = choice.args[i].set;
      if (!is_subset(have, want)) {
        error(file, ref.args[i].offset,
              "argument " + std::to_string(i + 1) + " of '" + choice.name + "' must be in '" +
                  model_.sets[want].name + "', '$" + ref.args[i].text + "' is in '" +
                  model_.sets[have].name + "'");
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return ChoiceInstance{*id, std::move(args), loc(file, ref.offset)};
  }

  /// The values named in `is V1 | ALIAS ...` of an enum choice.
  std::optional<ValueSet> value_set(const SourceFile& file, ChoiceId id,
                                    const std::vector<ast::Name>& names) {
    const Choice& choice = model_.choices[id];
    ValueSet set = 0;
    bool ok = true;
    for (const ast::Name& name : names) {
      std::optional<ValueSet> bits = value_bits(choice, name.text);
      if (!bits) {
        error(file, name.offset,
              "'" + name.text + "' is not a value of choice '" + choice.name + "'");
        ok = false;
        continue;
      }
      set |= *bits;
    }
    if (!ok) return std::nullopt;
    return set;
  }

  static std::optional<ValueSet> value_bits(const Choice& choice, const std::string& name) {
    for (std::size_t i = 0; i < choice.values.size(); ++i) {
      if (choice.values[i].name == name) return ValueSet{1} << i;
    }
    for (const Alias& alias : choice.aliases) {
      if (alias.name == name) return alias.values;
    }
    return std::nullopt;
  }

  static bool same_domain(const Choice& a, const Choice& b) {
    if (a.kind != ChoiceKind::Enum || b.kind != ChoiceKind::Enum) return false;
    return std::equal(a.values.begin(), a.values.end(), b.values.begin(), b.values.end(),
                      [](const EnumValue& x, const EnumValue& y) { return x.name == y.name; });
  }

  // ---- conditions ----

  std::optional<Condition> condition(const SourceFile& file, const ast::Condition& syntax,
                                     const Scope& scope) {
    Condition out;
    if (const auto* host = boost::get<ast::HostCode>(&syntax)) {
      out.kind = Condition::Kind::Code;
      out.loc = loc(file, host->offset);
      out.code = code(file, *host, scope);
      return out;
    }
    if (const auto* constant = boost::get<ast::Constant>(&syntax)) {
      out.kind = Condition::Kind::Constant;
      out.loc = loc(file, constant->offset);
      out.constant = constant->text == "TRUE";
      return out;
    }
    const auto& test = boost::get<ast::ChoiceCondition>(syntax);
    out.loc = loc(file, test.offset);
    std::optional<ChoiceInstance> lhs = instance(file, test.lhs, scope);
    if (const auto* is = boost::get<ast::IsTest>(&test.test)) {
      if (!lhs) return std::nullopt;
      const Choice& choice = model_.choices[lhs->choice];
      if (choice.kind != ChoiceKind::Enum) {
        error(file, test.lhs.name.offset,
              "'is' needs an enum choice, '" + choice.name + "' is " +
                  std::string(kind_name(choice.kind)));
        return std::nullopt;
      }
      std::optional<ValueSet> values = value_set(file, lhs->choice, is->values);
      if (!values) return std::nullopt;
      out.kind = Condition::Kind::Is;
      out.values = is->negated ? (~*values & all_values(choice.values.size())) : *values;
      out.lhs = std::move(*lhs);
      return out;
    }
    const auto& compare = boost::get<ast::CompareTest>(test.test);
    out.op = compare_op(compare.op);
    if (const auto* host = boost::get<ast::HostCode>(&compare.rhs)) {
      std::string text = code(file, *host, scope);
      if (!lhs) return std::nullopt;
      const Choice& choice = model_.choices[lhs->choice];
      if (choice.kind == ChoiceKind::Enum) {
        error(file, compare.offset,
              "'" + compare.op + "' compares integers, '" + choice.name +
                  "' is an enum choice (use 'is')");
        return std::nullopt;
      }
      out.kind = Condition::Kind::CompareCode;
      out.code = std::move(text);
      out.lhs = std::move(*lhs);
      return out;
    }
    std::optional<ChoiceInstance> rhs =
        instance(file, boost::get<ast::ChoiceRef>(compare.rhs), scope);
    if (!lhs || !rhs) return std::nullopt;
    const Choice& a = model_.choices[lhs->choice];
    const Choice& b = model_.choices[rhs->choice];
    bool equality = out.op == CompareOp::Eq || out.op == CompareOp::Ne;
    if (a.kind == ChoiceKind::Enum || b.kind == ChoiceKind::Enum) {
      if (!same_domain(a, b)) {
        error(file, compare.offset,
              "'" + compare.op + "' between choices of different domains: '" + a.name + "' and '" +
                  b.name + "'");
        return std::nullopt;
      }
      if (!equality) {
        error(file, compare.offset,
              "'" + compare.op + "' between enum choices; only '==' and '!=' are allowed");
        return std::nullopt;
      }
    }
    bool plain_equality =
        equality && a.kind != ChoiceKind::Counter && b.kind != ChoiceKind::Counter;
    if (plain_equality) {
      out.kind =
          out.op == CompareOp::Eq ? Condition::Kind::ChoiceEqual : Condition::Kind::ChoiceNotEqual;
    } else {
      out.kind = Condition::Kind::CompareChoices;
    }
    out.lhs = std::move(*lhs);
    out.rhs = std::move(*rhs);
    return out;
  }

  std::vector<Condition> conditions(const SourceFile& file,
                                    const std::vector<ast::Condition>& syntax, const Scope& scope) {
    std::vector<Condition> out;
    for (const ast::Condition& c : syntax) {
      if (auto resolved = condition(file, c, scope)) out.push_back(std::move(*resolved));
    }
    return out;
  }

  /// `forall ...: clauses` on top of `scope`; `prefix` (if any) is or-ed into every clause.
  std::optional<Constraint> constraint(const SourceFile& file, const ast::Requirement& body,
                                       Scope scope, const std::optional<Condition>& prefix) {
    bool ok = declare_vars(file, body.forall, scope);
    if (!ok) return std::nullopt;
    Constraint out;
    out.loc = loc(file, body.offset);
    for (const ast::Clause& syntax : body.clauses) {
      Clause clause;
      clause.loc = loc(file, syntax.offset);
      if (prefix) clause.conditions.push_back(*prefix);
      for (const ast::Condition& c : syntax.conditions) {
        if (auto resolved = condition(file, c, scope)) {
          clause.conditions.push_back(std::move(*resolved));
        } else {
          ok = false;
        }
      }
      out.clauses.push_back(std::move(clause));
    }
    if (!ok) return std::nullopt;
    out.vars = std::move(scope.vars);
    return out;
  }

  // ---- sets ----

  void resolve_set_headers() {
    for (SetId id = 0; id < set_sources_.size(); ++id) {
      const SetSource& source = set_sources_[id];
      const SourceFile& file = *source.file;
      Set& set = model_.sets[id];
      const auto& param = source.set ? source.set->param : source.quotient->param;
      Scope scope;
      if (param && declare_var(file, *param, scope)) set.parameter = scope.vars.front();
      if (source.set) {
        if (source.set->superset) set.superset = find_set(file, *source.set->superset);
      } else if (declare_var(file, source.quotient->element, scope)) {
        set.superset = scope.vars.back().set;
        Quotient& quotient = model_.quotients[*set.quotient];
        quotient.vars = scope.vars;
        model_.choices[quotient.repr_choice].args = std::move(scope.vars);
      }
    }
  }

  void resolve_set_fields() {
    for (SetId id = 0; id < set_sources_.size(); ++id) {
      const SetSource& source = set_sources_[id];
      const SourceFile& file = *source.file;
      const auto& fields = source.set ? source.set->fields : source.quotient->fields;
      Set& set = model_.sets[id];
      Scope scope;
      if (set.parameter) scope.vars.push_back(*set.parameter);
      std::vector<std::string> seen;
      bool has_disjoint = false;
      for (const ast::SetField& field : fields) {
        if (const auto* host = boost::get<ast::HostField>(&field)) {
          const std::string& name = host->field.text;
          std::string* target = host_field(set, name);
          if (!target) {
            std::string list;
            for (std::string_view f : kHostFields)
              list += (list.empty() ? "" : ", ") + std::string(f);
            error(file, host->field.offset,
                  "unknown set field '" + name + "' (fields: " + list + ")");
            continue;
          }
          if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
            error(file, host->field.offset, "field '" + name + "' is set twice");
            continue;
          }
          seen.push_back(name);
          // Instances over parametric and quotient sets live over their plain superset.
          if (name == "all_ids" && (set.parameter || set.quotient)) {
            error(file, host->field.offset,
                  std::string("'all_ids' is for plain sets, not ") +
                      (set.parameter ? "parametric" : "quotient") + " ones");
            continue;
          }
          *target = code(file, host->code, scope, field_names_in_scope(name));
        } else if (const auto* disjoint = boost::get<ast::DisjointField>(&field)) {
          if (has_disjoint) {
            error(file, disjoint->offset, "'disjoint' is given twice");
            continue;
          }
          has_disjoint = true;
          for (const ast::Name& other : disjoint->sets) {
            std::optional<SetId> other_id = find_set(file, other);
            if (!other_id) continue;
            if (*other_id == id) {
              error(file, other.offset, "set '" + other.text + "' cannot be disjoint from itself");
            } else {
              set.disjoint.push_back(*other_id);
            }
          }
        } else {
          const auto& reverse = boost::get<ast::ReverseField>(field);
          if (!set.parameter) {
            error(file, reverse.offset, "'reverse' is only for parametric sets");
            continue;
          }
          if (set.reverse) {
            error(file, reverse.offset, "'reverse' is given twice");
            continue;
          }
          Scope member;
          if (!declare_var(file, reverse.var, member)) continue;
          std::string text = code(file, reverse.code, member);
          set.reverse = ReverseField{member.vars[0].name, member.vars[0].set, std::move(text)};
        }
      }
    }
  }

  /// Reports each `subsetof` cycle once, at its set with the lowest id, and breaks it there.
  void check_superset_cycles() {
    cut_.assign(model_.sets.size(), false);
    enum class State : std::uint8_t { Unvisited, OnPath, Done };
    std::vector<State> state(model_.sets.size(), State::Unvisited);
    for (SetId root = 0; root < model_.sets.size(); ++root) {
      std::vector<SetId> path;
      std::optional<SetId> current = root;
      while (current && state[*current] == State::Unvisited) {
        state[*current] = State::OnPath;
        path.push_back(*current);
        current = model_.sets[*current].superset;
      }
      if (current && state[*current] == State::OnPath) {
        auto first = std::find(path.begin(), path.end(), *current);
        SetId lowest = *std::min_element(first, path.end());
        const SetSource& source = set_sources_[lowest];
        std::size_t offset = source.set ? source.set->name.offset : source.quotient->name.offset;
        error(*source.file, offset,
              "set '" + model_.sets[lowest].name + "' is its own superset through 'subsetof'");
        model_.sets[lowest].superset.reset();
        cut_[lowest] = true;
      }
      for (SetId id : path) state[id] = State::Done;
    }
  }

  SetId root_of(SetId id) const {
    while (model_.sets[id].superset) id = *model_.sets[id].superset;
    return id;
  }

  /// `disjoint` between a set and one of its subsets or supersets would make one of them empty.
  void check_disjoint() {
    for (SetId id = 0; id < model_.sets.size(); ++id) {
      const SetSource& source = set_sources_[id];
      const auto& fields = source.set ? source.set->fields : source.quotient->fields;
      for (const ast::SetField& field : fields) {
        const auto* disjoint = boost::get<ast::DisjointField>(&field);
        if (!disjoint) continue;
        for (const ast::Name& other : disjoint->sets) {
          auto it = set_ids_.find(other.text);
          if (it == set_ids_.end() || it->second == id) continue;
          if (is_subset(id, it->second) || is_subset(it->second, id)) {
            error(*source.file, other.offset,
                  "'" + model_.sets[id].name + "' cannot be disjoint from '" + other.text +
                      "': one is a subset of the other");
          }
        }
      }
    }
  }

  /// Supersets first, then subsets take what they do not set (see model.h).
  /// The depth of each set under its root set. A set deeper than kMaxSetDepth is an error and
  /// its `subsetof` is dropped, which bounds every later walk up a chain.
  void compute_set_depths() {
    depth_.assign(model_.sets.size(), 0);
    std::vector<bool> known(model_.sets.size(), false);
    for (SetId id = 0; id < model_.sets.size(); ++id) {
      std::vector<SetId> chain;
      SetId current = id;
      while (!known[current] && model_.sets[current].superset) {
        chain.push_back(current);
        current = *model_.sets[current].superset;
      }
      std::size_t d = known[current] ? depth_[current] : 0;
      known[current] = true;
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        if (++d > kMaxSetDepth) {
          const SetSource& source = set_sources_[*it];
          std::size_t offset = source.set ? source.set->name.offset : source.quotient->name.offset;
          error(*source.file, offset,
                "set '" + model_.sets[*it].name + "' is nested too deeply (at most " +
                    std::to_string(kMaxSetDepth) + " levels of 'subsetof')");
          model_.sets[*it].superset.reset();
          cut_[*it] = true;
          d = 0;
        }
        depth_[*it] = d;
        known[*it] = true;
      }
    }
  }

  void inherit_fields() {
    const std::vector<std::size_t>& depth = depth_;
    std::vector<SetId> order(model_.sets.size());
    for (SetId id = 0; id < order.size(); ++id) order[id] = id;
    std::stable_sort(order.begin(), order.end(),
                     [&](SetId a, SetId b) { return depth[a] < depth[b]; });
    for (SetId id : order) {
      Set& set = model_.sets[id];
      if (!set.superset) continue;
      const Set& super = model_.sets[*set.superset];
      for (std::string_view field : kHostFields) {
        if (field == "iterator" || field == "from_superset" || field == "all_ids") continue;
        std::string* mine = host_field(set, field);
        if (mine->empty()) *mine = *host_field(super, field);
      }
    }
    for (SetId id = 0; id < model_.sets.size(); ++id) {
      const Set& set = model_.sets[id];
      // Below a dropped `subsetof`, missing fields are a consequence of the first error.
      if (cut_[root_of(id)]) continue;
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
        const SetSource& source = set_sources_[id];
        std::size_t offset = source.set ? source.set->name.offset : source.quotient->name.offset;
        error(*source.file, offset, "set '" + set.name + "' lacks required fields: " + missing);
      }
    }
  }

  // ---- choices ----

  static const std::vector<ast::VarDecl>& args_of(const ast::ChoiceDecl& decl) {
    if (const auto* e = boost::get<ast::EnumChoice>(&decl)) return e->args;
    if (const auto* i = boost::get<ast::IntegerChoice>(&decl)) return i->args;
    return boost::get<ast::CounterChoice>(decl).args;
  }

  /// What conditions elsewhere need: arguments, values and aliases.
  void resolve_choice_signatures() {
    for (ChoiceId id = 0; id < model_.choices.size(); ++id) {
      const ChoiceSource& source = choice_sources_[id];
      if (!source.decl) continue;
      const SourceFile& file = *source.file;
      Scope scope;
      declare_vars(file, args_of(*source.decl), scope);
      Choice& choice = model_.choices[id];
      choice.args = std::move(scope.vars);
      const auto* e = boost::get<ast::EnumChoice>(source.decl);
      if (!e) continue;
      for (const ast::EnumItem& item : e->items) {
        const auto* value = boost::get<ast::ValueDecl>(&item);
        if (!value) continue;
        if (value_bits(choice, value->name.text)) {
          error(file, value->name.offset,
                "value '" + value->name.text + "' is declared twice in '" + choice.name + "'");
        } else if (choice.values.size() == kMaxEnumValues) {
          error(file, value->name.offset, "choice '" + choice.name + "' has more than 64 values");
        } else {
          choice.values.push_back(
              {value->name.text, doc_above(file, value->offset), loc(file, value->name.offset)});
        }
      }
      for (const ast::EnumItem& item : e->items) {
        const auto* alias = boost::get<ast::AliasDecl>(&item);
        if (!alias) continue;
        std::optional<ValueSet> values;
        if (value_bits(choice, alias->name.text)) {
          error(file, alias->name.offset,
                "alias '" + alias->name.text + "' has the name of a value or alias of '" +
                    choice.name + "'");
          continue;
        }
        values = value_set(file, id, alias->values);
        if (!values) continue;
        choice.aliases.push_back({alias->name.text, doc_above(file, alias->offset), *values,
                                  loc(file, alias->name.offset)});
      }
    }
  }

  void resolve_choice_bodies() {
    for (ChoiceId id = 0; id < model_.choices.size(); ++id) {
      const ChoiceSource& source = choice_sources_[id];
      if (!source.decl) continue;
      if (const auto* e = boost::get<ast::EnumChoice>(source.decl)) {
        resolve_enum(*source.file, id, *e);
      } else if (const auto* i = boost::get<ast::IntegerChoice>(source.decl)) {
        Scope scope{model_.choices[id].args};
        model_.choices[id].universe = code(*source.file, i->universe, scope);
      } else {
        resolve_counter(*source.file, id, boost::get<ast::CounterChoice>(*source.decl));
      }
    }
  }

  /// Symmetric and antisymmetric choices relate two objects of the same set.
  bool check_pair(const SourceFile& file, std::size_t offset, const Choice& choice,
                  std::string_view what) {
    if (choice.args.size() == 2 && choice.args[0].set == choice.args[1].set) return true;
    error(file, offset,
          std::string(what) + " choice takes exactly two arguments from the same set");
    return false;
  }

  void resolve_enum(const SourceFile& file, ChoiceId id, const ast::EnumChoice& decl) {
    Choice& choice = model_.choices[id];
    const ast::Antisymmetric* antisymmetric = nullptr;
    for (const ast::EnumItem& item : decl.items) {
      if (const auto* sym = boost::get<ast::Symmetric>(&item)) {
        if (choice.symmetric) {
          error(file, sym->offset, "'symmetric' is given twice");
        } else if (check_pair(file, sym->offset, choice, "a symmetric")) {
          choice.symmetric = true;
        }
      } else if (const auto* anti = boost::get<ast::Antisymmetric>(&item)) {
        if (antisymmetric) {
          error(file, anti->offset, "'antisymmetric' is given twice");
        } else {
          antisymmetric = anti;
        }
      }
    }
    if (antisymmetric) {
      if (choice.symmetric) {
        error(file, antisymmetric->offset, "a choice cannot be both symmetric and antisymmetric");
      } else if (check_pair(file, antisymmetric->offset, choice, "an antisymmetric")) {
        resolve_antisymmetric(file, choice, *antisymmetric);
      }
    }
    if (choice.values.empty())
      error(file, decl.name.offset, "choice '" + choice.name + "' has no value");
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
      guard.loc = loc(file, name->offset);
      guard.lhs = ChoiceInstance{id, self, guard.loc};
      guard.values = ~*values & all_values(choice.values.size());
      for (const ast::Requirement& req : *reqs) {
        std::optional<Constraint> lowered = constraint(file, req, scope, guard);
        if (!lowered) continue;
        lowered->doc = "requires of " + choice.name + " = " + name->text;
        lowered_.push_back(std::move(*lowered));
      }
    }
  }

  void resolve_antisymmetric(const SourceFile& file, Choice& choice,
                             const ast::Antisymmetric& decl) {
    std::size_t n = choice.values.size();
    std::vector<std::optional<std::size_t>> map(n);
    std::vector<bool> explicit_source(n, false);
    auto index = [&](const ast::Name& name) -> std::optional<std::size_t> {
      for (std::size_t i = 0; i < n; ++i) {
        if (choice.values[i].name == name.text) return i;
      }
      error(file, name.offset,
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
          error(file, name->offset, "value '" + name->text + "' is mapped twice");
        } else {
          error(file, mapping.offset,
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

  void resolve_counter(const SourceFile& file, ChoiceId id, const ast::CounterChoice& decl) {
    Choice& choice = model_.choices[id];
    Counter counter;
    counter.op = decl.op == "sum"   ? CounterOp::Sum
                 : decl.op == "mul" ? CounterOp::Mul
                                    : CounterOp::Max;
    counter.half = decl.half;
    counter.loc = loc(file, decl.offset);
    Scope scope{choice.args};
    bool ok = declare_vars(file, decl.forall, scope);
    if (!ok) return;
    counter.forall.assign(scope.vars.begin() + static_cast<std::ptrdiff_t>(choice.args.size()),
                          scope.vars.end());
    if (const auto* host = boost::get<ast::HostCode>(&decl.value)) {
      counter.value.code = code(file, *host, scope);
    } else {
      const auto& ref = boost::get<ast::ChoiceRef>(decl.value);
      counter.value.choice = instance(file, ref, scope);
      if (counter.value.choice) {
        const Choice& value = model_.choices[counter.value.choice->choice];
        if (value.kind == ChoiceKind::Enum) {
          error(file, ref.name.offset,
                "a counter counts host code, an integer choice or a counter; '" + value.name +
                    "' is an enum choice");
        }
      }
    }
    for (const ast::Condition& syntax : decl.when) {
      std::optional<Condition> c = condition(file, syntax, scope);
      if (!c) continue;
      if (c->kind != Condition::Kind::Is && c->kind != Condition::Kind::Code) {
        error(file, offset_of(syntax),
              "a counter's 'when' takes 'choice is VALUES' conditions and host-code filters "
              "only");
        continue;
      }
      counter.when.push_back(std::move(*c));
    }
    model_.choices[id].counter = std::move(counter);
  }

  static std::size_t offset_of(const ast::Condition& c) {
    return boost::apply_visitor([](const auto& node) { return node.offset; }, c);
  }

  /// A counter may not count itself, directly or through other counters.
  void check_counter_cycles() {
    if (found_.has_errors()) return;
    std::size_t n = model_.choices.size();
    std::vector<int> state(n, 0);  // 0 unvisited, 1 on the path, 2 done
    for (ChoiceId root = 0; root < n; ++root) {
      if (state[root] != 0 || model_.choices[root].kind != ChoiceKind::Counter) continue;
      std::vector<ChoiceId> path{root};
      state[root] = 1;
      while (!path.empty()) {
        ChoiceId current = path.back();
        const auto& value = model_.choices[current].counter->value.choice;
        std::optional<ChoiceId> next;
        if (value && model_.choices[value->choice].kind == ChoiceKind::Counter) {
          next = value->choice;
        }
        if (next && state[*next] == 1) {
          const Choice& c = model_.choices[current];
          found_.error(c.counter->value.choice->loc,
                       "counter '" + c.name + "' depends on itself through its value",
                       source_line(c.counter->value.choice->loc));
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

  std::string_view source_line(const SourceLocation& l) const {
    for (const ParsedFile& f : files_) {
      if (f.source->name() == l.file) return f.source->line_view(l.line);
    }
    return {};
  }

  // ---- quotients, constraints, triggers ----

  void resolve_quotients() {
    for (SetId id = 0; id < set_sources_.size(); ++id) {
      const SetSource& source = set_sources_[id];
      if (!source.quotient || !model_.sets[id].quotient) continue;
      const ast::QuotientDecl& decl = *source.quotient;
      const SourceFile& file = *source.file;
      Quotient& quotient = model_.quotients[*model_.sets[id].quotient];
      if (quotient.vars.empty()) continue;  // the element variable did not resolve
      Scope scope{quotient.vars};
      quotient.condition = conditions(file, decl.condition, scope);
      for (const Condition& c : quotient.condition) {
        bool reads_repr =
            (c.kind != Condition::Kind::Code && c.kind != Condition::Kind::Constant) &&
            (c.lhs.choice == quotient.repr_choice || ((c.kind == Condition::Kind::ChoiceEqual ||
                                                       c.kind == Condition::Kind::ChoiceNotEqual ||
                                                       c.kind == Condition::Kind::CompareChoices) &&
                                                      c.rhs.choice == quotient.repr_choice));
        if (reads_repr) {
          found_.error(c.loc,
                       "the condition of quotient '" + decl.name.text + "' cannot use '" +
                           decl.repr.text + "', the choice it defines",
                       file.line_view(c.loc.line));
        }
      }
      std::optional<ChoiceId> equiv = find_choice(file, decl.equivalence);
      if (!equiv) continue;
      const Choice& choice = model_.choices[*equiv];
      SetId element = quotient.vars.back().set;
      if (choice.kind != ChoiceKind::Enum || choice.args.size() != 2 ||
          choice.args[0].set != choice.args[1].set || !is_subset(element, choice.args[0].set)) {
        error(file, decl.equivalence.offset,
              "the equivalence of a quotient must be an enum choice over two objects of '" +
                  model_.sets[element].name + "' or of one of its supersets");
        continue;
      }
      quotient.equivalence = *equiv;
      if (auto values = value_set(file, *equiv, decl.equivalence_values)) {
        quotient.equivalence_values = *values;
      }
    }
  }

  void resolve_items() {
    for (const auto& [file, decl] : requires_) {
      if (auto c = constraint(*file, decl->body, Scope{}, std::nullopt)) {
        c->doc = doc_above(*file, decl->offset);
        c->loc = loc(*file, decl->offset);
        model_.constraints.push_back(std::move(*c));
      }
    }
    for (Constraint& c : lowered_) model_.constraints.push_back(std::move(c));
    for (const auto& [file, decl] : triggers_) {
      Scope scope;
      bool ok = declare_vars(*file, decl->forall, scope);
      if (!ok) continue;
      Trigger trigger;
      trigger.code = code(*file, decl->code, scope);
      trigger.conditions = conditions(*file, decl->conditions, scope);
      trigger.doc = doc_above(*file, decl->offset);
      trigger.loc = loc(*file, decl->offset);
      trigger.vars = std::move(scope.vars);
      model_.triggers.push_back(std::move(trigger));
    }
  }

  const std::vector<ParsedFile>& files_;
  Diagnostics& diags_;
  Diagnostics found_;  // this pass's errors, in the order the checks found them
  Model model_;
  std::unordered_map<std::string, SetId> set_ids_;
  std::unordered_map<std::string, ChoiceId> choice_ids_;
  std::vector<bool> parametric_;
  std::vector<std::size_t> depth_;  // of each set under its root, once cycles are broken
  std::vector<bool> cut_;           // sets whose `subsetof` was dropped after an error
  std::vector<SetSource> set_sources_;
  std::vector<ChoiceSource> choice_sources_;
  std::vector<ItemSource<ast::RequireDecl>> requires_;
  std::vector<ItemSource<ast::TriggerDecl>> triggers_;
  std::vector<Constraint> lowered_;  // from `requires`, appended after the `require`s
};

}  // namespace

std::optional<Model> resolve(const std::vector<ParsedFile>& files, Diagnostics& diags) {
  return Resolver(files, diags).run();
}

}  // namespace sculpt::spacedsl
