// Scopes: the loops that bind a scope's variables to the members of their sets, with the
// checks that make a tuple valid (membership, distinct objects), and what reads instances once.
#include <algorithm>
#include <map>
#include <set>

#include "spacegen/emission.h"
#include "spacegen/host_code.h"
#include "spacegen/line_directives.h"
#include "support/check.h"

namespace sculpt::spacegen {

using spacedsl::Condition;
using spacedsl::VarId;

void Emission::hoist_slots(CodeWriter& w, Scope& scope,
                           const std::vector<Pattern>& patterns) const {
  if (std::none_of(scope.names.begin(), scope.names.end(),
                   [](const std::string& n) { return n.empty(); })) {
    return;
  }
  for (const Pattern& p : patterns) {
    if (!is_enum(p.choice) || hoisted(scope, p.choice)) continue;
    scope.hoisted.push_back(p.choice);
    w.line("const unsigned char* const slots_" + cname(p.choice) + " = slots(" +
           choice_id(p.choice) + ");");
  }
}

void Emission::emit_scope(CodeWriter& w, Scope& scope, const std::vector<bool>& needs_membership,
                          const std::function<void()>& body, const LevelHook& level,
                          const LoopRange& range) const {
  const auto& vars = scope.item->vars;
  int opened = 0;
  std::vector<bool> membership_done(vars.size(), false);
  std::set<std::pair<VarId, VarId>> distinct_done;
  auto emit_ready_checks = [&] {
    for (VarId v = 0; v < vars.size(); ++v) {
      if (scope.names[v].empty() || membership_done[v] || !needs_membership[v]) continue;
      SetId s = effective_set(vars[v].set);
      if (is_parametric(s)) {
        VarId p = *vars[v].set_parameter;
        if (scope.names[p].empty()) continue;
        w.open("if (member_" + m_.sets[s].name + "(" + scope.names[p] + ", " + scope.names[v] +
               "))");
      } else {
        w.open("if (is_member(" + set_id(s) + ", " + scope.names[v] + "))");
      }
      ++opened;
      membership_done[v] = true;
    }
    for (VarId a = 0; a < vars.size(); ++a) {
      for (VarId b = a + 1; b < vars.size(); ++b) {
        if (scope.names[a].empty() || scope.names[b].empty()) continue;
        if (root(vars[a].set) != root(vars[b].set) || distinct_done.count({a, b})) continue;
        distinct_done.insert({a, b});
        w.open("if (" + scope.names[a] + " != " + scope.names[b] + ")");
        ++opened;
      }
    }
  };
  auto ready = [&] {
    std::vector<bool> out(vars.size());
    for (VarId v = 0; v < vars.size(); ++v) {
      out[v] = !scope.names[v].empty() && (membership_done[v] || !needs_membership[v]);
    }
    return out;
  };
  auto run_level = [&](bool in_loop) {
    if (level) level(ready(), in_loop);
  };
  emit_ready_checks();
  run_level(false);
  for (VarId v = 0; v < vars.size(); ++v) {
    if (!scope.names[v].empty()) continue;
    std::string name = "v_" + vars[v].name;
    SetId s = effective_set(vars[v].set);
    if (is_parametric(s)) {
      VarId p = *vars[v].set_parameter;
      SCULPT_CHECK(!scope.names[p].empty()) << "parameter of $" << vars[v].name << " unbound";
      const auto& set = m_.sets[s];
      std::string param = item_expr(set.parameter->set, scope.names[p], "*fun_");
      std::string iter =
          located(set.loc, substitute(set.iterator, {{set.parameter->name, param}}, "(*fun_)"));
      w.open("for (auto&& item_" + vars[v].name + " : " + iter + ")");
      w.line("const ObjectId " + name + " = id_" + set.name + "(*fun_, item_" + vars[v].name +
             ");");
      // The iterator may list objects a lowering has not added yet.
      w.open("if (is_member(" + set_id(membership_set(s)) + ", " + name + "))");
      ++opened;
    } else if (std::optional<VarId> member = reversible_member(scope, v)) {
      // A bound member of a parametric set gives its parameters through `reverse`.
      const auto& set = m_.sets[effective_set(vars[*member].set)];
      // The member may be bound from a superset (a pattern over Statements): it must be in
      // the reverse field's set before its getter runs.
      w.open("if (is_member(" + set_id(membership_set(set.reverse->set)) + ", " +
             scope.names[*member] + "))");
      ++opened;
      std::string item = item_expr(set.reverse->set, scope.names[*member], "*fun_");
      std::string iter =
          located(set.loc, substitute(set.reverse->code, {{set.reverse->var, item}}, "(*fun_)"));
      SetId param_set = set.parameter->set;
      w.open("for (auto&& item_" + vars[v].name + " : " + iter + ")");
      w.line("const ObjectId " + name + " = id_" + m_.sets[param_set].name + "(*fun_, item_" +
             vars[v].name + ");");
      membership_done[*member] = true;
      // `reverse` may name objects a lowering has not added yet.
      w.open("if (is_member(" + set_id(membership_set(vars[v].set)) + ", " + name + "))");
      ++opened;
    } else {
      std::string unused = reads_var(scope, v) ? "" : "[[maybe_unused]] ";
      std::string members = range ? range(v, s, ready()) : "";
      if (members.empty()) members = "members(" + set_id(s) + ")";
      w.open("for (" + unused + "const ObjectId " + name + " : " + members + ")");
    }
    ++opened;
    scope.names[v] = name;
    emit_ready_checks();
    run_level(true);
  }
  body();
  for (int i = 0; i < opened; ++i) w.close();
}

bool Emission::reads_var(const Scope& scope, VarId v) const {
  const Item& item = *scope.item;
  if (item.reads_all) return true;
  const auto& vars = item.vars;
  for (VarId u = 0; u < vars.size(); ++u) {
    if (u != v && (root(vars[u].set) == root(vars[v].set) || vars[u].set_parameter == v)) {
      return true;
    }
  }
  if (std::find(item.value_vars.begin(), item.value_vars.end(), v) != item.value_vars.end()) {
    return true;
  }
  for (const auto& clause : item.clauses) {
    for (const Condition& cond : clause) {
      std::vector<VarId> read = condition_vars(cond, item);
      if (std::find(read.begin(), read.end(), v) != read.end()) return true;
    }
  }
  return false;
}

std::optional<VarId> Emission::reversible_member(const Scope& scope, VarId p) const {
  const auto& vars = scope.item->vars;
  for (VarId v = 0; v < vars.size(); ++v) {
    SetId s = effective_set(vars[v].set);
    if (!scope.names[v].empty() && is_parametric(s) && vars[v].set_parameter == p &&
        m_.sets[s].reverse) {
      return v;
    }
  }
  return std::nullopt;
}

std::vector<bool> Emission::bind_pattern(CodeWriter& w, Scope& scope, const Pattern& p) const {
  std::vector<bool> needs(scope.item->vars.size(), false);
  const auto& choice = m_.choices[p.choice];
  if (p.args.empty()) w.line("(void)ids;");
  for (std::size_t i = 0; i < p.args.size(); ++i) {
    VarId v = p.args[i];
    scope.names[v] = "v_" + scope.item->vars[v].name;
    w.line("const ObjectId " + scope.names[v] + " = ids[" + std::to_string(i) + "];");
    const Variable& var = scope.item->vars[v];
    needs[v] = effective_set(var.set) != membership_set(choice.args[i].set) ||
               is_parametric(effective_set(var.set));
  }
  return needs;
}

bool Emission::all_bound(const std::vector<VarId>& vars, const std::vector<bool>& ready) {
  return std::all_of(vars.begin(), vars.end(), [&](VarId v) { return ready[v]; });
}

void Emission::declare_ready_locals(CodeWriter& w, const std::vector<Pattern>& patterns,
                                    const std::vector<bool>& ready, const Scope& scope,
                                    std::vector<bool>& declared, Locals& locals) const {
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    if (declared[p] || !all_bound(patterns[p].args, ready)) continue;
    declared[p] = true;
    std::string local = "d" + std::to_string(p);
    ChoiceInstance ci{patterns[p].choice, patterns[p].args, {}};
    w.line(summary_type(patterns[p].choice) + " " + local + " = " + summary(ci, scope, {}) + ";");
    locals.reads.emplace_back(patterns[p], local);
  }
}

