// The lookups the passes share: errors, doc comments, names, variables, host code and choice
// instances.
#include <algorithm>
#include <utility>

#include "spacedsl/lexical.h"
#include "spacedsl/parser.h"
#include "spacedsl/resolve_state.h"

namespace sculpt::spacedsl::resolver {
namespace {

constexpr std::array<std::string_view, 4> kReservedVars = {"fun", "id", "item", "new"};

// A bound on the variables of one item, which keeps every lookup cheap on any input; real
// spaces stay far below it.
constexpr std::size_t kMaxVariables = 64;

std::string unescape(const std::string& raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\' && i + 1 < raw.size() && (raw[i + 1] == '"' || raw[i + 1] == '\\')) ++i;
    out += raw[i];
  }
  return out;
}

}  // namespace

std::string where(const SourceFile& here, const SourceLocation& l) {
  std::string position = std::to_string(l.line) + ":" + std::to_string(l.column);
  return l.file == here.name() ? position : l.file + ":" + position;
}

std::string doc_above(const SourceFile& file, std::size_t offset) {
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

std::optional<ValueSet> value_bits(const Choice& choice, const std::string& name) {
  for (std::size_t i = 0; i < choice.values.size(); ++i) {
    if (choice.values[i].name == name) return ValueSet{1} << i;
  }
  for (const Alias& alias : choice.aliases) {
    if (alias.name == name) return alias.values;
  }
  return std::nullopt;
}

void State::error(const SourceFile& file, std::size_t offset, std::string message) {
  report(found, file, offset, std::move(message));
}

std::optional<SetId> State::find_set(const SourceFile& file, const ast::Name& name) {
  auto it = set_ids.find(name.text);
  if (it != set_ids.end()) return it->second;
  error(file, name.offset, "unknown set '" + name.text + "'");
  return std::nullopt;
}

std::optional<ChoiceId> State::find_choice(const SourceFile& file, const ast::Name& name) {
  auto it = choice_ids.find(name.text);
  if (it != choice_ids.end()) return it->second;
  error(file, name.offset, "unknown choice '" + name.text + "'");
  return std::nullopt;
}

bool State::is_subset(SetId sub, SetId super) const {
  for (std::size_t steps = 0; steps <= model.sets.size(); ++steps) {
    if (sub == super) return true;
    if (!model.sets[sub].superset) return false;
    sub = *model.sets[sub].superset;
  }
  return false;
}

bool State::declare_var(const SourceFile& file, const ast::VarDecl& decl, Scope& scope) {
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
    if (parametric[*set] && !decl.set_arg) {
      error(file, decl.set.offset,
            "set '" + decl.set.text + "' takes a parameter: write '" + decl.set.text + "($p)'");
      ok = false;
    } else if (!parametric[*set] && decl.set_arg) {
      error(file, decl.set_arg->offset, "set '" + decl.set.text + "' has no parameter");
      ok = false;
    } else if (decl.set_arg) {
      var.set_parameter = use_var(file, *decl.set_arg, scope);
      const auto& param = model.sets[*set].parameter;
      if (!var.set_parameter) {
        ok = false;
      } else if (param && !is_subset(scope.vars[*var.set_parameter].set, param->set)) {
        error(file, decl.set_arg->offset,
              "the parameter of '" + decl.set.text + "' must be in '" +
                  model.sets[param->set].name + "', '$" + decl.set_arg->text + "' is in '" +
                  model.sets[scope.vars[*var.set_parameter].set].name + "'");
        ok = false;
      }
    }
  } else {
    ok = false;
  }
  if (ok) scope.vars.push_back(std::move(var));
  return ok;
}

bool State::declare_vars(const SourceFile& file, const std::vector<ast::VarDecl>& decls,
                         Scope& scope) {
  if (scope.vars.size() + decls.size() > kMaxVariables) {
    error(file, decls[kMaxVariables - std::min(scope.vars.size(), kMaxVariables)].offset,
          "too many variables in one item (at most " + std::to_string(kMaxVariables) + ")");
    return false;
  }
  bool ok = true;
  for (const ast::VarDecl& decl : decls) ok = declare_var(file, decl, scope) && ok;
  return ok;
}

std::optional<VarId> State::use_var(const SourceFile& file, const ast::VarRef& ref,
                                    const Scope& scope) {
  if (auto id = scope.find(ref.text)) return id;
  error(file, ref.offset, "unknown variable '$" + ref.text + "'");
  return std::nullopt;
}

std::string State::code(const SourceFile& file, const ast::HostCode& host, const Scope& scope,
                        const std::vector<std::string_view>& reserved) {
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

std::optional<ChoiceInstance> State::instance(const SourceFile& file, const ast::ChoiceRef& ref,
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
  const Choice& choice = model.choices[*id];
  if (ref.args.size() != choice.args.size()) {
    error(file, ref.name.offset,
          "choice '" + choice.name + "' takes " + std::to_string(choice.args.size()) + " argument" +
              (choice.args.size() == 1 ? "" : "s") + ", not " + std::to_string(ref.args.size()));
    return std::nullopt;
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    SetId have = scope.vars[args[i]].set;
    SetId want = choice.args[i].set;
    if (!is_subset(have, want)) {
      error(file, ref.args[i].offset,
            "argument " + std::to_string(i + 1) + " of '" + choice.name + "' must be in '" +
                model.sets[want].name + "', '$" + ref.args[i].text + "' is in '" +
                model.sets[have].name + "'");
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return ChoiceInstance{*id, std::move(args), loc(file, ref.offset)};
}

std::optional<ValueSet> State::value_set(const SourceFile& file, ChoiceId id,
                                         const std::vector<ast::Name>& names) {
  const Choice& choice = model.choices[id];
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

}  // namespace sculpt::spacedsl::resolver
