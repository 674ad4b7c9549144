// The shared text of emitted code: names, origins, the truth of conditions, restrictions,
// host code in scope, wake-up guards.
#include <algorithm>
#include <map>
#include <sstream>

#include "spacegen/emission.h"
#include "spacegen/host_code.h"
#include "spacegen/line_directives.h"

namespace sculpt::spacegen {

using spacedsl::Condition;
using spacedsl::VarId;

std::string loc_string(const spacedsl::SourceLocation& loc) {
  return loc.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

std::string op_name(spacedsl::CompareOp op) {
  switch (op) {
    case spacedsl::CompareOp::Lt:
      return "CompareOp::Lt";
    case spacedsl::CompareOp::Le:
      return "CompareOp::Le";
    case spacedsl::CompareOp::Gt:
      return "CompareOp::Gt";
    case spacedsl::CompareOp::Ge:
      return "CompareOp::Ge";
    case spacedsl::CompareOp::Eq:
      return "CompareOp::Eq";
    case spacedsl::CompareOp::Ne:
      return "CompareOp::Ne";
  }
  return "CompareOp::Eq";
}

std::string counter_op_name(spacedsl::CounterOp op) {
  switch (op) {
    case spacedsl::CounterOp::Sum:
      return "CounterOp::Sum";
    case spacedsl::CounterOp::Mul:
      return "CounterOp::Mul";
    case spacedsl::CounterOp::Max:
      return "CounterOp::Max";
  }
  return "";
}

std::string hex(std::uint64_t v) {
  std::ostringstream out;
  out << "0x" << std::hex << v << "ULL";
  return out.str();
}

bool Emission::hoists_peers() const {
  return std::find(plan_.hoists_peers.begin(), plan_.hoists_peers.end(), true) !=
         plan_.hoists_peers.end();
}

bool Emission::rederived_on(std::size_t i, ChoiceId c) const {
  const std::vector<ChoiceId>& choices = plan_.rederived_on[i];
  return std::find(choices.begin(), choices.end(), c) != choices.end();
}

std::string Emission::slot_expr(SetId s, const std::string& id) const {
  return ranked(s) ? "ranked_slot(" + set_id(s) + ", " + id + ")" : id;
}

std::string Emission::mask(ChoiceId c, std::uint64_t values) const {
  std::string names;
  for (std::size_t v = 0; v < num_values(c); ++v) {
    if ((values >> v) & 1) names += (names.empty() ? "" : "|") + m_.choices[c].values[v].name;
  }
  return hex(values) + " /* " + names + " */";
}

std::string Emission::enum_type(ChoiceId c) const {
  std::size_t n = num_values(c);
  if (n <= 8) return "std::uint8_t";
  if (n <= 16) return "std::uint16_t";
  if (n <= 32) return "std::uint32_t";
  return "std::uint64_t";
}

std::string Emission::static_code(const Condition& cond, const Scope& scope) const {
  const std::optional<std::size_t> k = filter_of(plan_, cond);
  if (!k) return "static_cast<bool>(" + host(cond.code, cond.loc, scope) + ")";
  std::string args;
  for (std::size_t i = 0; i < plan_.filters[*k].vars.size(); ++i) {
    args += (i ? ", " : "") + scope.names[plan_.filters[*k].vars[i]];
  }
  return "filter_" + std::to_string(*k) + "(" + args + ")";
}

std::size_t Emission::counter_index(ChoiceId c) const {
  return static_cast<std::size_t>(std::find(plan_.counter_ids.begin(), plan_.counter_ids.end(), c) -
                                  plan_.counter_ids.begin());
}

std::string Emission::constraint_origin(std::size_t i, std::size_t clause) const {
  return "Origin{" + std::to_string(1 + i) + ", " + std::to_string(clause + 1) + "}";
}

std::string Emission::counter_origin(ChoiceId c) const {
  return "Origin{" + std::to_string(1 + m_.constraints.size() + counter_index(c)) + ", 0}";
}

std::string Emission::quotient_origin(std::size_t q) const {
  return "Origin{" + std::to_string(1 + m_.constraints.size() + plan_.counter_ids.size() + q) +
         ", 0}";
}

std::string Emission::item_expr(SetId s, const std::string& id, const std::string& fun) const {
  return "item_" + m_.sets[s].name + "(" + fun + ", " + id + ")";
}

std::string Emission::host(const std::string& code, const spacedsl::SourceLocation& loc,
                           const Scope& scope) const {
  std::map<std::string, std::string> vars;
  for (VarId v = 0; v < scope.item->vars.size(); ++v) {
    if (v < scope.objects.size() && !scope.objects[v].empty()) {
      vars[scope.item->vars[v].name] = scope.objects[v];
    } else if (!scope.names[v].empty()) {
      vars[scope.item->vars[v].name] = item_expr(scope.item->vars[v].set, scope.names[v], "*fun_");
    }
  }
  return located(loc, substitute(code, vars, "(*fun_)"));
}

std::string Emission::args_of(const ChoiceInstance& ci, const Scope& scope) const {
  std::string out;
  for (std::size_t i = 0; i < ci.args.size(); ++i) {
    out += (i ? ", " : "") + scope.names[ci.args[i]];
  }
  return out;
}

std::string Emission::args_comma(const ChoiceInstance& ci, const Scope& scope) const {
  return ci.args.empty() ? "" : args_of(ci, scope) + ", ";
}

std::string Emission::summary(const ChoiceInstance& ci, const Scope& scope,
                              const Locals& locals) const {
  for (const auto& [pattern, local] : locals.reads) {
    if (pattern.choice == ci.choice && pattern.args == ci.args) return local;
  }
  std::string args = args_of(ci, scope);
  if (hoisted(scope, ci.choice)) {
    args = "slots_" + cname(ci.choice) + (args.empty() ? "" : ", " + args);
  }
  return "get_" + cname(ci.choice) + "(" + args + ")";
}

bool Emission::hoisted(const Scope& scope, ChoiceId c) {
  return std::find(scope.hoisted.begin(), scope.hoisted.end(), c) != scope.hoisted.end();
}

std::string Emission::map_values(ChoiceId from, ChoiceId to, const std::string& expr) const {
  if (same_values(from, to)) return expr;
  return "map_" + cname(from) + "_to_" + cname(to) + "(" + expr + ")";
}

std::string Emission::truth(const Condition& cond, const Scope& scope, const Locals& ov) const {
  switch (cond.kind) {
    case Kind::Is:
      return "truth_is(" + summary(cond.lhs, scope, ov) + ", " +
             mask(cond.lhs.choice, cond.values) + ")";
    case Kind::ChoiceEqual:
    case Kind::ChoiceNotEqual: {
      std::string t;
      if (is_enum(cond.lhs.choice)) {
        t = "truth_enum_equal(" + summary(cond.lhs, scope, ov) + ", " +
            map_values(cond.rhs.choice, cond.lhs.choice, summary(cond.rhs, scope, ov)) + ")";
      } else {
        t = "truth_compare(" + summary(cond.lhs, scope, ov) + ", CompareOp::Eq, " +
            summary(cond.rhs, scope, ov) + ")";
      }
      return cond.kind == Kind::ChoiceEqual ? t : "truth_not(" + t + ")";
    }
    case Kind::CompareCode:
      return "truth_compare(" + summary(cond.lhs, scope, ov) + ", " + op_name(cond.op) +
             ", constant(" + host(cond.code, cond.loc, scope) + "))";
    case Kind::CompareChoices:
      return "truth_compare(" + summary(cond.lhs, scope, ov) + ", " + op_name(cond.op) + ", " +
             summary(cond.rhs, scope, ov) + ")";
    case Kind::Code:
      return "truth_of(" + static_code(cond, scope) + ")";
    case Kind::Constant:
      return cond.constant ? "Truth::True" : "Truth::False";
  }
  return "Truth::Unknown";
}

std::string Emission::check(const std::string& call) {
  return "if (" + call + " == Status::Conflict) return Status::Conflict;";
}

std::string Emission::restrict_range(const ChoiceInstance& ci, const Scope& scope,
                                     const std::string& range, const std::string& origin) const {
  std::string fn = is_counter(ci.choice) ? "bound_" : "restrict_";
  return fn + cname(ci.choice) + "(" + args_comma(ci, scope) + range + ", " + origin + ")";
}

void Emission::enforce(CodeWriter& w, const Condition& cond, const Scope& scope,
                       const std::string& origin, const Locals& locals) const {
  const ChoiceInstance& l = cond.lhs;
  const ChoiceInstance& r = cond.rhs;
  std::string ln = cname(l.choice);
  std::string rn = cname(r.choice);
  // `guard`: a condition on the values read before, under which the restriction applies.
  auto restriction = [&](const std::string& call, const std::string& guard = "") {
    std::string line = check(call);
    if (!locals.refresh) {
      w.line(guard.empty() ? line : "if (" + guard + ") " + line);
      return;
    }
    if (!guard.empty()) w.open("if (" + guard + ")");
    w.line(line);
    w.line("refresh();");
    if (!guard.empty()) w.close();
  };
  switch (cond.kind) {
    case Kind::Is:
      restriction("restrict_" + ln + "(" + args_comma(l, scope) +
                  mask(cond.lhs.choice, cond.values) + ", " + origin + ")");
      break;
    case Kind::ChoiceEqual:
      if (is_enum(l.choice)) {
        restriction("restrict_" + ln + "(" + args_comma(l, scope) +
                    map_values(r.choice, l.choice, summary(r, scope, locals)) + ", " + origin +
                    ")");
        restriction("restrict_" + rn + "(" + args_comma(r, scope) +
                    map_values(l.choice, r.choice, summary(l, scope, locals)) + ", " + origin +
                    ")");
      } else if (!is_counter(l.choice) && !is_counter(r.choice)) {
        restriction("restrict_" + ln + "_like(" + args_comma(l, scope) + "domain_" + rn + "(" +
                    args_of(r, scope) + "), " + origin + ")");
        restriction("restrict_" + rn + "_like(" + args_comma(r, scope) + "domain_" + ln + "(" +
                    args_of(l, scope) + "), " + origin + ")");
      } else {
        restriction(restrict_range(l, scope, summary(r, scope, locals), origin));
        restriction(restrict_range(r, scope, summary(l, scope, locals), origin));
      }
      break;
    case Kind::ChoiceNotEqual:
      if (is_enum(l.choice)) {
        // A fixed side removes its value from the other side.
        std::string rhs = map_values(r.choice, l.choice, summary(r, scope, locals));
        restriction("restrict_" + ln + "(" + args_comma(l, scope) + "~" + rhs + ", " + origin + ")",
                    "single_value(" + rhs + ")");
        std::string lhs = map_values(l.choice, r.choice, summary(l, scope, locals));
        restriction("restrict_" + rn + "(" + args_comma(r, scope) + "~" + lhs + ", " + origin + ")",
                    "single_value(" + lhs + ")");
      } else if (!is_counter(l.choice) && !is_counter(r.choice)) {
        std::string rhs = summary(r, scope, locals);
        restriction(
            "restrict_" + ln + "_remove(" + args_comma(l, scope) + rhs + ".lo, " + origin + ")",
            rhs + ".fixed()");
        std::string lhs = summary(l, scope, locals);
        restriction(
            "restrict_" + rn + "_remove(" + args_comma(r, scope) + lhs + ".lo, " + origin + ")",
            lhs + ".fixed()");
      }
      break;
    case Kind::CompareCode:
      if (cond.op == spacedsl::CompareOp::Ne) {
        if (!is_counter(l.choice)) {
          restriction("restrict_" + ln + "_remove(" + args_comma(l, scope) + "constant(" +
                      host(cond.code, cond.loc, scope) + ").lo, " + origin + ")");
        }
      } else {
        restriction(restrict_range(l, scope,
                                   "allowed_range(" + op_name(cond.op) + ", constant(" +
                                       host(cond.code, cond.loc, scope) + "))",
                                   origin));
      }
      break;
    case Kind::CompareChoices:
      if (cond.op != spacedsl::CompareOp::Ne) {
        restriction(restrict_range(
            l, scope, "allowed_range(" + op_name(cond.op) + ", " + summary(r, scope, locals) + ")",
            origin));
        restriction(restrict_range(
            r, scope,
            "allowed_range(mirror(" + op_name(cond.op) + "), " + summary(l, scope, locals) + ")",
            origin));
      }
      break;
    case Kind::Code:
    case Kind::Constant:
      break;
  }
}

std::optional<Condition> Emission::negation(const Condition& cond) const {
  Condition n = cond;
  switch (cond.kind) {
    case Kind::Is:
      n.values = ~cond.values & full_mask(cond.lhs.choice);
      return n;
    case Kind::ChoiceEqual:
      n.kind = Kind::ChoiceNotEqual;
      return n;
    case Kind::ChoiceNotEqual:
      n.kind = Kind::ChoiceEqual;
      return n;
    case Kind::CompareCode:
    case Kind::CompareChoices:
      n.op = negated_op(cond.op);
      return n;
    case Kind::Code:
    case Kind::Constant:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string Emission::fail_call(const std::vector<const Condition*>& clause, const Scope& scope,
                                const std::string& origin) const {
  for (const Condition* cond : clause) {
    if (uses_choice(*cond, &cond->lhs)) {
      std::string ids = cond->lhs.args.empty() ? "0" : args_of(cond->lhs, scope);
      return "{ const ObjectId ids[] = {" + ids + "}; return fail(" + origin + ", " +
             choice_id(cond->lhs.choice) + ", ids); }";
    }
  }
  return "return fail(" + origin + ", kNoChoice, nullptr);";
}

std::string Emission::guard_text(ChoiceId c, const Wake& wake) const {
  if (wake.table) {
    const std::string classes = wake_class_name(*wake.table, wake.pattern);
    auto read = [&](const std::string& d) {
      return wake.flip ? "flip_" + cname(c) + "(" + d + ")" : d;
    };
    return "(" + classes + "[" + read("old") + "] != " + classes + "[" + read("now") + "])";
  }
  std::string out;
  const std::string test = wake.falsified ? "truth_falsified" : "truth_settled";
  for (ValueSet mask : wake.settled) {
    out += (out.empty() ? "" : " || ") + test + "(old, now, " + hex(mask) + ")";
  }
  return "(" + out + ")";
}

std::string Emission::guarded_by(const std::string& condition) {
  return condition.empty() ? condition : "if " + condition + " ";
}

std::string Emission::wake_guard(ChoiceId c, const Wake& wake) const {
  return guarded_by(wake.always() ? "" : guard_text(c, wake));
}

std::string Emission::support_name(std::size_t constraint, std::size_t pattern) const {
  return "support_" + plan_.constraint_names[constraint] + "_" + std::to_string(pattern);
}

std::string Emission::support_origin(std::size_t constraint) const {
  return "Origin{" + std::to_string(1 + constraint) + ", 0}";
}

std::string Emission::wake_class_name(std::size_t i, std::size_t k) const {
  return "wake_class_" + plan_.constraint_names[i] + "_" + std::to_string(k);
}

std::string Emission::fail_if_none_kept(const std::string& keep, const ChoiceInstance& ci,
                                        const Scope& scope, const std::string& origin) const {
  const std::string ids = ci.args.empty() ? "0" : args_of(ci, scope);
  return "if (" + keep + " == 0) { const ObjectId ids[] = {" + ids + "}; return fail(" + origin +
         ", " + choice_id(ci.choice) + ", ids); }";
}

std::string Emission::pattern_text(const Item& item, const Pattern& pattern) const {
  std::string args;
  for (VarId v : pattern.args) args += (args.empty() ? "$" : ", $") + item.vars[v].name;
  return cname(pattern.choice) + "(" + args + ")";
}

bool Emission::may_alias(const std::vector<Pattern>& ps) const {
  for (std::size_t p = 0; p < ps.size(); ++p) {
    for (std::size_t q = p + 1; q < ps.size(); ++q) {
      if (ps[p].choice != ps[q].choice || !triangular(ps[p].choice)) continue;
      if (std::is_permutation(ps[p].args.begin(), ps[p].args.end(), ps[q].args.begin())) {
        return true;
      }
    }
  }
  return false;
}

std::string Emission::header_line() const {
  return "// Generated by spacegen from " + o_.source_name + "; do not edit.";
}

void Emission::open_source(CodeWriter& w, const std::vector<std::string>& comment,
                           const std::vector<std::string>& includes) const {
  w.line(header_line());
  for (const std::string& line : comment) w.line("// " + line);
  bool system = false;
  for (const std::string& include : includes) {
    if (system && include.front() != '<') w.line();
    system = include.front() == '<';
    w.line("#include " + include);
  }
  w.line();
  w.line("namespace " + o_.ns + " {");
  w.line();
  w.line("using namespace sculpt::spacegen;  // NOLINT: generated code");
  w.line();
}

void Emission::close_source(CodeWriter& w) const { w.line("}  // namespace " + o_.ns); }

std::string Emission::id_params(std::size_t n) const {
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    out += (i ? ", " : "") + std::string("ObjectId a") + std::to_string(i);
  return out;
}

std::string Emission::id_list(std::size_t n) const {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += (i ? ", " : "") + std::string("a") + std::to_string(i);
  return out;
}

std::string Emission::enum_load(ChoiceId c, const std::string& slots,
                                const std::string& index) const {
  if (packed(c)) {
    return "load_packed(" + slots + ", " + index + ", " + std::to_string(num_values(c)) + ")";
  }
  return "load_at<" + enum_type(c) + ">(" + slots + " + " + index + " * sizeof(" + enum_type(c) +
         "))";
}

std::string Emission::index_expr(ChoiceId c, std::size_t n) const {
  return "index_" + cname(c) + "(" + id_list(n) + ")";
}

std::string Emission::queue_param(ChoiceId c, const std::string& init) const {
  return plan_.woken_only_by_own_check[c] ? ", bool queue" + init : "";
}

}  // namespace sculpt::spacegen
