// The checks of a propagator's tuples: each clause (a conflict when every condition is false,
// the last one forced when all others are), or the lookups of a support table, and the
// triangle scan.
#include <algorithm>

#include "spacegen/emission.h"
#include "spacegen/host_code.h"

namespace sculpt::spacegen {

namespace {

using spacedsl::Condition;
using Kind = spacedsl::Condition::Kind;

/// A clause that emit_clauses checks.
struct Active {
  std::size_t index;
  std::vector<const Condition*> conds;  // constants FALSE dropped
  std::vector<bool> hoisted;            // evaluated before the innermost level
  std::string done;                     // the flag saying it certainly holds here, if any
};

/// The clauses to check: those a constant TRUE does not satisfy.
std::vector<Active> active_clauses(const Item& item, const std::vector<std::size_t>& clauses) {
  std::vector<Active> active;
  for (std::size_t k : clauses) {
    Active a{k, {}, {}, ""};
    bool always = false;
    for (const Condition& cond : item.clauses[k]) {
      if (cond.kind == Kind::Constant) {
        always = always || cond.constant;
        continue;
      }
      a.conds.push_back(&cond);
    }
    a.hoisted.assign(a.conds.size(), false);
    if (!always) active.push_back(std::move(a));
  }
  return active;
}

/// The patterns the clauses read, in order of first read.
std::vector<Pattern> read_patterns(const std::vector<Active>& active) {
  std::vector<Pattern> patterns;
  for (const Active& a : active) {
    for (const Condition* cond : a.conds) {
      for (const Pattern& p : patterns_of({*cond})) {
        if (std::find(patterns.begin(), patterns.end(), p) == patterns.end()) {
          patterns.push_back(p);
        }
      }
    }
  }
  return patterns;
}

}  // namespace

void Emission::emit_keep(CodeWriter& w, const std::string& keep, const ChoiceInstance& ci,
                         const Scope& scope, const std::string& now, const std::string& origin,
                         bool refresh) const {
  w.open("if (" + keep + " != " + now + ")");
  w.line(check("restrict_" + cname(ci.choice) + "(" + args_comma(ci, scope) + keep + ", " + origin +
               ")"));
  if (refresh) w.line("refresh();");
  w.close();
}

void Emission::emit_support_tables(CodeWriter& w, std::size_t i, const SupportTable& table) const {
  const Item& item = plan_.constraints[i];
  for (std::size_t p = 0; p < table.patterns.size(); ++p) {
    std::size_t n = num_values(table.patterns[p].choice);
    std::string type = n <= 8 ? "std::uint8_t" : n <= 16 ? "std::uint16_t" : "std::uint32_t";
    w.comment("Values of " + pattern_text(item, table.patterns[p]) +
              " supported by the domains of the others.");
    emit_array(w, type, support_name(i, p), table.keep[p]);
  }
}

void Emission::emit_triangle(CodeWriter& w, std::size_t i, std::size_t k,
                             const TriangleShape& shape, Scope& scope) const {
  const std::vector<Pattern>& ps = plan_.supports[i]->patterns;
  const ChoiceId c = ps[k].choice;
  const Item& item = plan_.constraints[i];
  const std::string origin = support_origin(i);
  std::string involution;
  for (std::size_t v = 0; v < num_values(c); ++v) {
    involution += (v ? ", " : "") + std::to_string(involution_of(c, v));
  }
  std::string side_tables;
  for (std::size_t e = 0; e < 2; ++e) {
    const std::size_t p = shape.sides[e];
    side_tables += std::string(e ? ", " : "") + "{" + support_name(i, p) + ", " +
                   std::to_string(index_shift(*this, ps, p, k)) + ", " +
                   std::to_string(index_shift(*this, ps, p, shape.sides[1 - e])) + ", " +
                   (shape.flipped[e] ? "true" : "false") + "}";
  }
  w.line("static constexpr Triangle<" + std::to_string(num_values(c)) + "> kTriangle{{" +
         involution + "}, {{" + side_tables + "}}};");
  hoist_slots(w, scope, ps);
  const Variable& z = item.vars[shape.third];
  scope.names[shape.third] = "v_" + z.name;
  const ChoiceInstance edge{c, ps[k].args, {}};
  auto keep = [&](std::size_t e) { return "keep" + std::to_string(shape.sides[e]); };
  w.open("return scan_triangle(kTriangle, triangle_rows_, " + choice_id(c) + ", slots_" + cname(c) +
         ", member_bits(" + set_id(effective_set(z.set)) + "), " + args_comma(edge, scope) +
         summary(edge, scope, {}) + ", [&](ObjectId " + scope.names[shape.third] + ", ValueSet " +
         keep(0) + ", ValueSet " + keep(1) + ")");
  // In the order of the patterns, as emit_supports checks and narrows them.
  const std::array<std::size_t, 2> sides = shape.sides[0] < shape.sides[1]
                                               ? std::array<std::size_t, 2>{0, 1}
                                               : std::array<std::size_t, 2>{1, 0};
  for (std::size_t e : sides) {
    w.line(
        fail_if_none_kept(keep(e), ChoiceInstance{c, ps[shape.sides[e]].args, {}}, scope, origin));
  }
  for (std::size_t e : sides) {
    const ChoiceInstance side{c, ps[shape.sides[e]].args, {}};
    emit_keep(w, keep(e), side, scope, summary(side, scope, {}), origin, false);
  }
  w.line("return Status::Ok;");
  w.close(");");
}

void Emission::emit_supports(CodeWriter& w, std::size_t i, const SupportTable& table, Scope& scope,
                             const std::vector<bool>& needs_membership,
                             std::optional<std::size_t> woken) const {
  const std::vector<Pattern>& ps = table.patterns;
  const std::string origin = support_origin(i);
  Locals locals{{}, true};
  std::vector<bool> declared(ps.size(), false);
  // A symmetric table reads a set of objects once: the variables it loops over are bound
  // in increasing order.
  std::vector<VarId> looped;
  for (VarId v = 0; v < scope.names.size(); ++v) {
    if (table.symmetric && scope.names[v].empty()) looped.push_back(v);
  }
  hoist_slots(w, scope, ps);
  // A wake-up may skip tuples whose other instances are fixed (see the comment it emits).
  const bool may_skip = woken && !may_alias(ps);
  // Nor does it narrow the instance that changed: the tuple was consistent before the
  // change, and a change of the others wakes their own scans, which narrow it.
  auto narrows = [&](std::size_t p) { return !may_skip || p != *woken; };
  std::size_t ordered = 0;  // looped variables already compared with the previous one
  auto level = [&](const std::vector<bool>& ready, bool in_loop) {
    while (in_loop && ordered + 1 < looped.size() && ready[looped[ordered + 1]]) {
      ++ordered;
      w.line("if (" + scope.names[looped[ordered - 1]] + " > " + scope.names[looped[ordered]] +
             ") continue;");
    }
    declare_ready_locals(w, ps, ready, scope, declared, locals);
  };
  emit_scope(
      w, scope, needs_membership,
      [&] {
        emit_refresh(w, scope, locals);
        std::vector<std::string> local(ps.size());
        for (std::size_t p = 0; p < ps.size(); ++p) {
          local[p] = summary(ChoiceInstance{ps[p].choice, ps[p].args, {}}, scope, locals);
        }
        std::string skip;
        for (std::size_t p = 0; may_skip && p < ps.size(); ++p) {
          skip += (skip.empty() ? "" : " && ") + std::string(p == *woken ? "!" : "") +
                  "single_value(" + local[p] + ")";
        }
        if (!skip.empty()) {
          w.comment("Nothing to narrow when " + pattern_text(plan_.constraints[i], ps[*woken]) +
                    " is open and the others are fixed:");
          w.comment("the last of them to be propagated, fixed, checked the tuple.");
          w.open("if (!(" + skip + "))");
        }
        for (std::size_t p = 0; p < ps.size(); ++p) {
          if (!narrows(p)) continue;
          std::string index;
          for (std::size_t j = 0; j < ps.size(); ++j) {
            if (j == p) continue;
            std::size_t below = index_shift(*this, ps, p, j);
            std::string term =
                below ? "(" + local[j] + " << " + std::to_string(below) + ")" : local[j];
            index += (index.empty() ? "" : " | ") + term;
          }
          w.line("const ValueSet keep" + std::to_string(p) + " = " + local[p] + " & " +
                 support_name(i, p) + "[" + index + "];");
        }
        for (std::size_t p = 0; p < ps.size(); ++p) {
          if (!narrows(p)) continue;
          w.line(fail_if_none_kept("keep" + std::to_string(p),
                                   ChoiceInstance{ps[p].choice, ps[p].args, {}}, scope, origin));
        }
        for (std::size_t p = 0; p < ps.size(); ++p) {
          if (!narrows(p)) continue;
          emit_keep(w, "keep" + std::to_string(p), ChoiceInstance{ps[p].choice, ps[p].args, {}},
                    scope, local[p], origin, true);
        }
        if (!skip.empty()) w.close();
      },
      level);
}

void Emission::emit_clauses(CodeWriter& w, const Item& item,
                            const std::vector<std::size_t>& clauses, Scope& scope,
                            const std::vector<bool>& needs_membership,
                            const std::function<std::string(std::size_t)>& origin) const {
  std::vector<Active> active = active_clauses(item, clauses);
  if (active.empty()) return;
  const std::vector<Pattern> patterns = read_patterns(active);
  hoist_slots(w, scope, patterns);
  Locals locals{{}, true};
  std::vector<bool> declared(patterns.size(), false);
  // Host code that is not cached is evaluated in the loops: its objects are fetched once.
  std::vector<bool> host_reads(item.vars.size(), false);
  for (const Active& a : active) {
    for (const Condition* cond : a.conds) {
      if (cond->kind == Kind::CompareCode || (cond->kind == Kind::Code && !cached(*cond))) {
        for (VarId v : code_vars(cond->code, item.vars)) host_reads[v] = true;
      }
    }
  }
  scope.objects.assign(item.vars.size(), "");
  int level_count = 0;
  // After the checks that may skip the level.
  auto fetch_objects = [&](const std::vector<bool>& ready) {
    for (VarId v = 0; v < item.vars.size(); ++v) {
      if (!host_reads[v] || !ready[v] || !scope.objects[v].empty()) continue;
      w.line("const auto obj_" + item.vars[v].name + " = " +
             item_expr(item.vars[v].set, scope.names[v], "*fun_") + ";");
      scope.objects[v] = "obj_" + item.vars[v].name;
    }
  };
  // Flags the clauses that conditions over the bound variables satisfy (only cached host
  // filters when `filters_only`), and skips the level when all are.
  auto hoist = [&](const std::vector<bool>& ready, bool in_loop, bool filters_only) {
    std::string level_name = std::to_string(level_count++);
    bool any_new = false;
    for (Active& a : active) {
      std::string holds;
      for (std::size_t j = 0; j < a.conds.size(); ++j) {
        if (a.hoisted[j] || !all_bound(condition_vars(*a.conds[j], item), ready)) continue;
        if (filters_only && !cached(*a.conds[j])) continue;
        a.hoisted[j] = true;
        std::string expr = a.conds[j]->kind == Kind::Code
                               ? static_code(*a.conds[j], scope)
                               : truth(*a.conds[j], scope, locals) + " == Truth::True";
        holds += (holds.empty() ? "" : " || ") + expr;
      }
      if (holds.empty()) continue;
      std::string flag = "done" + std::to_string(a.index + 1) + "_" + level_name;
      w.line("const bool " + flag + " = " + (a.done.empty() ? "" : a.done + " || ") + holds + ";");
      a.done = flag;
      any_new = true;
    }
    bool all_flagged =
        std::all_of(active.begin(), active.end(), [](const Active& a) { return !a.done.empty(); });
    if (any_new && all_flagged) {
      std::string all_done;
      for (const Active& a : active) all_done += (all_done.empty() ? "" : " && ") + a.done;
      w.line("if (" + all_done + ") " + (in_loop ? "continue;" : "return Status::Ok;"));
    }
  };
  auto level = [&](const std::vector<bool>& ready, bool in_loop) {
    // Filters first: a tuple they satisfy reads no domain.
    hoist(ready, in_loop, true);
    declare_ready_locals(w, patterns, ready, scope, declared, locals);
    // The innermost level is the body's: the other conditions are checked there.
    if (std::all_of(ready.begin(), ready.end(), [](bool r) { return r; })) {
      fetch_objects(ready);
      return;
    }
    hoist(ready, in_loop, false);
    fetch_objects(ready);
  };
  // A lone clause that a cached filter over $v and bound variables satisfies holds for
  // every tuple through those objects: the loop over $v skips the objects the filter is
  // known to hold for.
  auto range = [&](VarId v, SetId s, const std::vector<bool>& ready) -> std::string {
    if (active.size() != 1) return "";
    for (const Condition* cond : active[0].conds) {
      const std::optional<std::size_t> k = filter_of(plan_, *cond);
      if (!k) continue;
      const std::vector<VarId>& args = plan_.filters[*k].vars;
      const auto free = std::find(args.begin(), args.end(), v);
      if (free == args.end()) continue;
      std::string other = "0";
      if (args.size() == 2) {
        const VarId o = args[free == args.begin() ? 1 : 0];
        if (!ready[o]) continue;
        other = scope.names[o];
      }
      return "members_unless(" + set_id(s) + ", " + std::to_string(*k) + ", " +
             std::to_string(free - args.begin()) + ", " + other + ")";
    }
    return "";
  };
  emit_scope(
      w, scope, needs_membership,
      [&] {
        emit_refresh(w, scope, locals);
        // A lone clause's flag is false here: the level that last set it skipped the tuple.
        for (const Active& a : active) {
          emit_clause(w, a.conds, a.hoisted, active.size() == 1 ? "" : a.done, scope,
                      origin(a.index), locals);
        }
      },
      level, range);
}

void Emission::emit_clause(CodeWriter& w, const std::vector<const Condition*>& conds,
                           const std::vector<bool>& hoisted, const std::string& done,
                           const Scope& scope, const std::string& origin,
                           const Locals& locals) const {
  std::vector<const Condition*> dynamic;
  std::vector<std::string> cached_filters;
  std::vector<std::string> host_calls;
  for (std::size_t j = 0; j < conds.size(); ++j) {
    const Condition& cond = *conds[j];
    if (cond.kind != Kind::Code) {
      dynamic.push_back(&cond);
    } else if (!hoisted[j]) {
      (cached(cond) ? cached_filters : host_calls).push_back(static_code(cond, scope));
    }
  }
  w.open(done.empty() ? "" : "if (!" + done + ")");
  int opened = 1;
  // Cached filters cost a table lookup; other host code is called only when no domain
  // satisfies the clause.
  for (const std::string& s : cached_filters) {
    w.open("if (!" + s + ")");
    ++opened;
  }
  for (std::size_t i = 0; i < dynamic.size(); ++i) {
    w.line("const Truth t" + std::to_string(i) + " = " + truth(*dynamic[i], scope, locals) + ";");
    w.open("if (t" + std::to_string(i) + " != Truth::True)");
    ++opened;
  }
  for (const std::string& s : host_calls) {
    w.open("if (!" + s + ")");
    ++opened;
  }
  if (dynamic.empty()) {
    w.line(fail_call(conds, scope, origin));
  } else {
    std::string unknown;
    for (std::size_t i = 0; i < dynamic.size(); ++i) {
      unknown += (i ? " + " : "") + std::string("(t") + std::to_string(i) + " == Truth::Unknown)";
    }
    w.line("const int unknown = " + unknown + ";");
    w.line("if (unknown == 0) " + fail_call(conds, scope, origin));
    w.open("if (unknown == 1)");
    for (std::size_t i = 0; i < dynamic.size(); ++i) {
      if (dynamic.size() > 1) w.open("if (t" + std::to_string(i) + " == Truth::Unknown)");
      enforce(w, *dynamic[i], scope, origin, locals);
      if (dynamic.size() > 1) w.close();
    }
    w.close();
  }
  for (int i = 0; i < opened; ++i) w.close();
}

}  // namespace sculpt::spacegen