void Emission::emit_refresh(CodeWriter& w, const Scope& scope, const Locals& locals) const {
  if (locals.reads.empty()) return;
  std::string reads;
  for (const auto& [pattern, local] : locals.reads) {
    ChoiceInstance ci{pattern.choice, pattern.args, {}};
    reads += " " + local + " = " + summary(ci, scope, {}) + ";";
  }
  w.line("[[maybe_unused]] const auto refresh = [&] {" + reads + " };");
}

void Emission::emit_rederive(CodeWriter& w, ChoiceId c) const {
  std::size_t n = m_.choices[c].args.size();
  Item args_item{m_.choices[c].args, {}, {}, true};
  Scope scope{&args_item, std::vector<std::string>(n)};
  w.open("");
  emit_scope(w, scope, std::vector<bool>(n, false), [&] {
    std::string ids;
    for (std::size_t i = 0; i < n; ++i) ids += (i ? ", " : "") + scope.names[i];
    w.line("CounterState s = counter_state(" + choice_id(c) + ", index_" + cname(c) + "(" + ids +
           "));");
    w.line("const Interval d = derive_" + cname(c) + "(" + ids + ");");
    w.line("s.lo = d.lo;");
    w.line("s.hi = d.hi;");
    w.line(check("set_state_" + cname(c) + "(" + ids + (n ? ", " : "") + "s)"));
  });
  w.close();
}

void Emission::emit_universes(CodeWriter& w, ChoiceId c, bool at_layout) const {
  const auto& choice = m_.choices[c];
  std::size_t n = choice.args.size();
  std::string fun = at_layout ? "fun" : "*fun_";
  std::map<std::string, std::string> vars;
  w.open("");
  int opened = 1;
  for (std::size_t i = 0; i < n; ++i) {
    SetId s = membership_set(choice.args[i].set);
    std::string v = "a" + std::to_string(i);
    std::string cap = at_layout ? "builder.capacity(" + set_id(s) + ")"
                                : "layout_->set_capacity[" + set_id(s) + "]";
    w.open("for (ObjectId " + v + " = 0; " + v + " < " + cap + "; ++" + v + ")");
    ++opened;
    std::string test =
        (at_layout ? "builder.has_member(" : "is_member(") + set_id(s) + ", " + v + ")";
    w.line("if (!" + test + ") continue;");
    for (std::size_t j = 0; j < i; ++j) {
      if (root(choice.args[j].set) == root(choice.args[i].set)) {
        w.line("if (a" + std::to_string(j) + " == " + v + ") continue;");
      }
    }
    vars[choice.args[i].name] = item_expr(choice.args[i].set, v, fun);
  }
  w.line("const ObjectId ids[] = {" + (n ? id_list(n) : std::string("0")) + "};");
  if (at_layout) {
    w.line("const std::size_t index = builder.index(" + choice_id(c) + ", ids);");
  } else {
    w.line("const std::size_t index = layout_->index(" + choice_id(c) + ", ids);");
    w.line("if (has_universe(" + choice_id(c) + ", index)) continue;");
  }
  w.line("std::vector<std::int64_t> values;");
  w.line("for (auto&& v : " +
         located(choice.loc, substitute(choice.universe, vars, at_layout ? "fun" : "(*fun_)")) +
         ") values.push_back(static_cast<std::int64_t>(v));");
  w.line(std::string(at_layout ? "builder.set_universe" : "add_universe") + "(" + choice_id(c) +
         ", index, std::move(values));");
  for (int i = 0; i < opened; ++i) w.close();
}

}  // namespace sculpt::spacegen
