#include "spacegen/generator.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include "spacegen/code_writer.h"
#include "spacegen/runtime/domain.h"
#include "support/check.h"

namespace sculpt::spacegen {

namespace {

using spacedsl::ChoiceId;
using spacedsl::ChoiceInstance;
using spacedsl::ChoiceKind;
using spacedsl::Condition;
using spacedsl::Model;
using spacedsl::SetId;
using spacedsl::Variable;
using spacedsl::VarId;
using Kind = spacedsl::Condition::Kind;

const char* const kFiles[] = {"domains.h",       "space.h",      "decision_vector.cpp",
                              "propagators.cpp", "counters.cpp", "triggers.cpp"};

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

// The model's comparison operators are the runtime's, in the same order: the runtime's
// negation and mirror serve the generator too.
static_assert(static_cast<int>(spacedsl::CompareOp::Lt) == static_cast<int>(CompareOp::Lt) &&
              static_cast<int>(spacedsl::CompareOp::Le) == static_cast<int>(CompareOp::Le) &&
              static_cast<int>(spacedsl::CompareOp::Gt) == static_cast<int>(CompareOp::Gt) &&
              static_cast<int>(spacedsl::CompareOp::Ge) == static_cast<int>(CompareOp::Ge) &&
              static_cast<int>(spacedsl::CompareOp::Eq) == static_cast<int>(CompareOp::Eq) &&
              static_cast<int>(spacedsl::CompareOp::Ne) == static_cast<int>(CompareOp::Ne));

spacedsl::CompareOp negated_op(spacedsl::CompareOp op) {
  return static_cast<spacedsl::CompareOp>(negate(static_cast<CompareOp>(op)));
}

/// `x op y` seen from y: `y op' x`.
spacedsl::CompareOp mirrored_op(spacedsl::CompareOp op) {
  return static_cast<spacedsl::CompareOp>(mirror(static_cast<CompareOp>(op)));
}

std::string hex(std::uint64_t v) {
  std::ostringstream out;
  out << "0x" << std::hex << v << "ULL";
  return out.str();
}

/// A constraint, counter term, trigger or quotient condition after quotient desugaring:
/// variables and clauses (disjunctions). Counters and triggers use one clause read as a
/// conjunction.
struct Item {
  std::vector<Variable> vars;
  std::vector<std::vector<Condition>> clauses;
  std::vector<VarId> value_vars;  // counters: the variables their value reads
  bool reads_all = false;         // its code uses every variable (triggers, argument tuples)
  /// Constraints, by clause: whether posting the clause settles it for good (wakes skip it).
  std::vector<bool> settled = {};
};

/// A choice read with given variables: the unit that wakes propagators.
struct Pattern {
  ChoiceId choice;
  std::vector<VarId> args;
  friend bool operator==(const Pattern&, const Pattern&) = default;
};

/// A host-code condition evaluated once per object tuple when the layout is made.
struct StaticFilter {
  const Condition* cond;
  const Item* item;
  std::vector<VarId> vars;  // the variables the code mentions (at most two)
};

/// The lowering a trigger (or a quotient's `add_to_set`) runs.
struct TriggerCode {
  std::string code;
  std::string doc;
  spacedsl::SourceLocation loc;
};

/// What an emitted scope knows: the C++ expression of each bound variable's id.
struct Scope {
  const Item* item;
  std::vector<std::string> names;
  /// Host objects already fetched into locals, by variable (empty: fetched where used).
  std::vector<std::string> objects = {};
  /// Enum choices read through a local `slots_<choice>` hoisted out of the loops.
  std::vector<ChoiceId> hoisted = {};
};

/// Choice instances read from locals instead of the decision vector: the old domain in counter
/// updates, or the instances a group of clauses reads once per tuple.
struct Locals {
  std::vector<std::pair<Pattern, std::string>> reads;  // the instance and its local
  bool refresh = false;  // the locals are read again (`refresh();`) after each restriction
};

/// A constraint whose clauses read two or three enum instances and nothing else (no host code,
/// no integers), with domains small enough that, for each instance, the values it may keep
/// given every pair of domains of the others fit in a table computed at generation time.
/// Propagating a tuple is then one lookup per instance, and it removes every value without a
/// supporting assignment of the others (arc consistency on the tuple), which checking clause
/// by clause does not.
struct SupportTable {
  std::vector<Pattern> patterns;
  /// Its variables range over one set and the constraint holds for every permutation of them
  /// (each pattern, permuted, is another pattern or its flip): the table is the conjunction
  /// over the permutations, so one tuple per set of objects needs checking, and a change is
  /// propagated through one of the patterns of its choice.
  bool symmetric = false;
  /// keep[i][index of the other domains, the first one in the high bits]: the values of
  /// pattern i supported by some values of those domains.
  std::vector<std::vector<std::uint64_t>> keep;
  /// wake_classes[k][domain of pattern k]: two domains share a class when the tables keep the
  /// same values of every other pattern with one as with the other, whatever the other
  /// domains. Empty when every domain has its own class.
  std::vector<std::vector<std::uint8_t>> wake_classes;
};

/// Index bits of one support table (the values of the other instances together).
constexpr std::size_t kMaxSupportIndexBits = 12;

class Generator {
 public:
  Generator(const Model& model, const GeneratorOptions& options) : m_(model), o_(options) {
    build_items();
  }

  std::vector<GeneratedFile> run() {
    std::vector<GeneratedFile> files;
    std::string propagators = propagators_cpp();
    std::string counters = counters_cpp();
    std::string triggers = triggers_cpp();
    std::uint64_t hash = 1469598103934665603ULL;
    for (const std::string* s : {&propagators, &counters, &triggers}) {
      for (char c : *s) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    }
    for (const auto& c : m_.choices) {
      for (const auto& v : c.values) {
        for (char ch : c.name + "." + v.name) {
          hash = (hash ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
        }
      }
    }
    files.push_back({kFiles[0], domains_h()});
    files.push_back({kFiles[1], space_h()});
    files.push_back({kFiles[2], decision_vector_cpp(hash)});
    files.push_back({kFiles[3], std::move(propagators)});
    files.push_back({kFiles[4], std::move(counters)});
    files.push_back({kFiles[5], std::move(triggers)});
    return files;
  }

 private:
  // ----- Model helpers -----------------------------------------------------------------

  bool is_quotient(SetId s) const { return m_.sets[s].quotient.has_value(); }
  bool is_parametric(SetId s) const { return m_.sets[s].parameter.has_value(); }
  /// The set a quantifier really iterates: a quotient's element set, else the set itself.
  SetId effective_set(SetId s) const {
    while (is_quotient(s)) s = m_.quotients[*m_.sets[s].quotient].vars.back().set;
    return s;
  }
  /// The set whose membership bitset tells whether an object can be a member of `s`.
  SetId membership_set(SetId s) const {
    s = effective_set(s);
    while (is_parametric(s)) s = effective_set(*m_.sets[s].superset);
    return s;
  }
  SetId root(SetId s) const {
    s = effective_set(s);
    while (m_.sets[s].superset) s = effective_set(*m_.sets[s].superset);
    return s;
  }
  /// Whether a plain set's instances are numbered over an `all_ids` list (its own or its
  /// nearest plain superset's) rather than over ids.
  bool ranked(SetId s) const {
    while (m_.sets[s].all_ids.empty()) {
      if (!m_.sets[s].superset) return false;
      s = effective_set(*m_.sets[s].superset);
    }
    return true;
  }
  /// The slot of object `id` of membership set `s` (see Layout::slot).
  std::string slot_expr(SetId s, const std::string& id) const {
    return ranked(s) ? "ranked_slot(" + set_id(s) + ", " + id + ")" : id;
  }
  bool triangular(ChoiceId c) const {
    return m_.choices[c].symmetric || !m_.choices[c].antisymmetric_map.empty();
  }
  bool antisymmetric(ChoiceId c) const { return !m_.choices[c].antisymmetric_map.empty(); }
  const std::string& cname(ChoiceId c) const { return m_.choices[c].name; }
  std::string choice_id(ChoiceId c) const { return "choice_id::" + cname(c); }
  std::string set_id(SetId s) const { return "set_id::" + m_.sets[s].name; }
  std::size_t num_values(ChoiceId c) const { return m_.choices[c].values.size(); }
  std::uint64_t full_mask(ChoiceId c) const {
    std::size_t n = num_values(c);
    return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  }
  /// A value set of choice c, with its value names in a comment.
  std::string mask(ChoiceId c, std::uint64_t values) const {
    std::string names;
    for (std::size_t v = 0; v < num_values(c); ++v) {
      if ((values >> v) & 1) names += (names.empty() ? "" : "|") + m_.choices[c].values[v].name;
    }
    return hex(values) + " /* " + names + " */";
  }
  std::string enum_type(ChoiceId c) const {
    std::size_t n = num_values(c);
    if (n <= 8) return "std::uint8_t";
    if (n <= 16) return "std::uint16_t";
    if (n <= 32) return "std::uint32_t";
    return "std::uint64_t";
  }
  std::uint64_t value_bit(ChoiceId c, const std::string& name) const {
    const auto& values = m_.choices[c].values;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i].name == name) return std::uint64_t{1} << i;
    }
    SCULPT_CHECK(false) << "choice " << cname(c) << " has no value " << name;
    return 0;
  }

  // ----- Quotient desugaring -----------------------------------------------------------

  /// `repr(params, $v) is <value>` for a variable over a quotient set.
  Condition repr_condition(const std::vector<Variable>& vars, VarId v, const char* value) const {
    const spacedsl::Quotient& q = m_.quotients[*m_.sets[vars[v].set].quotient];
    Condition cond;
    cond.kind = Kind::Is;
    cond.loc = vars[v].loc;
    cond.lhs.choice = q.repr_choice;
    cond.lhs.loc = vars[v].loc;
    if (vars[v].set_parameter) cond.lhs.args.push_back(*vars[v].set_parameter);
    cond.lhs.args.push_back(v);
    cond.values = value_bit(q.repr_choice, value);
    return cond;
  }

  void build_items() {
    for (const auto& c : m_.constraints) {
      Item item{c.vars, {}, {}, false};
      for (const auto& clause : c.clauses) {
        std::vector<Condition> conds = clause.conditions;
        for (VarId v = 0; v < c.vars.size(); ++v) {
          if (is_quotient(c.vars[v].set)) conds.push_back(repr_condition(c.vars, v, "FALSE"));
        }
        item.clauses.push_back(std::move(conds));
      }
      constraints_.push_back(std::move(item));
    }
    for (ChoiceId id = 0; id < m_.choices.size(); ++id) {
      const auto& choice = m_.choices[id];
      if (choice.kind != ChoiceKind::Counter) continue;
      const spacedsl::Counter& counter = *choice.counter;
      Item item{choice.args, {counter.when}, {}, false};
      item.vars.insert(item.vars.end(), counter.forall.begin(), counter.forall.end());
      for (VarId v = 0; v < item.vars.size(); ++v) {
        if (is_quotient(item.vars[v].set)) {
          item.clauses[0].push_back(repr_condition(item.vars, v, "TRUE"));
        }
      }
      if (counter.value.choice) {
        item.value_vars = counter.value.choice->args;
      } else {
        item.value_vars = code_vars(counter.value.code, item);
      }
      counter_ids_.push_back(id);
      counters_.push_back(std::move(item));
    }
    for (const auto& t : m_.triggers) {
      Item item{t.vars, {t.conditions}, {}, true};
      for (VarId v = 0; v < t.vars.size(); ++v) {
        if (is_quotient(t.vars[v].set)) {
          item.clauses[0].push_back(repr_condition(t.vars, v, "TRUE"));
        }
      }
      triggers_.push_back(std::move(item));
      trigger_code_.push_back({t.code, t.doc, t.loc});
    }
    for (const auto& q : m_.quotients) quotients_.push_back(Item{q.vars, {q.condition}, {}, false});
    // `add_to_set` runs like a trigger once an object is certainly a representative.
    for (const auto& q : m_.quotients) {
      const spacedsl::Set& set = m_.sets[q.set];
      if (set.add_to_set.empty()) continue;
      Condition repr;
      repr.kind = Kind::Is;
      repr.loc = q.loc;
      repr.lhs.choice = q.repr_choice;
      repr.lhs.loc = q.loc;
      for (VarId v = 0; v < q.vars.size(); ++v) repr.lhs.args.push_back(v);
      repr.values = value_bit(q.repr_choice, "TRUE");
      triggers_.push_back(Item{q.vars, {{repr}}, {}, true});
      std::string code = substitute_keep(set.add_to_set, "item", "$" + q.vars.back().name);
      trigger_code_.push_back({code, "add_to_set of " + set.name, set.loc});
    }
    // Counters whose values read other counters come after them.
    std::vector<int> state(m_.choices.size(), 0);
    std::function<void(ChoiceId)> visit = [&](ChoiceId c) {
      if (state[c] != 0) return;
      state[c] = 1;
      const auto& counter = *m_.choices[c].counter;
      if (counter.value.choice && m_.choices[counter.value.choice->choice].counter) {
        visit(counter.value.choice->choice);
      }
      for (const auto& cond : counter.when) {
        for (const ChoiceInstance* ci : {&cond.lhs, &cond.rhs}) {
          if (uses_choice(cond, ci) && m_.choices[ci->choice].counter) visit(ci->choice);
        }
      }
      state[c] = 2;
      counter_order_.push_back(c);
    };
    for (ChoiceId c : counter_ids_) visit(c);
    for (const auto* items : {&constraints_, &counters_, &triggers_, &quotients_}) {
      for (const Item& item : *items) {
        for (const auto& clause : item.clauses) {
          for (const auto& cond : clause) {
            if (cond.kind == Kind::Code) add_filter(cond, item);
          }
        }
      }
    }
    for (Item& item : constraints_) {
      supports_.push_back(support_table(item));
      for (const auto& clause : item.clauses) {
        item.settled.push_back(!supports_.back() && settled_when_posted(clause));
      }
    }
    // Origins: 0 is the search's action, then constraints, counters, quotients.
    origins_.push_back({"action", ""});
    for (std::size_t i = 0; i < m_.constraints.size(); ++i) {
      origins_.push_back({constraint_name(i), loc_string(m_.constraints[i].loc)});
    }
    for (ChoiceId c : counter_ids_) {
      origins_.push_back({"counter " + cname(c), loc_string(m_.choices[c].loc)});
    }
    for (const auto& q : m_.quotients) {
      origins_.push_back({"quotient " + m_.sets[q.set].name, loc_string(q.loc)});
    }
  }

  /// The variables of `item` that host code names, in order of first mention.
  static std::vector<VarId> code_vars(const std::string& code, const Item& item) {
    std::vector<VarId> vars;
    for (std::size_t i = 0; i < code.size(); ++i) {
      if (code[i] != '$') continue;
      std::size_t j = i + 1;
      while (j < code.size() &&
             (std::isalnum(static_cast<unsigned char>(code[j])) || code[j] == '_')) {
        ++j;
      }
      std::string name = code.substr(i + 1, j - i - 1);
      for (VarId v = 0; v < item.vars.size(); ++v) {
        if (item.vars[v].name == name && std::find(vars.begin(), vars.end(), v) == vars.end()) {
          vars.push_back(v);
        }
      }
    }
    return vars;
  }

  /// Caches `cond` per object tuple when it names at most two variables, none over a
  /// parametric set (whose members the layout cannot enumerate).
  void add_filter(const Condition& cond, const Item& item) {
    std::vector<VarId> vars = code_vars(cond.code, item);
    if (vars.size() > 2) return;
    for (VarId v : vars) {
      if (is_parametric(effective_set(item.vars[v].set))) return;
    }
    filters_.push_back({&cond, &item, vars});
  }
  /// The static filter caching `cond`, if any.
  std::optional<std::size_t> filter_of(const Condition& cond) const {
    for (std::size_t k = 0; k < filters_.size(); ++k) {
      if (filters_[k].cond == &cond) return k;
    }
    return std::nullopt;
  }
  bool cached(const Condition& cond) const { return filter_of(cond).has_value(); }
  /// The boolean value of a host-code condition: the cached filter when there is one.
  std::string static_code(const Condition& cond, const Scope& scope) const {
    const std::optional<std::size_t> k = filter_of(cond);
    if (!k) return "static_cast<bool>(" + host(cond.code, scope) + ")";
    std::string args;
    for (std::size_t i = 0; i < filters_[*k].vars.size(); ++i) {
      args += (i ? ", " : "") + scope.names[filters_[*k].vars[i]];
    }
    return "filter_" + std::to_string(*k) + "(" + args + ")";
  }

  std::string constraint_name(std::size_t i) const {
    const std::string& doc = m_.constraints[i].doc;
    std::string first = doc.substr(0, doc.find('\n'));
    return "constraint " + std::to_string(i) + (first.empty() ? "" : " (" + first + ")");
  }
  std::size_t counter_index(ChoiceId c) const {
    return static_cast<std::size_t>(std::find(counter_ids_.begin(), counter_ids_.end(), c) -
                                    counter_ids_.begin());
  }
  std::string constraint_origin(std::size_t i, std::size_t clause) const {
    return "Origin{" + std::to_string(1 + i) + ", " + std::to_string(clause + 1) + "}";
  }
  std::string counter_origin(ChoiceId c) const {
    return "Origin{" + std::to_string(1 + m_.constraints.size() + counter_index(c)) + ", 0}";
  }
  std::string quotient_origin(std::size_t q) const {
    return "Origin{" + std::to_string(1 + m_.constraints.size() + counter_ids_.size() + q) + ", 0}";
  }

  /// Whether `ci` (lhs or rhs of `cond`) names a choice instance.
  static bool uses_choice(const Condition& cond, const ChoiceInstance* ci) {
    switch (cond.kind) {
      case Kind::Is:
      case Kind::CompareCode:
        return ci == &cond.lhs;
      case Kind::ChoiceEqual:
      case Kind::ChoiceNotEqual:
      case Kind::CompareChoices:
        return true;
      case Kind::Code:
      case Kind::Constant:
        return false;
    }
    return false;
  }

  static std::vector<Pattern> patterns_of(const std::vector<Condition>& conds) {
    std::vector<Pattern> out;
    for (const auto& cond : conds) {
      for (const ChoiceInstance* ci : {&cond.lhs, &cond.rhs}) {
        if (!uses_choice(cond, ci)) continue;
        Pattern p{ci->choice, ci->args};
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
      }
    }
    return out;
  }
  static std::vector<Pattern> patterns_of(const Item& item) {
    std::vector<Pattern> out;
    for (const auto& clause : item.clauses) {
      for (const Pattern& p : patterns_of(clause)) {
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
      }
    }
    return out;
  }
  static bool clause_has(const std::vector<Condition>& clause, const Pattern& p) {
    auto ps = patterns_of(clause);
    return std::find(ps.begin(), ps.end(), p) != ps.end();
  }

  // ----- Host code -----------------------------------------------------------------------

  /// Replaces `$name` by the expressions of `vars` and `$fun` by `fun`.
  static std::string substitute(const std::string& code,
                                const std::map<std::string, std::string>& vars,
                                const std::string& fun) {
    std::string out;
    for (std::size_t i = 0; i < code.size();) {
      if (code[i] != '$') {
        out.push_back(code[i++]);
        continue;
      }
      std::size_t j = i + 1;
      while (j < code.size() &&
             (std::isalnum(static_cast<unsigned char>(code[j])) || code[j] == '_')) {
        ++j;
      }
      std::string name = code.substr(i + 1, j - i - 1);
      if (name == "fun") {
        out += fun;
      } else if (auto it = vars.find(name); it != vars.end()) {
        out += "(" + it->second + ")";
      } else {
        out += code.substr(i, j - i);
      }
      i = j;
    }
    return out;
  }

  /// Renames `$name` to `replacement` (another `$variable`) in host code.
  static std::string substitute_keep(const std::string& code, const std::string& name,
                                     const std::string& replacement) {
    std::string out;
    for (std::size_t i = 0; i < code.size();) {
      std::size_t j = i + 1;
      if (code[i] == '$') {
        while (j < code.size() &&
               (std::isalnum(static_cast<unsigned char>(code[j])) || code[j] == '_')) {
          ++j;
        }
        if (code.substr(i + 1, j - i - 1) == name) {
          out += replacement;
          i = j;
          continue;
        }
      }
      out += code.substr(i, j - i);
      i = j;
    }
    return out;
  }

  std::string item_expr(SetId s, const std::string& id, const std::string& fun) const {
    return "item_" + m_.sets[s].name + "(" + fun + ", " + id + ")";
  }

  /// Host code in a scope: variables become their host objects.
  std::string host(const std::string& code, const Scope& scope) const {
    std::map<std::string, std::string> vars;
    for (VarId v = 0; v < scope.item->vars.size(); ++v) {
      if (v < scope.objects.size() && !scope.objects[v].empty()) {
        vars[scope.item->vars[v].name] = scope.objects[v];
      } else if (!scope.names[v].empty()) {
        vars[scope.item->vars[v].name] =
            item_expr(scope.item->vars[v].set, scope.names[v], "*fun_");
      }
    }
    return substitute(code, vars, "(*fun_)");
  }

  // ----- Reading and restricting choice instances ----------------------------------------

  std::string args_of(const ChoiceInstance& ci, const Scope& scope) const {
    std::string out;
    for (std::size_t i = 0; i < ci.args.size(); ++i) {
      out += (i ? ", " : "") + scope.names[ci.args[i]];
    }
    return out;
  }
  std::string args_comma(const ChoiceInstance& ci, const Scope& scope) const {
    return ci.args.empty() ? "" : args_of(ci, scope) + ", ";
  }
  /// ValueSet for enums, Interval for integers and counters.
  std::string summary(const ChoiceInstance& ci, const Scope& scope, const Locals& locals) const {
    for (const auto& [pattern, local] : locals.reads) {
      if (pattern.choice == ci.choice && pattern.args == ci.args) return local;
    }
    std::string args = args_of(ci, scope);
    if (hoisted(scope, ci.choice)) {
      args = "slots_" + cname(ci.choice) + (args.empty() ? "" : ", " + args);
    }
    return "get_" + cname(ci.choice) + "(" + args + ")";
  }
  static bool hoisted(const Scope& scope, ChoiceId c) {
    return std::find(scope.hoisted.begin(), scope.hoisted.end(), c) != scope.hoisted.end();
  }
  /// Declares `slots_<c>` for the enum choices of `patterns` when `scope` still has variables
  /// to loop over (the accessor would reload the layout and block at every read otherwise).
  void hoist_slots(CodeWriter& w, Scope& scope, const std::vector<Pattern>& patterns) const {
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
  /// Maps an enum domain of `from` onto the values of `to` with the same names.
  std::string map_values(ChoiceId from, ChoiceId to, const std::string& expr) const {
    if (from == to) return expr;
    bool same = num_values(from) == num_values(to);
    for (std::size_t i = 0; same && i < num_values(from); ++i) {
      same = m_.choices[from].values[i].name == m_.choices[to].values[i].name;
    }
    if (same) return expr;
    return "map_" + cname(from) + "_to_" + cname(to) + "(" + expr + ")";
  }
  bool is_enum(ChoiceId c) const { return m_.choices[c].kind == ChoiceKind::Enum; }
  bool is_counter(ChoiceId c) const { return m_.choices[c].kind == ChoiceKind::Counter; }

  std::string truth(const Condition& cond, const Scope& scope, const Locals& ov) const {
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
               ", constant(" + host(cond.code, scope) + "))";
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

  static std::string check(const std::string& call) {
    return "if (" + call + " == Status::Conflict) return Status::Conflict;";
  }

  /// The call restricting `ci` to the values allowed by `range` (integers and counters).
  std::string restrict_range(const ChoiceInstance& ci, const Scope& scope, const std::string& range,
                             const std::string& origin) const {
    std::string fn = is_counter(ci.choice) ? "bound_" : "restrict_";
    return fn + cname(ci.choice) + "(" + args_comma(ci, scope) + range + ", " + origin + ")";
  }

  /// Emits what makes `cond` hold; conditions on host code only cannot be forced. Each
  /// restriction is followed by `refresh();` when the locals are re-read.
  void enforce(CodeWriter& w, const Condition& cond, const Scope& scope, const std::string& origin,
               const Locals& locals = {}) const {
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
          restriction(
              "restrict_" + ln + "(" + args_comma(l, scope) + "~" + rhs + ", " + origin + ")",
              "single_value(" + rhs + ")");
          std::string lhs = map_values(l.choice, r.choice, summary(l, scope, locals));
          restriction(
              "restrict_" + rn + "(" + args_comma(r, scope) + "~" + lhs + ", " + origin + ")",
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
                        host(cond.code, scope) + ").lo, " + origin + ")");
          }
        } else {
          restriction(restrict_range(
              l, scope,
              "allowed_range(" + op_name(cond.op) + ", constant(" + host(cond.code, scope) + "))",
              origin));
        }
        break;
      case Kind::CompareChoices:
        if (cond.op != spacedsl::CompareOp::Ne) {
          restriction(restrict_range(
              l, scope,
              "allowed_range(" + op_name(cond.op) + ", " + summary(r, scope, locals) + ")",
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

  /// The condition that holds exactly when `cond` does not; nullopt when it cannot be forced.
  std::optional<Condition> negation(const Condition& cond) const {
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

  /// The instance named in a conflict when every condition of a clause is false.
  std::string fail_call(const std::vector<const Condition*>& clause, const Scope& scope,
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

  // ----- Scopes: binding variables, loops, membership and distinctness -------------------

  /// Called by emit_scope once the variables bound so far are checked (before the first loop,
  /// then inside each loop): `ready[v]` says whether $v is bound to a valid object (a member,
  /// distinct from the others); `in_loop` whether a `continue` skips to the next tuple (else
  /// the enclosing function may return).
  using LevelHook = std::function<void(const std::vector<bool>& ready, bool in_loop)>;
  /// Called by emit_scope before it loops over the members of set `s` to bind $v, with the
  /// variables `ready` so far: the range of a loop that skips objects the body would skip for
  /// any value of the later variables (see FilterTable::holding), or empty for every member.
  using LoopRange = std::function<std::string(VarId v, SetId s, const std::vector<bool>& ready)>;

  /// Emits the loops binding every unbound variable of `scope` (in declaration order) and
  /// the checks that make a tuple valid (membership of variables bound from outside,
  /// distinct objects), then `body`, then closes everything. `level`, when given, runs after
  /// the checks of each binding; `range`, when given, may narrow the loops over members.
  void emit_scope(CodeWriter& w, Scope& scope, const std::vector<bool>& needs_membership,
                  const std::function<void()>& body, const LevelHook& level = {},
                  const LoopRange& range = {}) const {
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
        std::string iter = substitute(set.iterator, {{set.parameter->name, param}}, "(*fun_)");
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
        std::string iter = substitute(set.reverse->code, {{set.reverse->var, item}}, "(*fun_)");
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

  /// Whether the code of a scope reads $v beyond its loop: a condition, the counter's value,
  /// a distinctness check or the parameter of another variable.
  bool reads_var(const Scope& scope, VarId v) const {
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

  /// A bound variable over a parametric set with a `reverse` field whose parameter is `p`.
  std::optional<VarId> reversible_member(const Scope& scope, VarId p) const {
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

  /// Binds the pattern's variables from `ids` and returns which need a membership test.
  std::vector<bool> bind_pattern(CodeWriter& w, Scope& scope, const Pattern& p) const {
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

  /// The variables a condition reads: its choice instances' arguments and the `$names` of its
  /// host code.
  std::vector<VarId> condition_vars(const Condition& cond, const Item& item) const {
    std::vector<VarId> out;
    for (const ChoiceInstance* ci : {&cond.lhs, &cond.rhs}) {
      if (uses_choice(cond, ci)) out.insert(out.end(), ci->args.begin(), ci->args.end());
    }
    if (cond.kind == Kind::Code || cond.kind == Kind::CompareCode) {
      for (VarId v : code_vars(cond.code, item)) out.push_back(v);
    }
    return out;
  }

  static bool all_bound(const std::vector<VarId>& vars, const std::vector<bool>& ready) {
    return std::all_of(vars.begin(), vars.end(), [&](VarId v) { return ready[v]; });
  }

  /// Declares a local holding the domain (or bounds) of each pattern whose variables are now
  /// bound, so that the innermost level reads each instance once per tuple.
  void declare_ready_locals(CodeWriter& w, const std::vector<Pattern>& patterns,
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

  /// `refresh()` reads every local again (after a restriction).
  void emit_refresh(CodeWriter& w, const Scope& scope, const Locals& locals) const {
    if (locals.reads.empty()) return;
    std::string reads;
    for (const auto& [pattern, local] : locals.reads) {
      ChoiceInstance ci{pattern.choice, pattern.args, {}};
      reads += " " + local + " = " + summary(ci, scope, {}) + ";";
    }
    w.line("[[maybe_unused]] const auto refresh = [&] {" + reads + " };");
  }

  /// The support table of a constraint, when it qualifies (see SupportTable).
  std::optional<SupportTable> support_table(const Item& item) const {
    for (const auto& clause : item.clauses) {
      for (const Condition& cond : clause) {
        bool enum_only = cond.kind == Kind::Constant ||
                         ((cond.kind == Kind::Is || cond.kind == Kind::ChoiceEqual ||
                           cond.kind == Kind::ChoiceNotEqual) &&
                          is_enum(cond.lhs.choice));
        if (!enum_only) return std::nullopt;
      }
    }
    SupportTable table{patterns_of(item), false, {}, {}};
    const std::vector<Pattern>& ps = table.patterns;
    if (ps.size() < 2 || ps.size() > 3) return std::nullopt;
    std::size_t total_bits = 0;
    for (const Pattern& p : ps) total_bits += num_values(p.choice);
    for (const Pattern& p : ps) {
      if (total_bits - num_values(p.choice) > kMaxSupportIndexBits) return std::nullopt;
    }
    // The permutations of the variables under which the constraint is read: the identity, or
    // every permutation when each maps the patterns onto patterns (or their flips).
    std::vector<std::vector<VarId>> perms{std::vector<VarId>(item.vars.size())};
    std::iota(perms[0].begin(), perms[0].end(), VarId{0});
    table.symmetric = std::all_of(item.vars.begin(), item.vars.end(), [&](const Variable& v) {
      return v.set == item.vars[0].set && !is_parametric(effective_set(v.set));
    });
    for (std::vector<VarId> perm = perms[0];
         table.symmetric && std::next_permutation(perm.begin(), perm.end());) {
      table.symmetric = std::all_of(ps.begin(), ps.end(), [&](const Pattern& p) {
        return permuted_pattern(ps, p, perm).has_value();
      });
      perms.push_back(perm);
    }
    if (!table.symmetric) perms.resize(1);
    auto holds = [&](const Condition& cond, const std::vector<std::size_t>& value,
                     const std::vector<VarId>& perm) {
      auto value_of = [&](const ChoiceInstance& ci) {
        auto [q, flipped] = *permuted_pattern(ps, Pattern{ci.choice, ci.args}, perm);
        return flipped ? m_.choices[ci.choice].antisymmetric_map[value[q]] : value[q];
      };
      if (cond.kind == Kind::Constant) return cond.constant;
      std::size_t l = value_of(cond.lhs);
      if (cond.kind == Kind::Is) return ((cond.values >> l) & 1) != 0;
      const std::string& ln = m_.choices[cond.lhs.choice].values[l].name;
      const std::string& rn = m_.choices[cond.rhs.choice].values[value_of(cond.rhs)].name;
      return (ln == rn) == (cond.kind == Kind::ChoiceEqual);
    };
    // Every assignment that satisfies all clauses, under every permutation read.
    std::vector<std::vector<std::size_t>> allowed;
    std::vector<std::size_t> value(ps.size(), 0);
    while (true) {
      bool ok = std::all_of(perms.begin(), perms.end(), [&](const std::vector<VarId>& perm) {
        return std::all_of(item.clauses.begin(), item.clauses.end(), [&](const auto& clause) {
          return std::any_of(clause.begin(), clause.end(),
                             [&](const Condition& c) { return holds(c, value, perm); });
        });
      });
      if (ok) allowed.push_back(value);
      std::size_t i = 0;
      while (i < ps.size() && ++value[i] == num_values(ps[i].choice)) value[i++] = 0;
      if (i == ps.size()) break;
    }
    for (std::size_t i = 0; i < ps.size(); ++i) {
      std::size_t bits = total_bits - num_values(ps[i].choice);
      std::vector<std::uint64_t> keep(std::size_t{1} << bits, 0);
      for (std::size_t index = 0; index < keep.size(); ++index) {
        for (const auto& a : allowed) {
          bool supported = true;
          for (std::size_t j = 0; j < ps.size(); ++j) {
            if (j == i) continue;
            supported = supported && ((index >> (index_shift(ps, i, j) + a[j])) & 1) != 0;
          }
          if (supported) keep[index] |= std::uint64_t{1} << a[i];
        }
      }
      table.keep.push_back(std::move(keep));
    }
    for (std::size_t k = 0; k < ps.size(); ++k)
      table.wake_classes.push_back(wake_classes(table, k));
    return table;
  }

  /// Pattern `p` with its variables renamed by `perm`: the index of the pattern of `ps` it
  /// reads and whether it reads it flipped (an antisymmetric choice with swapped arguments).
  std::optional<std::pair<std::size_t, bool>> permuted_pattern(
      const std::vector<Pattern>& ps, const Pattern& p, const std::vector<VarId>& perm) const {
    Pattern image{p.choice, {}};
    for (VarId v : p.args) image.args.push_back(perm[v]);
    for (std::size_t q = 0; q < ps.size(); ++q) {
      if (ps[q] == image) return std::pair{q, false};
    }
    if (image.args.size() != 2 || !triangular(p.choice)) return std::nullopt;
    std::swap(image.args[0], image.args[1]);
    for (std::size_t q = 0; q < ps.size(); ++q) {
      if (ps[q] == image) return std::pair{q, antisymmetric(p.choice)};
    }
    return std::nullopt;
  }

  /// A clause whose only choice condition is an enum `is` (the others are static): posting
  /// restricts that instance to the values the clause allows and, since domains only shrink,
  /// no later change can make the clause fail or force anything.
  static bool settled_when_posted(const std::vector<Condition>& clause) {
    std::size_t reads = 0;
    bool enum_is = false;
    for (const Condition& cond : clause) {
      if (cond.kind == Kind::Code || cond.kind == Kind::Constant) continue;
      ++reads;
      enum_is = cond.kind == Kind::Is;
    }
    return reads == 1 && enum_is;
  }
  /// The clauses of constraint `i` a change of pattern `k` wakes: those that read it and that
  /// posting did not settle.
  std::vector<std::size_t> woken_clauses(std::size_t i, const Pattern& p) const {
    const Item& item = constraints_[i];
    std::vector<std::size_t> out;
    for (std::size_t c = 0; c < item.clauses.size(); ++c) {
      if (!item.settled[c] && clause_has(item.clauses[c], p)) out.push_back(c);
    }
    return out;
  }
  /// The patterns of constraint `i` whose changes wake a propagator: those some unsettled
  /// clause reads or, for a symmetric support table, the first of each choice (the others are
  /// permutations of it).
  std::vector<std::size_t> woken_patterns(std::size_t i) const {
    std::vector<Pattern> ps = patterns_of(constraints_[i]);
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < ps.size(); ++k) {
      bool first_of_choice =
          std::none_of(ps.begin(), ps.begin() + static_cast<std::ptrdiff_t>(k),
                       [&](const Pattern& p) { return p.choice == ps[k].choice; });
      if (symmetric(i) ? first_of_choice : !woken_clauses(i, ps[k]).empty()) out.push_back(k);
    }
    return out;
  }
  /// When a change of an enum instance from `old` to `now` wakes a call: always (nothing
  /// below), when it settles `is` against one of `settled` (only when it makes one false, if
  /// `falsified`), or when it moves the domain to another wake class of support table `table`,
  /// pattern `pattern` (read through the involution when `flip`).
  struct Wake {
    std::vector<ValueSet> settled;
    bool falsified = false;
    std::optional<std::size_t> table;
    std::size_t pattern = 0;
    bool flip = false;
    bool always() const { return settled.empty() && !table; }
  };
  /// The wake-up through pattern `p` of `item`, read with its arguments swapped when
  /// `flipped`. A propagator that reads the instance only through `is` conditions learns
  /// nothing from a change that settles none of them (clauses settled when posted aside); one
  /// that reads its whole domain (a comparison of choices, a support table) is always woken.
  Wake wake_of(const Item& item, const Pattern& p, bool flipped, bool reads_domains) const {
    if (reads_domains || !is_enum(p.choice)) return {};
    Wake wake;
    for (std::size_t c = 0; c < item.clauses.size(); ++c) {
      if (!item.settled.empty() && item.settled[c]) continue;
      for (const Condition& cond : item.clauses[c]) {
        for (const ChoiceInstance* ci : {&cond.lhs, &cond.rhs}) {
          if (!uses_choice(cond, ci) || Pattern{ci->choice, ci->args} != p) continue;
          if (cond.kind != Kind::Is) return {};
          ValueSet mask = flipped ? flip_values(p.choice, cond.values) : cond.values;
          if (std::find(wake.settled.begin(), wake.settled.end(), mask) == wake.settled.end()) {
            wake.settled.push_back(mask);
          }
        }
      }
    }
    return wake;
  }
  /// Whether `wake` fires on a change of an instance of `c` from `old` to `now`, as its
  /// guard_text reads it at run time.
  bool fires(ChoiceId c, const Wake& wake, ValueSet old, ValueSet now) const {
    if (wake.table) {
      const std::vector<std::uint8_t>& classes = supports_[*wake.table]->wake_classes[wake.pattern];
      auto read = [&](ValueSet d) { return wake.flip ? flip_values(c, d) : d; };
      return classes[read(old)] != classes[read(now)];
    }
    // The runtime's own tests, which the guard calls.
    return wake.settled.empty() ||
           std::any_of(wake.settled.begin(), wake.settled.end(), [&](ValueSet mask) {
             return wake.falsified ? truth_falsified(old, now, mask)
                                   : truth_settled(old, now, mask);
           });
  }
  /// The test (in `old` and `now`, parenthesized) of when a wake-up that is not always fires.
  std::string guard_text(ChoiceId c, const Wake& wake) const {
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
  /// `if <condition> ` before a statement; nothing when the condition is empty (always).
  static std::string guarded_by(const std::string& condition) {
    return condition.empty() ? condition : "if " + condition + " ";
  }
  /// The guard of `wake` on a change of an instance of `c`, testing it in place.
  std::string wake_guard(ChoiceId c, const Wake& wake) const {
    return guarded_by(wake.always() ? "" : guard_text(c, wake));
  }
  /// The variables of constraint `i` posted on new objects: all, or the first one of a
  /// symmetric support table; none whose new objects leave a support table inert.
  std::vector<VarId> posted_vars(std::size_t i) const {
    std::vector<VarId> out;
    for (VarId v = 0; v < (symmetric(i) ? 1 : constraints_[i].vars.size()); ++v) {
      bool posted = supports_[i] ? !inert_at_universe(*supports_[i], v)
                                 : !posted_clauses(constraints_[i], v).empty();
      if (posted) out.push_back(v);
    }
    return out;
  }
  /// The clauses of `item` to check on the tuples with $v a new object: all but those with
  /// conditions on two instances over $v that stay unknown while those are full (as a new
  /// object's instances are). Such a clause can neither fail nor force anything until one of
  /// them is restricted, and that wakes it.
  std::vector<std::size_t> posted_clauses(const Item& item, VarId v) const {
    auto over_v = [&](const ChoiceInstance& ci) {
      return std::find(ci.args.begin(), ci.args.end(), v) != ci.args.end();
    };
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < item.clauses.size(); ++k) {
      std::vector<Pattern> open;
      for (const Condition& cond : item.clauses[k]) {
        // The instance over $v whose full domain leaves the condition unknown, if any.
        const ChoiceInstance* ci = nullptr;
        if (cond.kind == Kind::Is && is_enum(cond.lhs.choice) && over_v(cond.lhs)) {
          const ValueSet values = cond.values & full_mask(cond.lhs.choice);
          if (values != 0 && values != full_mask(cond.lhs.choice)) ci = &cond.lhs;
        } else if ((cond.kind == Kind::ChoiceEqual || cond.kind == Kind::ChoiceNotEqual) &&
                   is_enum(cond.lhs.choice) && cond.rhs.choice == cond.lhs.choice &&
                   num_values(cond.lhs.choice) >= 2) {
          ci = over_v(cond.lhs) ? &cond.lhs : over_v(cond.rhs) ? &cond.rhs : nullptr;
        }
        if (ci == nullptr) continue;
        Pattern p{ci->choice, ci->args};
        if (std::find(open.begin(), open.end(), p) == open.end()) open.push_back(p);
      }
      if (open.size() < 2) out.push_back(k);
    }
    return out;
  }
  /// Whether `table` narrows nothing while every instance over $v is full (as a new object's
  /// instances are until a restriction wakes the table), whatever the other domains.
  bool inert_at_universe(const SupportTable& table, VarId v) const {
    const std::vector<Pattern>& ps = table.patterns;
    std::vector<std::size_t> others;
    std::vector<ValueSet> domain(ps.size());
    for (std::size_t p = 0; p < ps.size(); ++p) {
      domain[p] = full_mask(ps[p].choice);
      if (std::find(ps[p].args.begin(), ps[p].args.end(), v) == ps[p].args.end()) {
        others.push_back(p);
      }
    }
    if (others.size() == ps.size()) return false;
    // Every combination of non-empty domains of the others, as an odometer.
    for (std::size_t p : others) domain[p] = 1;
    while (true) {
      for (std::size_t p = 0; p < ps.size(); ++p) {
        if ((domain[p] & ~table.keep[p][support_index(ps, p, domain)]) != 0) return false;
      }
      std::size_t k = 0;
      for (; k < others.size(); ++k) {
        const std::size_t p = others[k];
        if (++domain[p] < ValueSet{1} << num_values(ps[p].choice)) break;
        domain[p] = 1;
      }
      if (k == others.size()) return true;
    }
  }
  /// The index in pattern p's table of the other patterns' domains.
  std::size_t support_index(const std::vector<Pattern>& ps, std::size_t p,
                            const std::vector<ValueSet>& domain) const {
    std::size_t index = 0;
    for (std::size_t j = 0; j < ps.size(); ++j) {
      if (j != p) index |= domain[j] << index_shift(ps, p, j);
    }
    return index;
  }
  bool symmetric(std::size_t i) const { return supports_[i] && supports_[i]->symmetric; }

  std::string support_name(std::size_t constraint, std::size_t pattern) const {
    return "support_" + std::to_string(constraint) + "_" + std::to_string(pattern);
  }
  /// Support tables narrow for the whole constraint, not one clause.
  std::string support_origin(std::size_t constraint) const {
    return "Origin{" + std::to_string(1 + constraint) + ", 0}";
  }

  /// The wake classes of pattern k of `table` (see SupportTable::wake_classes).
  std::vector<std::uint8_t> wake_classes(const SupportTable& table, std::size_t k) const {
    const std::vector<Pattern>& ps = table.patterns;
    const std::size_t domains = std::size_t{1} << num_values(ps[k].choice);
    // The rows of the tables that read pattern k's domain as `d`, in a fixed order.
    std::vector<std::vector<std::uint64_t>> rows(domains);
    for (std::size_t p = 0; p < ps.size(); ++p) {
      if (p == k) continue;
      const std::size_t shift = index_shift(ps, p, k);
      for (std::size_t index = 0; index < table.keep[p].size(); ++index) {
        rows[(index >> shift) & (domains - 1)].push_back(table.keep[p][index]);
      }
    }
    std::map<std::vector<std::uint64_t>, std::uint8_t> ids;
    std::vector<std::uint8_t> classes;
    for (const auto& row : rows) {
      auto [it, inserted] = ids.try_emplace(row, static_cast<std::uint8_t>(ids.size()));
      classes.push_back(it->second);
      SCULPT_CHECK(ids.size() <= 256) << "more than 256 wake classes";
    }
    if (ids.size() == domains) classes.clear();
    return classes;
  }
  std::string wake_class_name(std::size_t i, std::size_t k) const {
    return "wake_class_" + std::to_string(i) + "_" + std::to_string(k);
  }

  /// The wake classes of pattern k of support table i (see wake_classes), at namespace scope.
  void emit_wake_classes(CodeWriter& w, std::size_t i, std::size_t k) const {
    w.comment("Domains of " + pattern_text(constraints_[i], supports_[i]->patterns[k]) +
              " whose support-table rows are the same share a class: a change within a");
    w.comment("class gives the other patterns nothing to lose.");
    emit_array(w, "std::uint8_t", wake_class_name(i, k), supports_[i]->wake_classes[k]);
  }
  /// The conflict when a support table keeps no value of `ci`.
  std::string fail_if_none_kept(const std::string& keep, const ChoiceInstance& ci,
                                const Scope& scope, const std::string& origin) const {
    const std::string ids = ci.args.empty() ? "0" : args_of(ci, scope);
    return "if (" + keep + " == 0) { const ObjectId ids[] = {" + ids + "}; return fail(" + origin +
           ", " + choice_id(ci.choice) + ", ids); }";
  }
  /// Restricts `ci`, whose domain reads `now`, to what a support table keeps of it.
  void emit_keep(CodeWriter& w, const std::string& keep, const ChoiceInstance& ci,
                 const Scope& scope, const std::string& now, const std::string& origin,
                 bool refresh) const {
    w.open("if (" + keep + " != " + now + ")");
    w.line(check("restrict_" + cname(ci.choice) + "(" + args_comma(ci, scope) + keep + ", " +
                 origin + ")"));
    if (refresh) w.line("refresh();");
    w.close();
  }

  /// `constexpr <type> <name>[] = {values};`, 16 values a line.
  template <typename T>
  static void emit_array(CodeWriter& w, const std::string& type, const std::string& name,
                         const std::vector<T>& values) {
    w.open("constexpr " + type + " " + name + "[" + std::to_string(values.size()) + "] =");
    for (std::size_t k = 0; k < values.size(); k += 16) {
      std::string row;
      for (std::size_t j = k; j < std::min(k + 16, values.size()); ++j) {
        row += std::to_string(values[j]) + ",";
      }
      w.line(row);
    }
    w.close(";");
  }

  /// The tables of constraint `i`, at namespace scope.
  void emit_support_tables(CodeWriter& w, std::size_t i, const SupportTable& table) const {
    const Item& item = constraints_[i];
    for (std::size_t p = 0; p < table.patterns.size(); ++p) {
      std::size_t n = num_values(table.patterns[p].choice);
      std::string type = n <= 8 ? "std::uint8_t" : n <= 16 ? "std::uint16_t" : "std::uint32_t";
      w.comment("Values of " + pattern_text(item, table.patterns[p]) +
                " supported by the domains of the others.");
      emit_array(w, type, support_name(i, p), table.keep[p]);
    }
  }

  /// `order($a, $b)`: a pattern as written in the space.
  std::string pattern_text(const Item& item, const Pattern& pattern) const {
    std::string args;
    for (VarId v : pattern.args) args += (args.empty() ? "$" : ", $") + item.vars[v].name;
    return cname(pattern.choice) + "(" + args + ")";
  }

  /// Whether two patterns of `ps` may read one instance (an argument swap of a triangular
  /// choice; distinct variables bind distinct objects otherwise).
  bool may_alias(const std::vector<Pattern>& ps) const {
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

  /// Where the domain of pattern j sits in the index of pattern p's support table: the other
  /// patterns' domains are concatenated, the first one in the high bits.
  std::size_t index_shift(const std::vector<Pattern>& ps, std::size_t p, std::size_t j) const {
    std::size_t below = 0;
    for (std::size_t k = j + 1; k < ps.size(); ++k) {
      if (k != p) below += num_values(ps[k].choice);
    }
    return below;
  }

  /// The two other sides of a support table on a triangle c(x, y), c(x, z), c(z, y) of one
  /// triangular choice, woken through pattern k = c(x, y) (spacegen/runtime/triangle.h): its
  /// domains fit a byte and are stored by object id, x and y range over the choice's own set
  /// (no membership to check), and z over a plain set.
  struct TriangleShape {
    std::array<std::size_t, 2> sides;  // the patterns sharing x, then y, with k
    std::array<bool, 2> flipped;       // the side reads (z, x) or (z, y)
    VarId third;                       // z
  };
  std::optional<TriangleShape> triangle_shape(std::size_t i, std::size_t k) const {
    const std::optional<SupportTable>& table = supports_[i];
    const Item& item = constraints_[i];
    if (!table || table->patterns.size() != 3 || item.vars.size() != 3) return std::nullopt;
    const std::vector<Pattern>& ps = table->patterns;
    const ChoiceId c = ps[k].choice;
    const auto& args = m_.choices[c].args;
    if (!triangular(c) || num_values(c) > 8 || ranked(membership_set(args[0].set))) {
      return std::nullopt;
    }
    for (std::size_t p = 0; p < 3; ++p) {
      if (ps[p].choice != c) return std::nullopt;
    }
    const VarId x = ps[k].args[0];
    const VarId y = ps[k].args[1];
    TriangleShape shape{{}, {}, VarId(3 - x - y)};
    if (is_parametric(effective_set(item.vars[shape.third].set))) return std::nullopt;
    for (VarId v : {x, y}) {
      if (effective_set(item.vars[v].set) != membership_set(args[0].set)) return std::nullopt;
    }
    for (std::size_t e = 0; e < 2; ++e) {
      const VarId end = e == 0 ? x : y;
      bool found = false;
      for (std::size_t p = 0; p < 3 && !found; ++p) {
        const std::vector<VarId>& a = ps[p].args;
        if (a == std::vector<VarId>{end, shape.third} ||
            a == std::vector<VarId>{shape.third, end}) {
          shape.sides[e] = p;
          shape.flipped[e] = a[0] == shape.third;
          found = true;
        }
      }
      if (!found) return std::nullopt;
    }
    return shape;
  }

  /// Whether a change of choice `c` wakes a triangle scan, whose rows its stores keep current.
  bool scanned_as_triangle(ChoiceId c) const {
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
      const std::vector<Pattern> ps = patterns_of(constraints_[i]);
      for (std::size_t k : woken_patterns(i)) {
        if (ps[k].choice == c && triangle_shape(i, k)) return true;
      }
    }
    return false;
  }

  /// A wake-up through pattern k of a triangle (see triangle_shape): every z at once.
  void emit_triangle(CodeWriter& w, std::size_t i, std::size_t k, const TriangleShape& shape,
                     Scope& scope) const {
    const std::vector<Pattern>& ps = supports_[i]->patterns;
    const ChoiceId c = ps[k].choice;
    const Item& item = constraints_[i];
    const std::string origin = support_origin(i);
    std::string involution;
    for (std::size_t v = 0; v < num_values(c); ++v) {
      involution += (v ? ", " : "") + std::to_string(involution_of(c, v));
    }
    std::string side_tables;
    for (std::size_t e = 0; e < 2; ++e) {
      const std::size_t p = shape.sides[e];
      side_tables += std::string(e ? ", " : "") + "{" + support_name(i, p) + ", " +
                     std::to_string(index_shift(ps, p, k)) + ", " +
                     std::to_string(index_shift(ps, p, shape.sides[1 - e])) + ", " +
                     (shape.flipped[e] ? "true" : "false") + "}";
    }
    w.line("static constexpr Triangle<" + std::to_string(num_values(c)) + "> kTriangle{{" +
           involution + "}, {{" + side_tables + "}}};");
    hoist_slots(w, scope, ps);
    const Variable& z = item.vars[shape.third];
    scope.names[shape.third] = "v_" + z.name;
    const ChoiceInstance edge{c, ps[k].args, {}};
    auto keep = [&](std::size_t e) { return "keep" + std::to_string(shape.sides[e]); };
    w.open("return scan_triangle(kTriangle, triangle_rows_, " + choice_id(c) + ", slots_" +
           cname(c) + ", member_bits(" + set_id(effective_set(z.set)) + "), " +
           args_comma(edge, scope) + summary(edge, scope, {}) + ", [&](ObjectId " +
           scope.names[shape.third] + ", ValueSet " + keep(0) + ", ValueSet " + keep(1) + ")");
    // In the order of the patterns, as emit_supports checks and narrows them.
    const std::array<std::size_t, 2> sides = shape.sides[0] < shape.sides[1]
                                                 ? std::array<std::size_t, 2>{0, 1}
                                                 : std::array<std::size_t, 2>{1, 0};
    for (std::size_t e : sides) {
      w.line(fail_if_none_kept(keep(e), ChoiceInstance{c, ps[shape.sides[e]].args, {}}, scope,
                               origin));
    }
    for (std::size_t e : sides) {
      const ChoiceInstance side{c, ps[shape.sides[e]].args, {}};
      emit_keep(w, keep(e), side, scope, summary(side, scope, {}), origin, false);
    }
    w.line("return Status::Ok;");
    w.close(");");
  }

  /// Emits, for every tuple of `scope`, the restriction of each pattern of `table` to the
  /// values its table keeps (a conflict when one keeps none). `woken`: the pattern whose change
  /// the function propagates, if any.
  void emit_supports(CodeWriter& w, std::size_t i, const SupportTable& table, Scope& scope,
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
            w.comment("Nothing to narrow when " + pattern_text(constraints_[i], ps[*woken]) +
                      " is open and the others are fixed:");
            w.comment("the last of them to be propagated, fixed, checked the tuple.");
            w.open("if (!(" + skip + "))");
          }
          for (std::size_t p = 0; p < ps.size(); ++p) {
            if (!narrows(p)) continue;
            std::string index;
            for (std::size_t j = 0; j < ps.size(); ++j) {
              if (j == p) continue;
              std::size_t below = index_shift(ps, p, j);
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

  /// Emits, for every tuple of `scope`, the check of each clause in `clauses`: a conflict when
  /// every condition is false, the last one forced when all others are. The instances the
  /// clauses read are read once per tuple into locals (again after each restriction); a
  /// condition is evaluated as soon as its variables are bound (cached host filters before any
  /// domain is read), and when it certainly holds, its clause is skipped for every tuple that
  /// extends the bound ones (domains only shrink, so it keeps holding).
  void emit_clauses(CodeWriter& w, const Item& item, const std::vector<std::size_t>& clauses,
                    Scope& scope, const std::vector<bool>& needs_membership,
                    const std::function<std::string(std::size_t)>& origin) const {
    struct Active {
      std::size_t index;
      std::vector<const Condition*> conds;  // constants FALSE dropped
      std::vector<bool> hoisted;            // evaluated before the innermost level
      std::string done;                     // the flag saying it certainly holds here, if any
    };
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
    if (active.empty()) return;
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
    hoist_slots(w, scope, patterns);
    Locals locals{{}, true};
    std::vector<bool> declared(patterns.size(), false);
    // Host code that is not cached is evaluated in the loops: its objects are fetched once.
    std::vector<bool> host_reads(item.vars.size(), false);
    for (const Active& a : active) {
      for (const Condition* cond : a.conds) {
        if (cond->kind == Kind::CompareCode || (cond->kind == Kind::Code && !cached(*cond))) {
          for (VarId v : code_vars(cond->code, item)) host_reads[v] = true;
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
        w.line("const bool " + flag + " = " + (a.done.empty() ? "" : a.done + " || ") + holds +
               ";");
        a.done = flag;
        any_new = true;
      }
      bool all_flagged = std::all_of(active.begin(), active.end(),
                                     [](const Active& a) { return !a.done.empty(); });
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
        const std::optional<std::size_t> k = filter_of(*cond);
        if (!k) continue;
        const std::vector<VarId>& args = filters_[*k].vars;
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

  /// The check of one clause in the innermost loop: `hoisted` conditions were evaluated on an
  /// enclosing level, into the flag `done` (host code among them is known to be false here).
  void emit_clause(CodeWriter& w, const std::vector<const Condition*>& conds,
                   const std::vector<bool>& hoisted, const std::string& done, const Scope& scope,
                   const std::string& origin, const Locals& locals) const {
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

  // ----- domains.h -----------------------------------------------------------------------

  std::string header_line() const {
    return "// Generated by spacegen from " + o_.source_name + "; do not edit.";
  }

  std::string domains_h() const {
    CodeWriter w;
    w.line(header_line());
    w.line("// Domains: the values and aliases of each enum choice, as bitsets.");
    w.line("#pragma once");
    w.line("#include <cstdint>");
    w.line();
    w.line("#include \"spacegen/runtime/domain.h\"");
    w.line();
    w.line("namespace " + o_.ns + " {");
    w.line();
    w.line("namespace set_id {");
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      w.line("inline constexpr std::uint32_t " + m_.sets[s].name + " = " + std::to_string(s) + ";");
    }
    w.line("}  // namespace set_id");
    w.line();
    w.line("namespace choice_id {");
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      w.line("inline constexpr std::uint32_t " + cname(c) + " = " + std::to_string(c) + ";");
    }
    w.line("}  // namespace choice_id");
    w.line();
    w.line("namespace values {");
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      const auto& choice = m_.choices[c];
      if (choice.kind != ChoiceKind::Enum) continue;
      if (!choice.doc.empty()) w.comment(choice.doc, "/// ");
      w.line("namespace " + choice.name + " {");
      for (std::size_t v = 0; v < choice.values.size(); ++v) {
        if (!choice.values[v].doc.empty()) w.comment(choice.values[v].doc, "/// ");
        w.line("inline constexpr sculpt::spacegen::ValueSet " + choice.values[v].name + " = " +
               hex(std::uint64_t{1} << v) + ";");
      }
      for (const auto& alias : choice.aliases) {
        if (!alias.doc.empty()) w.comment(alias.doc, "/// ");
        w.line("inline constexpr sculpt::spacegen::ValueSet " + alias.name + " = " +
               hex(alias.values) + ";");
      }
      w.line("inline constexpr sculpt::spacegen::ValueSet ALL = " + hex(full_mask(c)) + ";");
      w.line("}  // namespace " + choice.name);
    }
    w.line("}  // namespace values");
    w.line();
    w.line("}  // namespace " + o_.ns);
    return w.text();
  }

  // ----- space.h -------------------------------------------------------------------------

  std::string id_params(std::size_t n) const {
    std::string out;
    for (std::size_t i = 0; i < n; ++i)
      out += (i ? ", " : "") + std::string("ObjectId a") + std::to_string(i);
    return out;
  }
  std::string id_params_comma(std::size_t n) const { return n ? id_params(n) + ", " : ""; }
  std::string id_list(std::size_t n) const {
    std::string out;
    for (std::size_t i = 0; i < n; ++i)
      out += (i ? ", " : "") + std::string("a") + std::to_string(i);
    return out;
  }

  std::string space_h() const {
    CodeWriter w;
    w.line(header_line());
    w.line("// The candidate of this space: backbone + decision vector, typed accessors and the");
    w.line("// generated propagators.");
    w.line("#pragma once");
    w.line("#include <array>");
    w.line("#include <bit>");
    w.line("#include <cstdint>");
    w.line("#include <memory>");
    w.line("#include <vector>");
    w.line();
    if (hoists_peers()) w.line("#include <boost/container/small_vector.hpp>");
    for (const std::string& h : o_.headers) w.line("#include \"" + h + "\"");
    w.line("#include \"domains.h\"");
    w.line("#include \"spacegen/runtime/candidate.h\"");
    w.line();
    w.line("namespace " + o_.ns + " {");
    w.line();
    w.line("using sculpt::spacegen::Interval;");
    w.line("using sculpt::spacegen::load_packed;");
    w.line("using sculpt::spacegen::ObjectId;");
    w.line("using sculpt::spacegen::Origin;");
    w.line("using sculpt::spacegen::Status;");
    w.line("using sculpt::spacegen::ValueSet;");
    w.line();
    w.open("class Candidate final : public sculpt::spacegen::CandidateBase");
    w.label("public:");
    w.line("using Backbone = " + o_.backbone_type + ";");
    w.line(
        "/// The layout of the decision vectors of `fun`: compute once, share between candidates.");
    w.line(
        "static std::shared_ptr<const sculpt::spacegen::Layout> make_layout(const Backbone& fun);");
    w.line("static const sculpt::spacegen::SpaceTable& space_table();");
    w.line("/// The action origin: restrictions that come from the search.");
    w.line("static constexpr Origin kAction{0, 0};");
    w.line(
        "Candidate(std::shared_ptr<Backbone> fun, std::shared_ptr<const sculpt::spacegen::Layout> "
        "layout);");
    w.line(
        "/// Posts every constraint and counter, then propagates; call once after construction.");
    w.line("[[nodiscard]] Status initialize();");
    w.line("std::unique_ptr<sculpt::spacegen::CandidateBase> clone() const override;");
    w.line("const sculpt::spacegen::SpaceTable& table() const override { return space_table(); }");
    w.line("const Backbone& backbone() const { return *fun_; }");
    w.line();
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      const auto& choice = m_.choices[c];
      std::size_t n = choice.args.size();
      std::string name = choice.name;
      if (!choice.doc.empty()) w.comment(choice.doc, "/// ");
      switch (choice.kind) {
        case ChoiceKind::Enum:
          emit_enum_getter(w, c);
          w.line("[[nodiscard]] Status restrict_" + name + "(" + id_params_comma(n) +
                 "ValueSet values, Origin origin = kAction" + queue_param(c, " = true") + ");");
          break;
        case ChoiceKind::Integer:
          w.line("Interval get_" + name + "(" + id_params(n) + ") const;");
          w.line("std::vector<std::int64_t> values_" + name + "(" + id_params(n) + ") const;");
          w.line("[[nodiscard]] Status restrict_" + name + "(" + id_params_comma(n) +
                 "Interval range, Origin origin = kAction);");
          w.line("[[nodiscard]] Status restrict_" + name + "_remove(" + id_params_comma(n) +
                 "std::int64_t value, Origin origin = kAction);");
          w.line("[[nodiscard]] Status restrict_" + name + "_like(" + id_params_comma(n) +
                 "const sculpt::spacegen::IntDomainRef& other, Origin origin);");
          break;
        case ChoiceKind::Counter:
          w.open("Interval get_" + name + "(" + id_params(n) + ") const");
          w.line("return counter_state(" + choice_id(c) + ", " + index_expr(c, n) + ").value();");
          w.close();
          w.line("[[nodiscard]] Status bound_" + name + "(" + id_params_comma(n) +
                 "Interval range, Origin origin = kAction);");
          break;
      }
    }
    w.line();
    w.label("protected:");
    w.line("Status on_change(std::uint32_t choice, const ObjectId* ids, ValueSet old) override;");
    w.line(
        "Status restrict_stored(std::uint32_t choice, const ObjectId* ids, const std::uint64_t* "
        "mask) override;");
    w.line("void run_trigger(std::uint32_t trigger, const ObjectId* ids) override;");
    w.line("Status instantiate_new_objects() override;");
    w.line("Status run_quotient_check(std::uint32_t quotient, ObjectId x) override;");
    w.line();
    w.label("private:");
    w.line("static constexpr std::uint32_t kNoChoice = ~0u;");
    // Host glue. A set's item and id getters are defined here, so that every file inlines them.
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      const auto& set = m_.sets[s];
      w.comment("Set " + set.name + (set.doc.empty() ? "" : ": " + set.doc) + " (" +
                loc_string(set.loc) + ").");
      w.open("[[gnu::always_inline]] static " + set.type + " item_" + set.name +
             "(const Backbone& fun, ObjectId id)");
      // `$id` has the set's id type (strong id types are built from the dense integer).
      std::string id = set.id_type.empty() ? "id" : "static_cast<" + set.id_type + ">(id)";
      w.line("return " + substitute(set.item_getter, {{"id", id}}, "fun") + ";");
      w.close();
      w.open("static ObjectId id_" + set.name + "(const Backbone& fun, " + set.type + " item)");
      w.line("(void)fun;");
      w.line("return sculpt::spacegen::to_object_id(" +
             substitute(set.id_getter, {{"item", "item"}}, "fun") + ");");
      w.close();
      if (is_parametric(s)) {
        w.line("bool member_" + set.name + "(ObjectId parameter, ObjectId id) const;");
      } else if (!is_quotient(s)) {
        w.line("template <typename F>");
        w.line("static void for_each_" + set.name + "(const Backbone& fun, F&& f);");
      }
    }
    w.line("static Interval constant(std::int64_t v) { return {v, v}; }");
    // A filter is read in the propagators' loops: the table lookup is inline, the host code
    // (once per object tuple) is not.
    for (std::size_t k = 0; k < filters_.size(); ++k) {
      const std::string n = std::to_string(k);
      const std::size_t arity = filters_[k].vars.size();
      w.open("bool filter_" + n + "(" + id_params(arity) + ") const");
      w.line("const std::uint8_t known = layout_->static_filters[" + n + "][" + filter_entry(k) +
             "].load(std::memory_order_relaxed);");
      w.line("return known != 0 ? known == 2 : compute_filter_" + n + "(" + id_list(arity) + ");");
      w.close();
      w.line("bool compute_filter_" + n + "(" + id_params(arity) + ") const;");
    }
    w.line("Status post_all();");
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      const auto& choice = m_.choices[c];
      std::size_t n = choice.args.size();
      std::string name = choice.name;
      emit_index(w, c);
      if (antisymmetric(c)) emit_flip(w, c);
      switch (choice.kind) {
        case ChoiceKind::Enum:  // restrict_<choice> (public) does it all
          break;
        case ChoiceKind::Integer:
          w.line("sculpt::spacegen::IntDomainRef domain_" + name + "(" + id_params(n) + ");");
          w.line("Status changed_" + name + "(" + id_params_comma(n) +
                 "Interval old, Origin origin);");
          break;
        case ChoiceKind::Counter:
          w.line("Interval derive_" + name + "(" + id_params(n) + ") const;");
          w.line("Status update_" + name + "(" + id_params_comma(n) +
                 "Interval old_term, Interval new_term" +
                 (enforced_term_wise(*choice.counter)
                      ? ", sculpt::spacegen::Truth counted, Interval value"
                      : "") +
                 ");");
          w.line("Status set_state_" + name + "(" + id_params_comma(n) +
                 "const sculpt::spacegen::CounterState& state);");
          w.line("Status enforce_" + name + "(" + id_params(n) + ");");
          break;
      }
    }
    for (const auto& [from, to] : value_maps()) {
      w.line("static ValueSet map_" + cname(from) + "_to_" + cname(to) + "(ValueSet values);");
    }
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
      w.line("Status propagate_" + std::to_string(i) + "_all();");
      for (VarId v : posted_vars(i)) {
        w.line("Status propagate_" + std::to_string(i) + "_new_" + constraints_[i].vars[v].name +
               "(ObjectId id);");
      }
      auto ps = patterns_of(constraints_[i]);
      for (std::size_t k : woken_patterns(i)) {
        w.line("Status propagate_" + std::to_string(i) + "_on_" + cname(ps[k].choice) + "_" +
               std::to_string(k) + "(const ObjectId* ids);");
      }
    }
    for (std::size_t i = 0; i < counters_.size(); ++i) {
      std::string name = cname(counter_ids_[i]);
      auto ps = counter_patterns(i);
      for (std::size_t k = 0; k < ps.size(); ++k) {
        if (rederived_on(i, ps[k].choice)) continue;
        w.line("Status count_" + name + "_on_" + cname(ps[k].choice) + "_" + std::to_string(k) +
               "(const ObjectId* ids, " + summary_type(ps[k].choice) + " old);");
      }
      if (has_rederive(i)) w.line("Status rederive_" + name + "();");
    }
    for (std::size_t t = 0; t < triggers_.size(); ++t) {
      w.line("void check_trigger_" + std::to_string(t) + "_all();");
      for (std::size_t v = 0; v < triggers_[t].vars.size(); ++v) {
        w.line("void check_trigger_" + std::to_string(t) + "_new_" + triggers_[t].vars[v].name +
               "(ObjectId id);");
      }
      auto ps = patterns_of(triggers_[t]);
      for (std::size_t k = 0; k < ps.size(); ++k) {
        w.line("void check_trigger_" + std::to_string(t) + "_on_" + cname(ps[k].choice) + "_" +
               std::to_string(k) + "(const ObjectId* ids);");
      }
    }
    if (hoists_peers()) {
      w.line("/// Members that may be equivalent to an element (most elements have few).");
      w.line("using Peers = boost::container::small_vector<ObjectId, 64>;");
    }
    for (std::size_t q = 0; q < quotients_.size(); ++q) {
      if (hoists_peers(q)) {
        w.line("Peers quotient_" + std::to_string(q) + "_peers(ObjectId x) const;");
      }
      w.line("template <typename Members>");
      w.line("Status quotient_" + std::to_string(q) +
             "_check_among(const ObjectId* params, ObjectId x, const Members& ys);");
      w.line("Status quotient_" + std::to_string(q) +
             "_check(const ObjectId* params, ObjectId x);");
      w.line("Status quotient_" + std::to_string(q) +
             "_from(const ObjectId* params, ObjectId first);");
      w.line("Status quotient_" + std::to_string(q) +
             "_around(const ObjectId* params, ObjectId x);");
      w.line("Status quotient_" + std::to_string(q) + "_all_params(ObjectId first);");
      w.line("Status quotient_" + std::to_string(q) + "_at(ObjectId x);");
    }
    w.line();
    w.line("std::shared_ptr<Backbone> fun_;");
    w.close(";");
    w.line();
    w.line("}  // namespace " + o_.ns);
    return w.text();
  }

  bool packed(ChoiceId c) const { return spacegen::packs_domains(num_values(c)); }

  /// Reads the domain of stored instance `index` of enum choice c from its `slots`.
  std::string enum_load(ChoiceId c, const std::string& slots, const std::string& index) const {
    if (packed(c)) {
      return "load_packed(" + slots + ", " + index + ", " + std::to_string(num_values(c)) + ")";
    }
    return "load_at<" + enum_type(c) + ">(" + slots + " + " + index + " * sizeof(" + enum_type(c) +
           "))";
  }

  /// `get_<c>`, inline: reads are the hot path of propagation. The overload taking `slots`
  /// (`slots(choice_id::<c>)`) serves loops that hoist it.
  void emit_enum_getter(CodeWriter& w, ChoiceId c) const {
    std::size_t n = m_.choices[c].args.size();
    const std::string& name = cname(c);
    w.open("[[gnu::always_inline]] ValueSet get_" + name + "(const unsigned char* slots" +
           (n ? ", " : "") + id_params(n) + ") const");
    auto read = [&](const std::string& ids) {
      std::string index = ids.empty() ? index_expr(c, n) : "index_" + name + "(" + ids + ")";
      return enum_load(c, "slots", index);
    };
    if (triangular(c)) {
      // Not recursive, so that it inlines.
      w.line("if (a0 > a1) return " +
             (antisymmetric(c) ? "flip_" + name + "(" + read("a1, a0") + ")" : read("a1, a0")) +
             ";");
    }
    w.line("return " + read("") + ";");
    w.close();
    std::string ids;
    for (std::size_t i = 0; i < n; ++i) ids += ", a" + std::to_string(i);
    w.line("ValueSet get_" + name + "(" + id_params(n) + ") const { return get_" + name +
           "(slots(" + choice_id(c) + ")" + ids + "); }");
  }

  /// `index_<c>`: the stored instance over its ids (a0 < a1 for triangular choices).
  void emit_index(CodeWriter& w, ChoiceId c) const {
    const auto& args = m_.choices[c].args;
    std::size_t n = args.size();
    auto slot = [&](std::size_t i) {
      return slot_expr(membership_set(args[i].set), "a" + std::to_string(i));
    };
    w.open("std::size_t index_" + cname(c) + "(" + id_params(n) + ") const");
    if (triangular(c)) {
      w.line("const std::size_t lo = " + slot(0) + ";");
      w.line("const std::size_t hi = " + slot(1) + ";");
      w.line("return hi * (hi - 1) / 2 + lo;");
    } else if (n == 0) {
      w.line("return 0;");
    } else {
      std::string expr = "std::size_t{" + slot(0) + "}";
      for (std::size_t i = 1; i < n; ++i) {
        expr = "(" + expr + ") * caps[" + std::to_string(i) + "] + " + slot(i);
      }
      if (n > 1) w.line("const auto& caps = layout_->choices[" + choice_id(c) + "].caps;");
      w.line("return " + expr + ";");
    }
    w.close();
  }

  /// `flip_<c>`: a domain of (a, b) as the domain of (b, a), through the involution.
  void emit_flip(CodeWriter& w, ChoiceId c) const {
    const std::string& name = cname(c);
    if (num_values(c) <= 8) {
      std::string involution;
      for (std::size_t v = 0; v < num_values(c); ++v) {
        involution += (v ? ", " : "") + std::to_string(involution_of(c, v));
      }
      w.line("static constexpr std::array<std::uint8_t, 256> kFlip_" + name +
             " = sculpt::spacegen::involution_table<" + std::to_string(num_values(c)) + ">({" +
             involution + "});");
      w.line("static ValueSet flip_" + name + "(ValueSet values) { return kFlip_" + name +
             "[values & 0xff]; }");
      return;
    }
    w.open("static ValueSet flip_" + name + "(ValueSet values)");
    w.line("ValueSet out = 0;");
    for (std::size_t v = 0; v < num_values(c); ++v) {
      w.line("if (values & " + hex(std::uint64_t{1} << v) +
             ") out |= " + hex(std::uint64_t{1} << involution_of(c, v)) + ";");
    }
    w.line("return out;");
    w.close();
  }

  std::string summary_type(ChoiceId c) const { return is_enum(c) ? "ValueSet" : "Interval"; }

  /// Pairs of enum choices compared with `==` whose values are ordered differently.
  std::vector<std::pair<ChoiceId, ChoiceId>> value_maps() const {
    std::set<std::pair<ChoiceId, ChoiceId>> out;
    auto scan = [&](const std::vector<Condition>& conds) {
      for (const auto& cond : conds) {
        if ((cond.kind != Kind::ChoiceEqual && cond.kind != Kind::ChoiceNotEqual) ||
            !is_enum(cond.lhs.choice)) {
          continue;
        }
        ChoiceId a = cond.lhs.choice;
        ChoiceId b = cond.rhs.choice;
        if (map_values(a, b, "x") != "x") {
          out.insert({a, b});
          out.insert({b, a});
        }
      }
    };
    for (const auto& items : {std::cref(constraints_), std::cref(counters_), std::cref(triggers_),
                              std::cref(quotients_)}) {
      for (const Item& item : items.get()) {
        for (const auto& clause : item.clauses) scan(clause);
      }
    }
    return {out.begin(), out.end()};
  }

  // ----- decision_vector.cpp: tables, layout, accessors, dispatch ------------------------

  std::string decision_vector_cpp(std::uint64_t hash) const {
    CodeWriter w;
    w.line(header_line());
    w.line("// The decision vector: tables, layout, typed accessors and the change dispatch.");
    w.line("#include <algorithm>");
    w.line();
    w.line("#include \"space.h\"");
    w.line("#include \"spacegen/runtime/triangle.h\"");
    w.line("#include \"support/check.h\"");
    w.line();
    w.line("namespace " + o_.ns + " {");
    w.line();
    w.line("using namespace sculpt::spacegen;  // NOLINT: generated code");
    w.line();
    emit_table(w, hash);
    emit_host_glue(w);
    emit_filters(w);
    emit_layout(w);
    emit_accessors(w);
    emit_dispatch(w);
    w.line("}  // namespace " + o_.ns);
    return w.text();
  }

  /// For each counter, whether propagation may impose a lower and an upper bound on it: a
  /// comparison that a clause or a quotient forces bounds it on its side (both for `==`), and
  /// a counter counting another passes its kinds of bounds to it (enforce_ cuts counted values).
  std::vector<std::pair<bool, bool>> counter_bounds() const {
    std::vector<std::pair<bool, bool>> bounds(m_.choices.size(), {false, false});
    auto bound = [&](ChoiceId c, spacedsl::CompareOp op) {
      using spacedsl::CompareOp;
      if (!is_counter(c) || op == CompareOp::Ne) return;
      bounds[c].first = bounds[c].first || (op != CompareOp::Lt && op != CompareOp::Le);
      bounds[c].second = bounds[c].second || (op != CompareOp::Gt && op != CompareOp::Ge);
    };
    for (const auto* items : {&constraints_, &quotients_}) {
      for (const Item& item : *items) {
        for (const auto& clause : item.clauses) {
          for (const Condition& cond : clause) {
            if (cond.kind == Kind::CompareCode) bound(cond.lhs.choice, cond.op);
            if (cond.kind == Kind::CompareChoices) {
              bound(cond.lhs.choice, cond.op);
              bound(cond.rhs.choice, mirrored_op(cond.op));
            }
            if (cond.kind == Kind::ChoiceEqual) {
              bound(cond.lhs.choice, spacedsl::CompareOp::Eq);
              bound(cond.rhs.choice, spacedsl::CompareOp::Eq);
            }
          }
        }
      }
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (ChoiceId c : counter_ids_) {
        const auto& value = m_.choices[c].counter->value;
        if (!value.choice || !is_counter(value.choice->choice)) continue;
        auto& inner = bounds[value.choice->choice];
        const std::pair<bool, bool> merged{inner.first || bounds[c].first,
                                           inner.second || bounds[c].second};
        changed = changed || merged != inner;
        inner = merged;
      }
    }
    return bounds;
  }

  void emit_table(CodeWriter& w, std::uint64_t hash) const {
    const std::vector<std::pair<bool, bool>> bounds = counter_bounds();
    w.open("const SpaceTable& Candidate::space_table()");
    w.open("static const SpaceTable table = []");
    w.line("SpaceTable t;");
    w.line("t.name = " + quoted(o_.ns) + ";");
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      w.line("t.sets.push_back({" + quoted(m_.sets[s].name) + ", " +
             (is_parametric(s) ? "true" : "false") + ", " + (is_quotient(s) ? "true" : "false") +
             "});");
    }
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      const auto& choice = m_.choices[c];
      std::string kind = choice.kind == ChoiceKind::Enum      ? "ChoiceKind::Enum"
                         : choice.kind == ChoiceKind::Integer ? "ChoiceKind::Integer"
                                                              : "ChoiceKind::Counter";
      std::string sets;
      for (std::size_t i = 0; i < choice.args.size(); ++i) {
        sets += (i ? ", " : "") + std::to_string(membership_set(choice.args[i].set));
      }
      std::string symmetry = antisymmetric(c)   ? "Symmetry::Antisymmetric"
                             : choice.symmetric ? "Symmetry::Symmetric"
                                                : "Symmetry::None";
      std::string values;
      for (std::size_t v = 0; v < choice.values.size(); ++v) {
        values += (v ? ", " : "") + quoted(choice.values[v].name);
      }
      std::string involution;
      if (antisymmetric(c)) {
        for (std::size_t v = 0; v < num_values(c); ++v) {
          involution += (v ? ", " : "") + std::to_string(involution_of(c, v));
        }
      }
      bool half = choice.counter && choice.counter->half;
      auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
      w.line("t.choices.push_back({" + quoted(choice.name) + ", " + kind + ", {" + sets + "}, " +
             symmetry + ", {" + values + "}, {" + involution + "}, " + flag(half) + ", " +
             flag(bounds[c].first) + ", " + flag(bounds[c].second) + "});");
    }
    for (const auto& [name, loc] : origins_) {
      w.line("t.origins.push_back({" + quoted(name) + ", " + quoted(loc) + "});");
    }
    w.line("t.num_triggers = " + std::to_string(triggers_.size()) + ";");
    w.line("t.model_hash = " + hex(hash) + ";");
    w.line("return t;");
    w.close("();");
    w.line("return table;");
    w.close();
    w.line();
  }

  /// `values` of choice `c` as read with its two arguments swapped.
  ValueSet flip_values(ChoiceId c, ValueSet values) const {
    if (!antisymmetric(c)) return values;
    ValueSet out = 0;
    for (std::size_t v = 0; v < num_values(c); ++v) {
      if ((values >> v) & 1) out |= ValueSet{1} << involution_of(c, v);
    }
    return out;
  }
  std::size_t involution_of(ChoiceId c, std::size_t v) const {
    const auto& map = m_.choices[c].antisymmetric_map;
    return v < map.size() ? map[v] : v;
  }

  void emit_host_glue(CodeWriter& w) const {
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      const auto& set = m_.sets[s];
      if (is_quotient(s)) continue;
      w.comment("Set " + set.name + " (" + loc_string(set.loc) + ").");
      if (is_parametric(s)) {
        w.open("bool Candidate::member_" + set.name + "(ObjectId parameter, ObjectId id) const");
        w.line("(void)parameter;  // unused when the iterator does not depend on it");
        std::string param = item_expr(set.parameter->set, "parameter", "*fun_");
        w.open("for (auto&& item : " +
               substitute(set.iterator, {{set.parameter->name, param}}, "(*fun_)") + ")");
        w.line("if (id_" + set.name + "(*fun_, item) == id) return true;");
        w.close();
        w.line("return false;");
        w.close();
      } else {
        w.line("template <typename F>");
        w.open("void Candidate::for_each_" + set.name + "(const Backbone& fun, F&& f)");
        if (!set.iterator.empty()) {
          w.line("for (auto&& item : " + substitute(set.iterator, {}, "fun") + ") f(id_" +
                 set.name + "(fun, item));");
        } else {
          const auto& super = m_.sets[*set.superset];
          w.open("for_each_" + super.name + "(fun, [&](ObjectId id)");
          w.line("if (" +
                 substitute(set.from_superset, {{"item", item_expr(*set.superset, "id", "fun")}},
                            "fun") +
                 ") f(id);");
          w.close(");");
        }
        w.close();
      }
      w.line();
    }
  }

  /// The host expression of filter k over ids a0, a1 with `fun` as the backbone.
  std::string filter_code(std::size_t k, const std::string& fun) const {
    const StaticFilter& f = filters_[k];
    std::map<std::string, std::string> vars;
    for (std::size_t i = 0; i < f.vars.size(); ++i) {
      const Variable& var = f.item->vars[f.vars[i]];
      vars[var.name] = item_expr(var.set, "a" + std::to_string(i), fun);
    }
    return substitute(f.cond->code, vars, fun);
  }
  /// The entry of the ids a0 (, a1) of a candidate's objects in filter k's table (see
  /// FilterTable).
  std::string filter_entry(std::size_t k) const {
    const StaticFilter& f = filters_[k];
    if (f.vars.empty()) return "0";
    SetId s0 = membership_set(f.item->vars[f.vars[0]].set);
    if (f.vars.size() == 1) return slot_expr(s0, "a0");
    SetId s1 = membership_set(f.item->vars[f.vars[1]].set);
    return "std::size_t{" + slot_expr(s0, "a0") + "} * layout_->set_slots[" + set_id(s1) + "] + " +
           slot_expr(s1, "a1");
  }

  void emit_filters(CodeWriter& w) const {
    for (std::size_t k = 0; k < filters_.size(); ++k) {
      const StaticFilter& f = filters_[k];
      w.comment("\"" + f.cond->code + "\" (" + loc_string(f.cond->loc) +
                "), cached per object tuple: by make_layout for the root's objects, on first use "
                "for those lowerings add.");
      w.open("bool Candidate::compute_filter_" + std::to_string(k) + "(" +
             id_params(f.vars.size()) + ") const");
      w.line("const bool value = static_cast<bool>(" + filter_code(k, "(*fun_)") + ");");
      w.line("const std::array<ObjectId, 2> ids{" + id_list(f.vars.size()) + "};");
      w.line("layout_->family->filters[" + std::to_string(k) +
             "].record(*layout_, ids.data(), value);");
      w.line("return value;");
      w.close();
      w.line();
    }
  }

  void emit_filter_fill(CodeWriter& w, std::size_t k) const {
    const StaticFilter& f = filters_[k];
    std::string sets;
    for (VarId v : f.vars) {
      sets += (sets.empty() ? "" : ", ") + set_id(membership_set(f.item->vars[v].set));
    }
    w.open("");
    w.line("builder.declare_filter(" + std::to_string(k) + ", {" + sets + "});");
    int opened = 1;
    for (std::size_t i = 0; i < f.vars.size(); ++i) {
      SetId s = membership_set(f.item->vars[f.vars[i]].set);
      std::string v = "a" + std::to_string(i);
      w.open("for (ObjectId " + v + " = 0; " + v + " < builder.capacity(" + set_id(s) + "); ++" +
             v + ")");
      ++opened;
      w.line("if (!builder.has_member(" + set_id(s) + ", " + v + ")) continue;");
    }
    w.line("builder.record_filter(" + std::to_string(k) + ", {" + id_list(f.vars.size()) +
           "}, static_cast<bool>(" + filter_code(k, "fun") + "));");
    for (int i = 0; i < opened; ++i) w.close();
  }

  void emit_layout(CodeWriter& w) const {
    w.open("std::shared_ptr<const Layout> Candidate::make_layout(const Backbone& fun)");
    w.line("LayoutBuilder builder(space_table());");
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      w.line("builder.set_capacity(" + set_id(s) + ", static_cast<std::uint32_t>(" +
             substitute(m_.sets[s].capacity, {}, "fun") + "));");
    }
    for (SetId s : plain_sets_by_depth()) {
      const spacedsl::Set& set = m_.sets[s];
      std::optional<SetId> super;
      if (set.superset) super = membership_set(*set.superset);
      if (!set.all_ids.empty()) {
        w.open("");
        w.line("std::vector<ObjectId> ids;");
        w.line("for (auto&& id : " + substitute(set.all_ids, {}, "fun") +
               ") ids.push_back(to_object_id(id));");
        w.line("builder.set_all_ids(" + set_id(s) + ", std::move(ids), " +
               (super ? set_id(*super) : std::string("std::nullopt")) + ");");
        w.close();
      } else if (super && ranked(s)) {
        w.line("builder.share_ids(" + set_id(s) + ", " + set_id(*super) + ");");
      }
    }
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      if (is_parametric(s) || is_quotient(s)) continue;
      w.line("for_each_" + m_.sets[s].name + "(fun, [&](ObjectId id) { builder.add_member(" +
             set_id(s) + ", id); });");
    }
    w.line("builder.place_choices();");
    for (std::size_t k = 0; k < filters_.size(); ++k) emit_filter_fill(w, k);
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      if (m_.choices[c].kind == ChoiceKind::Integer) emit_universes(w, c, true);
    }
    for (std::size_t t = 0; t < triggers_.size(); ++t) {
      std::string sets;
      for (std::size_t i = 0; i < triggers_[t].vars.size(); ++i) {
        sets += (i ? ", " : "") + set_id(membership_set(triggers_[t].vars[i].set));
      }
      w.line("builder.add_trigger(" + std::to_string(t) + ", {" + sets + "});");
    }
    w.line("return std::make_shared<const Layout>(builder.finish());");
    w.close();
    w.line();
    w.line(
        "Candidate::Candidate(std::shared_ptr<Backbone> fun, std::shared_ptr<const Layout> "
        "layout)");
    w.line("    : CandidateBase(std::move(layout)), fun_(std::move(fun)) {}");
    w.line();
    w.open("std::unique_ptr<CandidateBase> Candidate::clone() const");
    w.line("return std::make_unique<Candidate>(*this);");
    w.close();
    w.line();
    w.open("Status Candidate::initialize()");
    w.line(check("post_all()"));
    w.line("return propagate();");
    w.close();
    w.line();
  }

  /// The plain sets (neither parametric nor quotients), supersets first.
  std::vector<SetId> plain_sets_by_depth() const {
    std::vector<std::pair<std::size_t, SetId>> by_depth;
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      if (is_parametric(s) || is_quotient(s)) continue;
      std::size_t depth = 0;
      for (SetId t = s; m_.sets[t].superset; t = effective_set(*m_.sets[t].superset)) ++depth;
      by_depth.emplace_back(depth, s);
    }
    std::sort(by_depth.begin(), by_depth.end());
    std::vector<SetId> out;
    for (const auto& entry : by_depth) out.push_back(entry.second);
    return out;
  }

  /// Emits the loops computing the universe of every present instance of integer choice `c`.
  /// `member(set, id)` tells which objects exist; `sink(choice, index, values)` records.
  void emit_universes(CodeWriter& w, ChoiceId c, bool at_layout) const {
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
    w.line("for (auto&& v : " + substitute(choice.universe, vars, at_layout ? "fun" : "(*fun_)") +
           ") values.push_back(static_cast<std::int64_t>(v));");
    w.line(std::string(at_layout ? "builder.set_universe" : "add_universe") + "(" + choice_id(c) +
           ", index, std::move(values));");
    for (int i = 0; i < opened; ++i) w.close();
  }

  std::string index_expr(ChoiceId c, std::size_t n) const {
    return "index_" + cname(c) + "(" + id_list(n) + ")";
  }

  void emit_accessors(CodeWriter& w) const {
    for (const auto& [from, to] : value_maps()) {
      w.open("ValueSet Candidate::map_" + cname(from) + "_to_" + cname(to) + "(ValueSet values)");
      w.line("ValueSet out = 0;");
      for (std::size_t i = 0; i < num_values(from); ++i) {
        const std::string& name = m_.choices[from].values[i].name;
        w.line("if (values & " + hex(std::uint64_t{1} << i) +
               ") out |= " + hex(value_bit(to, name)) + ";  // " + name);
      }
      w.line("return out;");
      w.close();
      w.line();
    }
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      const auto& choice = m_.choices[c];
      std::size_t n = choice.args.size();
      const std::string& name = choice.name;
      std::string id = choice_id(c);
      w.comment("Choice " + name + " (" + loc_string(choice.loc) + ").");
      switch (choice.kind) {
        case ChoiceKind::Enum: {
          std::string type = enum_type(c);
          w.open("Status Candidate::restrict_" + name + "(" + id_params_comma(n) +
                 "ValueSet values, Origin origin" + queue_param(c, "") + ")");
          if (triangular(c)) {
            w.open("if (a0 > a1)");
            w.line("std::swap(a0, a1);");
            if (antisymmetric(c)) w.line("values = flip_" + name + "(values);");
            w.close();
          }
          w.line("unsigned char* const slots = bytes() + layout_->choices[" + id + "].offset;");
          w.line("const std::size_t index = " + index_expr(c, n) + ";");
          w.line("const ValueSet old = " + enum_load(c, "slots", "index") + ";");
          w.line("const ValueSet now = old & values;");
          w.line("if (now == old) return Status::Ok;");
          if (packed(c)) {
            w.line("store_packed(slots, index, " + std::to_string(num_values(c)) + ", now);");
          } else {
            w.line("store_at<" + type + ">(slots + index * sizeof(" + type + "), static_cast<" +
                   type + ">(now));");
          }
          if (scanned_as_triangle(c)) {
            w.line("note_triangle_store<" + std::to_string(num_values(c)) + ">(triangle_rows_, " +
                   id + ", a0, a1, now, " + (antisymmetric(c) ? "flip_" + name + "(now)" : "now") +
                   ");");
          }
          w.open("if (now == 0)");
          w.line("const ObjectId ids[] = {" + (n ? id_list(n) : std::string("0")) + "};");
          w.line("return fail(origin, " + id + ", ids);");
          w.close();
          emit_counter_hooks(w, c, "old");
          w.line(std::string(woken_only_by_own_check(c) ? "if (queue) " : "") + "enqueue(" + id +
                 ", index, {" + id_list(n) + "}, old);");
          w.line("return Status::Ok;");
          w.close();
          break;
        }
        case ChoiceKind::Integer: {
          w.open("sculpt::spacegen::IntDomainRef Candidate::domain_" + name + "(" + id_params(n) +
                 ")");
          w.line("return int_domain(" + id + ", " + index_expr(c, n) + ");");
          w.close();
          w.open("Interval Candidate::get_" + name + "(" + id_params(n) + ") const");
          w.line("return int_bounds(" + id + ", " + index_expr(c, n) + ");");
          w.close();
          w.open("std::vector<std::int64_t> Candidate::values_" + name + "(" + id_params(n) +
                 ") const");
          w.line("const IntDomainRef d = const_cast<Candidate*>(this)->domain_" + name + "(" +
                 id_list(n) + ");");
          w.line("std::vector<std::int64_t> out;");
          w.line(
              "for (std::size_t i = 0; i < d.size(); ++i) if (d.contains_index(i)) "
              "out.push_back(d.value(i));");
          w.line("return out;");
          w.close();
          struct Variant {
            const char* suffix;
            const char* param;
            const char* action;
          };
          for (const Variant& v :
               {Variant{"", "Interval range", "restrict_range(range)"},
                Variant{"_remove", "std::int64_t value", "remove_value(value)"},
                Variant{"_like", "const IntDomainRef& other", "keep_values_of(other)"}}) {
            w.open("Status Candidate::restrict_" + name + v.suffix + "(" + id_params_comma(n) +
                   v.param + ", Origin origin)");
            w.line("IntDomainRef d = domain_" + name + "(" + id_list(n) + ");");
            w.line("const Interval old = d.bounds();");
            w.line("if (!d." + std::string(v.action) + ") return Status::Ok;");
            w.line("return changed_" + name + "(" + id_list(n) + (n ? ", " : "") + "old, origin);");
            w.close();
          }
          w.open("Status Candidate::changed_" + name + "(" + id_params_comma(n) +
                 "Interval old, Origin origin)");
          w.line("(void)old;");
          w.open("if (domain_" + name + "(" + id_list(n) + ").empty())");
          w.line("const ObjectId ids[] = {" + (n ? id_list(n) : std::string("0")) + "};");
          w.line("return fail(origin, " + id + ", ids);");
          w.close();
          emit_counter_hooks(w, c, "old");
          w.line("enqueue(" + id + ", " + index_expr(c, n) + ", {" + id_list(n) + "}, 0);");
          w.line("return Status::Ok;");
          w.close();
          break;
        }
        case ChoiceKind::Counter: {
          w.open("Status Candidate::bound_" + name + "(" + id_params_comma(n) +
                 "Interval range, Origin origin)");
          w.line("(void)origin;");
          w.line("CounterState s = counter_state(" + id + ", " + index_expr(c, n) + ");");
          w.line("const CounterState old = s;");
          w.line("s.min_bound = std::max(s.min_bound, range.lo);");
          w.line("s.max_bound = std::min(s.max_bound, range.hi);");
          w.line(
              "if (s.min_bound == old.min_bound && s.max_bound == old.max_bound) return "
              "Status::Ok;");
          w.line("return set_state_" + name + "(" + id_list(n) + (n ? ", " : "") + "s);");
          w.close();
          w.open("Status Candidate::set_state_" + name + "(" + id_params_comma(n) +
                 "const CounterState& s)");
          w.line("const std::size_t index = " + index_expr(c, n) + ";");
          w.line("const Interval old = counter_state(" + id + ", index).value();");
          w.line("(void)old;");
          w.line("set_counter_state(" + id + ", index, s);");
          w.open("if (s.value().empty())");
          w.line("const ObjectId ids[] = {" + (n ? id_list(n) : std::string("0")) + "};");
          w.line("return fail(" + counter_origin(c) + ", " + id + ", ids);");
          w.close();
          emit_counter_hooks(w, c, "old");
          w.line("enqueue(" + id + ", index, {" + id_list(n) + "}, 0);");
          w.line("return Status::Ok;");
          w.close();
          break;
        }
      }
      w.line();
    }
  }

  /// Calls the counter updates of every counter term reading choice `c`; `old` is the
  /// summary before the change, ids are a0..an in stored order. An update runs right after the
  /// change, so an enum instance its term reads only through `is` conditions wakes it only
  /// when the change settles one of them (`now`, the domain after it, is in scope): otherwise
  /// the term, its conditions and what they let the bounds force are as they were.
  void emit_counter_hooks(CodeWriter& w, ChoiceId c, const std::string& old) const {
    std::size_t n = m_.choices[c].args.size();
    for (std::size_t i = 0; i < counters_.size(); ++i) {
      if (rederived_on(i, c)) {
        w.line(check("rederive_" + cname(counter_ids_[i]) + "()"));
        continue;
      }
      auto ps = counter_patterns(i);
      const auto& value = m_.choices[counter_ids_[i]].counter->value;
      for (std::size_t k = 0; k < ps.size(); ++k) {
        if (ps[k].choice != c) continue;
        std::string fn =
            "count_" + cname(counter_ids_[i]) + "_on_" + cname(c) + "_" + std::to_string(k);
        const bool is_value =
            value.choice && Pattern{value.choice->choice, value.choice->args} == ps[k];
        auto guard = [&](bool flipped) {
          return wake_guard(c, wake_of(counters_[i], ps[k], flipped, is_value));
        };
        w.open("");
        w.line("const ObjectId ids[] = {" + (n ? id_list(n) : std::string("0")) + "};");
        w.line(guard(false) + check(fn + "(ids, " + old + ")"));
        if (triangular(c)) {
          w.line("const ObjectId swapped[] = {a1, a0};");
          w.line(guard(true) +
                 check(fn + "(swapped, " +
                       (antisymmetric(c) ? "flip_" + cname(c) + "(" + old + ")" : old) + ")"));
        }
        w.close();
      }
    }
  }

  /// Changes of an enum choice of at most this many values find the guarded calls they wake
  /// in a table indexed by the domains before and after the change: one load, where testing
  /// each guard reads both domains again.
  static constexpr std::size_t kMaxWakeTableValues = 5;

  void emit_dispatch(CodeWriter& w) const {
    // Written first: the wake tables and classes it reads come before it.
    CodeWriter f;
    // The wake classes (support table, pattern) that guards test in place.
    std::set<std::pair<std::size_t, std::size_t>> classes_read;
    f.open("Status Candidate::on_change(std::uint32_t choice, const ObjectId* ids, ValueSet old)");
    f.line("(void)old;");
    f.line("[[maybe_unused]] const ObjectId swapped[] = {ids[1], ids[0]};");
    f.open("switch (choice)");
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      f.open("case " + choice_id(c) + ":");
      std::size_t n = m_.choices[c].args.size();
      std::vector<std::string> args;
      for (std::size_t i = 0; i < n; ++i) args.push_back("ids[" + std::to_string(i) + "]");
      std::string arglist;
      for (std::size_t i = 0; i < n; ++i) arglist += (i ? ", " : "") + args[i];
      if (is_counter(c)) f.line(check("enforce_" + cname(c) + "(" + arglist + ")"));
      if (is_enum(c))
        f.line("[[maybe_unused]] const ValueSet now = get_" + cname(c) + "(" + arglist + ");");
      // Per bit of the wake table, what the wake-ups testing it fire on, (old, now) in order.
      std::vector<std::vector<bool>> bits;
      const bool tabled = is_enum(c) && num_values(c) <= kMaxWakeTableValues;
      const std::size_t domains = std::size_t{1} << num_values(c);
      // The condition of a wake-up (empty: always): a bit of the table, shared by the wake-ups
      // that fire alike, or the guard's own test.
      auto in_place = [&](const Wake& wake) {
        if (wake.table) classes_read.insert({*wake.table, wake.pattern});
        return guard_text(c, wake);
      };
      auto condition = [&](const Wake& wake) -> std::string {
        if (wake.always()) return "";
        if (!tabled) return in_place(wake);
        std::vector<bool> fired;
        for (ValueSet old = 0; old < domains; ++old) {
          for (ValueSet now = 0; now < domains; ++now) fired.push_back(fires(c, wake, old, now));
        }
        auto it = std::find(bits.begin(), bits.end(), fired);
        if (it == bits.end() && bits.size() == 64) return in_place(wake);
        if (it == bits.end()) it = bits.insert(it, fired);
        return "(wake & " + hex(std::uint64_t{1} << (it - bits.begin())) + ")";
      };
      CodeWriter body;
      // A triangular instance is read through both orders of its arguments, unless a
      // symmetric support table reads every permutation at once. `table`: the support table
      // whose wake classes say when pattern `k` wakes the call. A constraint's call returns a
      // status, and its clauses (disjunctions) learn something only when a condition becomes
      // false: one that becomes true satisfies its clause for good. A trigger fires when its
      // conditions hold.
      auto each = [&](const std::string& fn, bool constraint, bool both_orders, const Item& item,
                      const Pattern& p, bool reads_domains,
                      std::optional<std::size_t> table = std::nullopt, std::size_t k = 0) {
        for (bool flipped : {false, true}) {
          if (flipped && !(triangular(c) && both_orders)) break;
          std::string call = fn + (flipped ? "(swapped)" : "(ids)");
          Wake wake = wake_of(item, p, flipped, reads_domains);
          wake.falsified = constraint;
          if (table) wake = Wake{{}, false, table, k, flipped && antisymmetric(c)};
          body.line(guarded_by(condition(wake)) + (constraint ? check(call) : call + ";"));
        }
      };
      for (std::size_t i = 0; i < constraints_.size(); ++i) {
        auto ps = patterns_of(constraints_[i]);
        for (std::size_t k : woken_patterns(i)) {
          if (ps[k].choice == c) {
            const bool classed = supports_[i] && !supports_[i]->wake_classes[k].empty();
            each("propagate_" + std::to_string(i) + "_on_" + cname(c) + "_" + std::to_string(k),
                 true, !symmetric(i), constraints_[i], ps[k], supports_[i].has_value(),
                 classed ? std::optional<std::size_t>(i) : std::nullopt, k);
          }
        }
      }
      for (std::size_t t = 0; t < triggers_.size(); ++t) {
        auto ps = patterns_of(triggers_[t]);
        for (std::size_t k = 0; k < ps.size(); ++k) {
          if (ps[k].choice == c) {
            each("check_trigger_" + std::to_string(t) + "_on_" + cname(c) + "_" + std::to_string(k),
                 false, true, triggers_[t], ps[k], false);
          }
        }
      }
      emit_quotient_wakeups(body, c, condition);
      if (!bits.empty()) {
        std::vector<std::uint64_t> table(domains * domains, 0);
        for (std::size_t b = 0; b < bits.size(); ++b) {
          for (std::size_t e = 0; e < table.size(); ++e) table[e] |= std::uint64_t{bits[b][e]} << b;
        }
        const std::string type = bits.size() <= 32 ? "std::uint32_t" : "std::uint64_t";
        w.comment("The guarded wake-ups of a change of " + cname(c) +
                  " from old to now: bit k of wake_" + cname(c) + "[old << " +
                  std::to_string(num_values(c)) + " | now],");
        w.comment("the k-th condition its case of on_change tests.");
        emit_array(w, type, "wake_" + cname(c), table);
        f.line("const " + type + " wake = wake_" + cname(c) + "[old << " +
               std::to_string(num_values(c)) + " | now];");
      }
      f.lines(body);
      f.line("break;");
      f.close();
    }
    f.close();
    f.line("return Status::Ok;");
    f.close();
    for (const auto& [i, k] : classes_read) emit_wake_classes(w, i, k);
    w.lines(f);
    w.line();

    w.open(
        "Status Candidate::restrict_stored(std::uint32_t choice, const ObjectId* ids, const "
        "std::uint64_t* mask)");
    w.line("(void)ids;");
    w.open("switch (choice)");
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      std::size_t n = m_.choices[c].args.size();
      std::string arglist;
      for (std::size_t i = 0; i < n; ++i)
        arglist += (i ? ", " : "") + std::string("ids[") + std::to_string(i) + "]";
      if (is_enum(c)) {
        w.line("case " + choice_id(c) + ": return restrict_" + cname(c) + "(" + arglist +
               (n ? ", " : "") + "mask[0], kAction);");
      } else if (m_.choices[c].kind == ChoiceKind::Integer) {
        w.open("case " + choice_id(c) + ":");
        w.line("IntDomainRef d = domain_" + cname(c) + "(" + arglist + ");");
        w.line("const Interval old = d.bounds();");
        w.line("if (!d.keep_indices(mask)) return Status::Ok;");
        w.line("return changed_" + cname(c) + "(" + arglist + (n ? ", " : "") + "old, kAction);");
        w.close();
      }
    }
    w.line("default: break;");
    w.close();
    w.line("return Status::Ok;");
    w.close();
    w.line();

    w.comment("Posts everything on the present objects: counters from scratch, every constraint");
    w.comment("on every tuple, quotients, triggers and counter bounds.");
    w.open("Status Candidate::post_all()");
    for (ChoiceId c : counter_order_) emit_rederive(w, c);
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
      w.line(check("propagate_" + std::to_string(i) + "_all()"));
    }
    for (std::size_t q = 0; q < quotients_.size(); ++q) {
      w.line(check("quotient_" + std::to_string(q) + "_all_params(0)"));
    }
    for (std::size_t t = 0; t < triggers_.size(); ++t) {
      w.line("check_trigger_" + std::to_string(t) + "_all();");
    }
    w.line("return Status::Ok;");
    w.close();
    w.line();

    w.comment("Registers the objects lowerings added, then posts counters (from scratch) and");
    w.comment("every constraint, quotient and trigger on the tuples that involve a new object.");
    w.open("Status Candidate::instantiate_new_objects()");
    w.line("std::vector<std::pair<std::uint32_t, ObjectId>> added;");
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      if (is_parametric(s) || is_quotient(s)) continue;
      w.open("for_each_" + m_.sets[s].name + "(*fun_, [&](ObjectId id)");
      w.line("SCULPT_CHECK(layout_->potential(" + set_id(s) + ", id)) << \"a lowering added an " +
             "object of " + m_.sets[s].name + " beyond its capacity or outside its all_ids\";");
      w.line("if (is_member(" + set_id(s) + ", id)) return;");
      w.line("add_member(" + set_id(s) + ", id);");
      w.line("added.emplace_back(" + set_id(s) + ", id);");
      w.close(");");
    }
    w.line("if (added.empty()) return Status::Ok;");
    w.line("make_room_for_members();");
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      if (m_.choices[c].kind != ChoiceKind::Integer) continue;
      emit_universes(w, c, false);
    }
    for (ChoiceId c : counter_order_) emit_rederive(w, c);
    std::vector<std::pair<SetId, std::vector<std::string>>> posts;
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      if (is_parametric(s) || is_quotient(s)) continue;
      std::vector<std::string> calls;
      for (std::size_t i = 0; i < constraints_.size(); ++i) {
        for (VarId v : posted_vars(i)) {
          const Variable& var = constraints_[i].vars[v];
          if (membership_set(var.set) == s) {
            calls.push_back(check("propagate_" + std::to_string(i) + "_new_" + var.name + "(id)"));
          }
        }
      }
      for (std::size_t t = 0; t < triggers_.size(); ++t) {
        for (const auto& var : triggers_[t].vars) {
          if (membership_set(var.set) == s) {
            calls.push_back("check_trigger_" + std::to_string(t) + "_new_" + var.name + "(id);");
          }
        }
      }
      if (!calls.empty()) posts.emplace_back(s, std::move(calls));
    }
    if (!posts.empty()) {
      w.open("for (auto [set, id] : added)");
      for (const auto& [s, calls] : posts) {
        w.open("if (set == " + set_id(s) + ")");
        for (const std::string& call : calls) w.line(call);
        w.close();
      }
      w.close();
    }
    // A quotient's check of x reads the members below x only: one pass from the smallest new
    // member covers every check that an added member changes.
    for (std::size_t q = 0; q < quotients_.size(); ++q) {
      const std::string set = set_id(membership_set(m_.quotients[q].vars.back().set));
      w.open("");
      w.line("ObjectId first = kNoObject;");
      w.line("for (auto [set, id] : added) if (set == " + set + ") first = std::min(first, id);");
      w.line("if (first != kNoObject) " +
             check("quotient_" + std::to_string(q) + "_all_params(first)"));
      w.close();
    }
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }

  /// Sets every instance of counter `c` to its interval derived from scratch.
  void emit_rederive(CodeWriter& w, ChoiceId c) const {
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

  // ----- propagators.cpp -----------------------------------------------------------------

  std::string propagators_cpp() const {
    CodeWriter w;
    w.line(header_line());
    w.line("// Propagators: one function per constraint and choice it reads, woken when that");
    w.line("// choice's instance changes, and the quotient sets' representative choices.");
    w.line("#include \"space.h\"");
    w.line("#include \"spacegen/runtime/triangle.h\"");
    w.line();
    w.line("namespace " + o_.ns + " {");
    w.line();
    w.line("using namespace sculpt::spacegen;  // NOLINT: generated code");
    w.line();
    for (std::size_t i = 0; i < constraints_.size(); ++i) emit_constraint(w, i);
    for (std::size_t q = 0; q < quotients_.size(); ++q) emit_quotient(w, q);
    emit_run_quotient_check(w);
    w.line("}  // namespace " + o_.ns);
    return w.text();
  }

  void constraint_comment(CodeWriter& w, std::size_t i) const {
    const auto& c = m_.constraints[i];
    if (!c.doc.empty()) w.comment(c.doc);
    w.comment("require at " + loc_string(c.loc));
  }

  void emit_constraint(CodeWriter& w, std::size_t i) const {
    const Item& item = constraints_[i];
    std::string n = std::to_string(i);
    auto origin = [&](std::size_t k) { return constraint_origin(i, k); };
    const std::optional<SupportTable>& table = supports_[i];
    if (table) emit_support_tables(w, i, *table);
    // The checks of one function: the support tables, or the clauses that read what changed.
    auto emit_checks = [&](Scope& scope, const std::vector<bool>& needs,
                           const std::vector<std::size_t>& clauses,
                           std::optional<std::size_t> woken) {
      if (table) {
        emit_supports(w, i, *table, scope, needs, woken);
      } else {
        emit_clauses(w, item, clauses, scope, needs, origin);
      }
    };
    std::vector<std::size_t> all(item.clauses.size());
    for (std::size_t k = 0; k < all.size(); ++k) all[k] = k;
    constraint_comment(w, i);
    w.open("Status Candidate::propagate_" + n + "_all()");
    {
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      emit_checks(scope, std::vector<bool>(item.vars.size(), false), all, std::nullopt);
    }
    w.line("return Status::Ok;");
    w.close();
    w.line();
    for (VarId v : posted_vars(i)) {
      constraint_comment(w, i);
      w.comment("Posted on the tuples with $" + item.vars[v].name + " a new object.");
      w.open("Status Candidate::propagate_" + n + "_new_" + item.vars[v].name + "(ObjectId id)");
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      std::vector<bool> needs(item.vars.size(), false);
      needs[v] = true;
      scope.names[v] = "id";
      emit_checks(scope, needs, table ? all : posted_clauses(item, v), std::nullopt);
      w.line("return Status::Ok;");
      w.close();
      w.line();
    }
    auto ps = patterns_of(item);
    for (std::size_t k : woken_patterns(i)) {
      constraint_comment(w, i);
      w.comment("Woken when " + cname(ps[k].choice) + " changes.");
      w.open("Status Candidate::propagate_" + n + "_on_" + cname(ps[k].choice) + "_" +
             std::to_string(k) + "(const ObjectId* ids)");
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      std::vector<bool> needs = bind_pattern(w, scope, ps[k]);
      if (std::optional<TriangleShape> shape = triangle_shape(i, k)) {
        emit_triangle(w, i, k, *shape, scope);
        w.close();
        w.line();
        continue;
      }
      const std::vector<std::size_t> reading = woken_clauses(i, ps[k]);
      emit_checks(scope, needs, reading, k);
      w.line("return Status::Ok;");
      w.close();
      w.line();
    }
  }

  /// Whether quotient q has parameters: the checks of x under each of them read the same peers
  /// of x, which `quotient_<q>_at` reads once.
  bool hoists_peers(std::size_t q) const { return m_.quotients[q].vars.size() > 1; }
  bool hoists_peers() const {
    for (std::size_t q = 0; q < m_.quotients.size(); ++q) {
      if (hoists_peers(q)) return true;
    }
    return false;
  }

  /// Whether choice c is the representative of one quotient whose check is all a change of it
  /// wakes (no constraint, trigger or other quotient reads it; counters are updated at the
  /// change). The check is idempotent: what it does to its representative changes nothing it
  /// would do next, so its own restrictions of it queue nothing.
  bool woken_only_by_own_check(ChoiceId c) const {
    std::size_t checks = 0;
    for (std::size_t q = 0; q < quotients_.size(); ++q) {
      if (m_.quotients[q].repr_choice == c) ++checks;
      if (m_.quotients[q].equivalence == c || reads_choice(quotients_[q], c)) return false;
    }
    for (std::size_t i = 0; i < constraints_.size(); ++i) {
      const std::vector<Pattern> ps = patterns_of(constraints_[i]);
      for (std::size_t k : woken_patterns(i)) {
        if (ps[k].choice == c) return false;
      }
    }
    for (const Item& t : triggers_) {
      if (reads_choice(t, c)) return false;
    }
    return checks == 1;
  }
  /// The parameter that lets a quotient's check restrict its representative without queueing
  /// it (see woken_only_by_own_check), with its default `init`; nothing for other choices.
  std::string queue_param(ChoiceId c, const std::string& init) const {
    return woken_only_by_own_check(c) ? ", bool queue" + init : "";
  }
  static bool reads_choice(const Item& item, ChoiceId c) {
    const std::vector<Pattern> ps = patterns_of(item);
    return std::any_of(ps.begin(), ps.end(), [&](const Pattern& p) { return p.choice == c; });
  }

  /// Quotient q: repr(params, x) is TRUE exactly for the lowest-id member x of each class of
  /// members satisfying the condition.
  void emit_quotient(CodeWriter& w, std::size_t qi) const {
    const spacedsl::Quotient& q = m_.quotients[qi];
    const Item& item = quotients_[qi];
    std::size_t np = q.vars.size() - 1;
    VarId xv = np;
    SetId elem = effective_set(q.vars.back().set);
    std::string n = std::to_string(qi);
    std::string origin = quotient_origin(qi);
    std::string repr = cname(q.repr_choice);
    std::string eq = cname(q.equivalence);
    std::string params_args;
    for (std::size_t p = 0; p < np; ++p) params_args += "params[" + std::to_string(p) + "], ";
    std::uint64_t t = value_bit(q.repr_choice, "TRUE");
    std::uint64_t f = value_bit(q.repr_choice, "FALSE");
    // The check settles the representative to `value`, and then has nothing left to do.
    const bool quiet = woken_only_by_own_check(q.repr_choice);
    auto settle = [&](std::uint64_t value) {
      return "return restrict_" + repr + "(" + params_args + "x, " + mask(q.repr_choice, value) +
             ", " + origin + (quiet ? ", /*queue=*/false);" : ");");
    };
    auto cond_truth = [&](const std::string& x) {
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      for (std::size_t p = 0; p < np; ++p) scope.names[p] = "params[" + std::to_string(p) + "]";
      scope.names[xv] = x;
      std::string out = "Truth::True";
      for (const auto& cond : item.clauses[0]) {
        out = "conjunction(" + out + ", " + truth(cond, scope, {}) + ")";
      }
      return out;
    };
    w.comment("Quotient " + m_.sets[q.set].name + " (" + loc_string(q.loc) + "): is " + repr +
              "(..., x) the representative of x's class?");
    if (hoists_peers(qi)) {
      w.comment("The members below x that " + eq +
                " may still make equivalent to x: the only ones");
      w.comment("x's check reads under any parameters (they only get fewer).");
      w.open("Candidate::Peers Candidate::quotient_" + n + "_peers(ObjectId x) const");
      w.line("Peers peers;");
      w.open("for (const ObjectId y : members(" + set_id(elem) + "))");
      w.line("if (y >= x) break;");
      w.line("if (truth_is(get_" + eq + "(y, x), " + mask(q.equivalence, q.equivalence_values) +
             ") != Truth::False) peers.push_back(y);");
      w.close();
      w.line("return peers;");
      w.close();
      w.line();
    }
    w.open("Status Candidate::quotient_" + n + "_check(const ObjectId* params, ObjectId x)");
    w.line("return quotient_" + n + "_check_among(params, x, members(" + set_id(elem) + "));");
    w.close();
    w.line();
    w.comment("The check of x reading the members `ys` (in increasing order, a superset of its");
    w.comment("peers).");
    w.line("template <typename Members>");
    w.open("Status Candidate::quotient_" + n +
           "_check_among(const ObjectId* params, ObjectId x, const Members& ys)");
    w.line("(void)params;");
    w.line("const Truth cx = " + cond_truth("x") + ";");
    w.line("if (cx == Truth::False) " + settle(f));
    w.line("int possible = 0;");
    w.line("ObjectId last = 0;");
    w.open("for (const ObjectId y : ys)");
    w.line("if (y >= x) break;");
    w.line("const Truth e = truth_is(get_" + eq + "(y, x), " +
           mask(q.equivalence, q.equivalence_values) + ");");
    w.line("if (e == Truth::False) continue;");
    w.line("const Truth cy = " + cond_truth("y") + ";");
    w.line("if (cy == Truth::False) continue;");
    w.line("if (cy == Truth::True && e == Truth::True) " + settle(f));
    w.line("++possible;");
    w.line("last = y;");
    w.close();
    w.line("if (cx == Truth::True && possible == 0) " + settle(t));
    w.line("const ValueSet r = get_" + repr + "(" + params_args + "x);");
    w.open("if (r == " + mask(q.repr_choice, t) + ")");
    {
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      for (std::size_t p = 0; p < np; ++p) scope.names[p] = "params[" + std::to_string(p) + "]";
      scope.names[xv] = "x";
      for (const auto& cond : item.clauses[0]) enforce(w, cond, scope, origin);
      w.open("for (const ObjectId y : ys)");
      w.line("if (y >= x) break;");
      w.line("if (" + cond_truth("y") + " != Truth::True) continue;");
      w.line(check("restrict_" + eq + "(y, x, " +
                   mask(q.equivalence, ~q.equivalence_values & full_mask(q.equivalence)) + ", " +
                   origin + ")"));
      w.close();
    }
    w.close();
    w.open("if (r == " + mask(q.repr_choice, f) + " && cx == Truth::True && possible == 1)");
    {
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      for (std::size_t p = 0; p < np; ++p) scope.names[p] = "params[" + std::to_string(p) + "]";
      scope.names[xv] = "last";
      for (const auto& cond : item.clauses[0]) enforce(w, cond, scope, origin);
      w.line(check("restrict_" + eq + "(last, x, " + mask(q.equivalence, q.equivalence_values) +
                   ", " + origin + ")"));
    }
    w.close();
    w.line("return Status::Ok;");
    w.close();
    w.line();
    w.open("Status Candidate::quotient_" + n + "_from(const ObjectId* params, ObjectId first)");
    w.open("for (const ObjectId x : members(" + set_id(elem) + ", first))");
    w.line(check("quotient_" + n + "_check(params, x)"));
    w.close();
    w.line("return Status::Ok;");
    w.close();
    w.line();
    w.comment("After a change of x's condition: x, and the larger members x may be equivalent to");
    w.comment("(the only checks that read it).");
    w.open("Status Candidate::quotient_" + n + "_around(const ObjectId* params, ObjectId x)");
    w.line("if (!is_member(" + set_id(elem) + ", x)) return Status::Ok;");
    w.line(check("quotient_" + n + "_check(params, x)"));
    w.open("for (const ObjectId z : members(" + set_id(elem) + ", x + 1))");
    w.open("if (truth_is(get_" + eq + "(x, z), " + mask(q.equivalence, q.equivalence_values) +
           ") != Truth::False)");
    w.line(check("quotient_" + n + "_check(params, z)"));
    w.close();
    w.close();
    w.line("return Status::Ok;");
    w.close();
    w.line();
    // `call` on `params` for every parameter tuple.
    auto for_each_params = [&](const std::string& call) {
      Item params_item{std::vector<Variable>(q.vars.begin(), q.vars.end() - 1), {}, {}, true};
      Scope scope{&params_item, std::vector<std::string>(np)};
      emit_scope(w, scope, std::vector<bool>(np, false), [&] {
        std::string list;
        for (std::size_t p = 0; p < np; ++p) list += (p ? ", " : "") + scope.names[p];
        w.line("const ObjectId params[] = {" + (np ? list : std::string("0")) + "};");
        w.line(check(call));
      });
    };
    w.open("Status Candidate::quotient_" + n + "_all_params(ObjectId first)");
    for_each_params("quotient_" + n + "_from(params, first)");
    w.line("return Status::Ok;");
    w.close();
    w.line();
    // Every tuple, even those where y, the lower end of the equivalence that changed, fails
    // the condition: `around(y)` skips x by the current equivalence, so when both change in
    // one propagation, each skip would count on the other's check and x would go unchecked.
    w.comment(hoists_peers(qi)
                  ? "Checks x under every parameter tuple; its peers are read once for all."
                  : "Checks x.");
    w.open("Status Candidate::quotient_" + n + "_at(ObjectId x)");
    w.line("if (!is_member(" + set_id(elem) + ", x)) return Status::Ok;");
    if (hoists_peers(qi)) {
      w.line("const Peers peers = quotient_" + n + "_peers(x);");
      for_each_params("quotient_" + n + "_check_among(params, x, peers)");
    } else {
      for_each_params("quotient_" + n + "_check(params, x)");
    }
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }

  /// The checks on_change defers (see CandidateBase::defer_quotient_check).
  void emit_run_quotient_check(CodeWriter& w) const {
    w.open("Status Candidate::run_quotient_check(std::uint32_t quotient, ObjectId x)");
    if (quotients_.empty()) w.line("(void)x;");
    w.open("switch (quotient)");
    for (std::size_t q = 0; q < quotients_.size(); ++q) {
      w.line("case " + std::to_string(q) + ": return quotient_" + std::to_string(q) + "_at(x);");
    }
    w.line("default: break;");
    w.close();
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }

  /// Quotient checks woken by a change of choice `c` (inside on_change's switch).
  /// `condition`: the test (empty: none) under which a wake-up fires.
  void emit_quotient_wakeups(CodeWriter& w, ChoiceId c,
                             const std::function<std::string(const Wake&)>& condition) const {
    for (std::size_t qi = 0; qi < quotients_.size(); ++qi) {
      const spacedsl::Quotient& q = m_.quotients[qi];
      std::size_t np = q.vars.size() - 1;
      std::string n = std::to_string(qi);
      if (c == q.repr_choice) {
        w.line(check("quotient_" + n + "_check(ids, ids[" + std::to_string(np) + "])"));
        continue;
      }
      if (c == q.equivalence) {
        // equivalence(y, x) is read only by the check of the larger one, when both are
        // elements.
        SetId elem = membership_set(q.vars.back().set);
        Wake wake;
        wake.settled.push_back(q.equivalence_values);
        const ValueSet flipped = flip_values(c, q.equivalence_values);
        if (flipped != q.equivalence_values) wake.settled.push_back(flipped);
        w.line("if (" + condition(wake) + " && is_member(" + set_id(elem) +
               ", std::min(ids[0], ids[1]))) defer_quotient_check(" + n +
               ", std::max(ids[0], ids[1]));");
      }
      std::vector<std::string> orientations = {"ids"};
      if (triangular(c)) orientations.push_back("swapped");
      for (const Pattern& p : patterns_of(quotients_[qi].clauses[0])) {
        if (p.choice != c) continue;
        auto position = [&](VarId v) -> std::optional<std::size_t> {
          auto it = std::find(p.args.begin(), p.args.end(), v);
          if (it == p.args.end()) return std::nullopt;
          return static_cast<std::size_t>(it - p.args.begin());
        };
        bool params_bound = true;
        for (VarId v = 0; v < np; ++v) {
          params_bound =
              params_bound && position(v) && !is_parametric(effective_set(q.vars[v].set));
        }
        for (const std::string& ids : orientations) {
          // The condition of x changed: x and the larger elements may change their
          // representative, under the parameters the instance names (or all of them).
          std::optional<std::size_t> x = position(np);
          std::string first = x ? ids + "[" + std::to_string(*x) + "]" : "0";
          const std::string guard =
              guarded_by(condition(wake_of(quotients_[qi], p, ids == "swapped", false)));
          if (!params_bound) {
            w.line(guard + check("quotient_" + n + "_all_params(" + first + ")"));
            continue;
          }
          w.open("");
          std::string params;
          std::string members;
          for (VarId v = 0; v < np; ++v) {
            std::string id = ids + "[" + std::to_string(*position(v)) + "]";
            params += (v ? ", " : "") + id;
            members += std::string(v ? " && " : "") + "is_member(" +
                       set_id(membership_set(q.vars[v].set)) + ", " + id + ")";
          }
          w.line("const ObjectId params[] = {" + (np ? params : std::string("0")) + "};");
          std::string call = check(x ? "quotient_" + n + "_around(params, " + first + ")"
                                     : "quotient_" + n + "_from(params, 0)");
          w.line(guard + (np ? "if (" + members + ") " + call : call));
          w.close();
        }
      }
    }
  }

  // ----- counters.cpp --------------------------------------------------------------------

  /// Whether counter i reads choice c through several argument patterns: one change may then
  /// touch a term through two patterns, so the counter is derived again instead of updated.
  bool rederived_on(std::size_t i, ChoiceId c) const {
    auto ps = counter_patterns(i);
    return std::count_if(ps.begin(), ps.end(), [&](const Pattern& p) { return p.choice == c; }) > 1;
  }
  bool has_rederive(std::size_t i) const {
    for (const Pattern& p : counter_patterns(i)) {
      if (rederived_on(i, p.choice)) return true;
    }
    return false;
  }

  std::vector<Pattern> counter_patterns(std::size_t i) const {
    std::vector<Pattern> ps = patterns_of(counters_[i].clauses[0]);
    const auto& value = m_.choices[counter_ids_[i]].counter->value;
    if (value.choice) {
      Pattern p{value.choice->choice, value.choice->args};
      if (std::find(ps.begin(), ps.end(), p) == ps.end()) ps.push_back(p);
    }
    return ps;
  }

  /// Emits `const Interval <name> = ...;`: the contribution of a term of counter i whose truth
  /// is in `counted` and value in `value`.
  void emit_term(CodeWriter& w, std::size_t i, const std::string& counted, const std::string& value,
                 const std::string& name) const {
    std::string op = counter_op_name(m_.choices[counter_ids_[i]].counter->op);
    w.line("const Interval " + name + " = contribution(" + op + ", " + counted + ", " + value +
           ");");
  }
  /// Emits `const Truth <name> = ...;`: whether counter i's term counts in `scope`.
  void emit_counted(CodeWriter& w, std::size_t i, const Scope& scope, const Locals& ov,
                    const std::string& name) const {
    w.line("const Truth " + name + " = " + term_counted(i, scope, ov) + ";");
  }
  /// Whether counter i's term counts, its variables bound in `scope`.
  std::string term_counted(std::size_t i, const Scope& scope, const Locals& ov) const {
    std::string counted = "Truth::True";
    for (const auto& cond : counters_[i].clauses[0]) {
      counted = "conjunction(" + counted + ", " + truth(cond, scope, ov) + ")";
    }
    return counted;
  }
  /// The value counter i's term adds when it counts.
  std::string term_value(std::size_t i, const Scope& scope, const Locals& ov) const {
    const spacedsl::Counter& counter = *m_.choices[counter_ids_[i]].counter;
    return counter.value.choice ? summary(*counter.value.choice, scope, ov)
                                : "constant(" + host(counter.value.code, scope) + ")";
  }

  std::string counters_cpp() const {
    CodeWriter w;
    w.line(header_line());
    w.line("// Counters: derived intervals, maintained incrementally when a domain they read");
    w.line("// changes, and the bounds imposed on them forcing or forbidding increments.");
    w.line("#include <algorithm>");
    w.line();
    w.line("#include \"space.h\"");
    w.line();
    w.line("namespace " + o_.ns + " {");
    w.line();
    w.line("using namespace sculpt::spacegen;  // NOLINT: generated code");
    w.line();
    for (std::size_t i = 0; i < counters_.size(); ++i) emit_counter(w, i);
    w.line("}  // namespace " + o_.ns);
    return w.text();
  }

  /// Whether each term of the counter is enforced against the counter alone (sums and
  /// products): when a term changes and the counter stays as it was, only that term can be cut.
  /// A maximum's lower bound forces its last witness, which any term's change may make: its
  /// terms are enforced together.
  static bool enforced_term_wise(const spacedsl::Counter& counter) {
    return counter.op != spacedsl::CounterOp::Max;
  }

  void emit_counter(CodeWriter& w, std::size_t i) const {
    ChoiceId c = counter_ids_[i];
    const auto& choice = m_.choices[c];
    const spacedsl::Counter& counter = *choice.counter;
    const Item& item = counters_[i];
    std::size_t n = choice.args.size();
    std::string name = choice.name;
    std::string op = counter_op_name(counter.op);
    bool half = counter.half;
    auto bind_args = [&](Scope& scope) {
      for (std::size_t a = 0; a < n; ++a) scope.names[a] = "a" + std::to_string(a);
    };
    std::string args_ids = id_list(n);
    if (!choice.doc.empty()) w.comment(choice.doc);
    w.comment("counter " + name + " (" + loc_string(choice.loc) + ")" + (half ? ", half" : ""));
    w.open("Interval Candidate::derive_" + name + "(" + id_params(n) + ") const");
    w.line("Interval total = identity(" + op + ");");
    {
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      bind_args(scope);
      emit_scope(w, scope, std::vector<bool>(item.vars.size(), false), [&] {
        // A term certainly not counted is the identity: its value is not read.
        emit_counted(w, i, scope, {}, "counted");
        w.open("if (counted != Truth::False)");
        emit_term(w, i, "counted", term_value(i, scope, {}), "term");
        w.line("total = accumulate(" + op + ", total, term);");
        w.close();
      });
    }
    if (half) w.line("total.hi = kInfinity;");
    w.line("return total;");
    w.close();
    w.line();

    const bool term_wise = enforced_term_wise(counter);
    w.comment("One term of " + name + " changed from old_term to new_term" +
              (term_wise ? " (now `value`, counted if `counted`)." : "."));
    w.open("Status Candidate::update_" + name + "(" + id_params_comma(n) +
           "Interval old_term, Interval new_term" +
           (term_wise ? ", Truth counted, Interval value" : "") + ")");
    w.line("CounterState s = counter_state(" + choice_id(c) + ", index_" + name + "(" + args_ids +
           "));");
    if (term_wise) w.line("const CounterState old = s;");
    w.line("if (!replace_term(" + op + ", " + (half ? "true" : "false") +
           ", s, old_term, new_term)) {");
    w.line("  const Interval d = derive_" + name + "(" + args_ids + ");");
    w.line("  s.lo = d.lo;");
    w.line("  s.hi = d.hi;");
    w.line("}");
    if (half) w.line("s.hi = kInfinity;");
    if (term_wise) {
      w.line("// Unchanged, it wakes nothing its readers or other terms would learn from.");
      w.line("if (s.lo == old.lo && s.hi == old.hi && !term_needs_enforcing(" + op +
             ", s, counted, value)) return Status::Ok;");
    }
    w.line("return set_state_" + name + "(" + args_ids + (n ? ", " : "") + "s);");
    w.close();
    w.line();

    if (has_rederive(i)) {
      w.comment("Derives every instance of " + name + " again.");
      w.open("Status Candidate::rederive_" + name + "()");
      emit_rederive(w, c);
      w.line("return Status::Ok;");
      w.close();
      w.line();
    }
    auto ps = counter_patterns(i);
    for (std::size_t k = 0; k < ps.size(); ++k) {
      if (rederived_on(i, ps[k].choice)) continue;
      w.comment("Updates " + name + " when " + cname(ps[k].choice) + " changes from `old`.");
      w.open("Status Candidate::count_" + name + "_on_" + cname(ps[k].choice) + "_" +
             std::to_string(k) + "(const ObjectId* ids, " + summary_type(ps[k].choice) + " old)");
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      std::vector<bool> needs = bind_pattern(w, scope, ps[k]);
      emit_scope(w, scope, needs, [&] {
        const Locals ov{{{ps[k], "old"}}};
        emit_counted(w, i, scope, ov, "old_counted");
        emit_counted(w, i, scope, {}, "new_counted");
        // Certainly not counted before or after: the identity either way, which the enforcer
        // skips.
        w.open("if (old_counted != Truth::False || new_counted != Truth::False)");
        std::string old_value = term_value(i, scope, ov);
        std::string new_value = term_value(i, scope, {});
        if (old_value == new_value) {  // the change is not the value's: read it once
          w.line("const Interval value = " + new_value + ";");
          old_value = new_value = "value";
        } else if (term_wise) {  // read once for the term and for its enforcement
          w.line("const Interval new_value = " + new_value + ";");
          new_value = "new_value";
        }
        emit_term(w, i, "old_counted", old_value, "old_term");
        emit_term(w, i, "new_counted", new_value, "new_term");
        std::string args;
        for (std::size_t a = 0; a < n; ++a) args += (a ? ", " : "") + scope.names[a];
        const std::string index = "index_" + name + "(" + args + ")";
        w.open("if (old_term != new_term)");
        w.line(check("update_" + name + "(" + args + (n ? ", " : "") + "old_term, new_term" +
                     (term_wise ? ", new_counted, " + new_value : "") + ")"));
        w.close();
        w.open("else if (new_counted != Truth::False" +
               (term_wise ? " && term_needs_enforcing(" + op + ", counter_state(" + choice_id(c) +
                                ", " + index + "), new_counted, " + new_value + ")"
                          : std::string()) +
               ")");
        w.line("// The term's conditions may still have changed what the bounds force.");
        w.line("enqueue(" + choice_id(c) + ", " + index + ", {" + args + "}, 0);");
        w.close();
        w.close();
      });
      w.line("return Status::Ok;");
      w.close();
      w.line();
    }

    w.comment("The bounds on " + name + " forbid the increments that would break them and force");
    w.comment("those without which they cannot be reached.");
    w.open("Status Candidate::enforce_" + name + "(" + id_params(n) + ")");
    w.line("const CounterState s = counter_state(" + choice_id(c) + ", index_" + name + "(" +
           args_ids + "));");
    w.line("if (within_bounds(s)) return Status::Ok;");
    {
      Scope args{&item, std::vector<std::string>(item.vars.size())};
      bind_args(args);
      std::string origin = counter_origin(c);
      const auto& when = item.clauses[0];
      Scope scope = args;  // emit_scope binds the quantified variables in place
      auto emit_value = [&] { w.line("const Interval value = " + term_value(i, scope, {}) + ";"); };
      std::string witnesses;
      if (counter.op == spacedsl::CounterOp::Max) {
        w.line("// Terms that can still reach the lower bound: the last one is forced.");
        w.line("std::size_t witnesses = 0;");
        w.open("if (s.min_bound > -kInfinity)");
        emit_scope(w, scope, std::vector<bool>(item.vars.size(), false), [&] {
          emit_counted(w, i, scope, {}, "counted");
          emit_value();
          w.line("if (max_witness(s, counted, value)) ++witnesses;");
        });
        w.close();
        witnesses = ", witnesses";
        scope = args;
      }
      emit_scope(w, scope, std::vector<bool>(item.vars.size(), false), [&] {
        emit_counted(w, i, scope, {}, "counted");
        w.line("// A term certainly not counted is the identity: nothing to forbid, force or cut.");
        w.open("if (counted != Truth::False)");
        emit_value();
        w.line("const TermSlack slack = term_slack(" + op + ", s, counted, value" + witnesses +
               ");");
        // Forbid: the only non-certain condition must fail.
        w.open("if (slack.forbid)");
        for (std::size_t k = 0; k < when.size(); ++k) {
          auto neg = negation(when[k]);
          if (!neg) continue;
          std::string others = "true";
          for (std::size_t j = 0; j < when.size(); ++j) {
            if (j != k) others += " && " + truth(when[j], scope, {}) + " == Truth::True";
          }
          w.open("if (" + others + ")");
          enforce(w, *neg, scope, origin);
          w.close();
        }
        w.close();
        w.open("if (slack.force)");
        for (const auto& cond : when) enforce(w, cond, scope, origin);
        w.close();
        if (counter.value.choice) {
          w.open("if (counted == Truth::True)");
          w.line(check(restrict_range(*counter.value.choice, scope, "slack.value", origin)));
          w.close();
        }
        w.close();
      });
    }
    w.line("return Status::Ok;");
    w.close();
    w.line();
  }

  // ----- triggers.cpp --------------------------------------------------------------------

  std::string triggers_cpp() const {
    CodeWriter w;
    w.line(header_line());
    w.line("// Triggers: lowerings fired once their condition is certain; the objects they add");
    w.line("// are instantiated by instantiate_new_objects().");
    w.line("#include \"space.h\"");
    w.line();
    w.line("namespace " + o_.ns + " {");
    w.line();
    w.line("using namespace sculpt::spacegen;  // NOLINT: generated code");
    w.line();
    for (std::size_t t = 0; t < triggers_.size(); ++t) emit_trigger(w, t);
    w.open("void Candidate::run_trigger(std::uint32_t trigger, const ObjectId* ids)");
    w.line("(void)ids;");
    w.line("// Lowerings modify the backbone: this candidate gets its own copy first.");
    w.line("if (fun_.use_count() > 1) fun_ = std::make_shared<Backbone>(*fun_);");
    w.open("switch (trigger)");
    for (std::size_t t = 0; t < triggers_.size(); ++t) {
      const Item& item = triggers_[t];
      w.open("case " + std::to_string(t) + ":");
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      for (std::size_t v = 0; v < item.vars.size(); ++v) {
        scope.names[v] = "ids[" + std::to_string(v) + "]";
      }
      w.comment("trigger at " + loc_string(trigger_code_[t].loc));
      std::map<std::string, std::string> vars;
      for (VarId v = 0; v < item.vars.size(); ++v) {
        vars[item.vars[v].name] = item_expr(item.vars[v].set, scope.names[v], "*fun_");
      }
      w.line("(void)(" + substitute(trigger_code_[t].code, vars, "(*fun_)") + ");");
      w.line("break;");
      w.close();
    }
    w.line("default: break;");
    w.close();
    w.close();
    w.line();
    w.line("}  // namespace " + o_.ns);
    return w.text();
  }

  void emit_trigger(CodeWriter& w, std::size_t t) const {
    const Item& item = triggers_[t];
    const TriggerCode& trig = trigger_code_[t];
    std::string n = std::to_string(t);
    auto fire = [&](const Scope& scope) {
      std::string counted = "Truth::True";
      for (const auto& cond : item.clauses[0]) {
        counted = "conjunction(" + counted + ", " + truth(cond, scope, {}) + ")";
      }
      std::string ids, sets;
      for (std::size_t v = 0; v < item.vars.size(); ++v) {
        ids += (v ? ", " : "") + scope.names[v];
        sets += (v ? ", " : "") + set_id(membership_set(item.vars[v].set));
      }
      w.open("if (" + counted + " == Truth::True)");
      w.line("const ObjectId fired[] = {" + (ids.empty() ? std::string("0") : ids) + "};");
      w.line("const std::uint32_t sets[] = {" + (sets.empty() ? std::string("0") : sets) + "};");
      w.line("fire_trigger(" + n + ", fired, " + std::to_string(item.vars.size()) + ", sets);");
      w.close();
    };
    if (!trig.doc.empty()) w.comment(trig.doc);
    w.comment("trigger at " + loc_string(trig.loc));
    w.open("void Candidate::check_trigger_" + n + "_all()");
    {
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      emit_scope(w, scope, std::vector<bool>(item.vars.size(), false), [&] { fire(scope); });
    }
    w.close();
    w.line();
    for (VarId v = 0; v < item.vars.size(); ++v) {
      w.open("void Candidate::check_trigger_" + n + "_new_" + item.vars[v].name + "(ObjectId id)");
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      std::vector<bool> needs(item.vars.size(), false);
      needs[v] = true;
      scope.names[v] = "id";
      emit_scope(w, scope, needs, [&] { fire(scope); });
      w.close();
      w.line();
    }
    auto ps = patterns_of(item);
    for (std::size_t k = 0; k < ps.size(); ++k) {
      w.open("void Candidate::check_trigger_" + n + "_on_" + cname(ps[k].choice) + "_" +
             std::to_string(k) + "(const ObjectId* ids)");
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      std::vector<bool> needs = bind_pattern(w, scope, ps[k]);
      emit_scope(w, scope, needs, [&] { fire(scope); });
      w.close();
      w.line();
    }
  }

  const Model& m_;
  const GeneratorOptions& o_;
  std::vector<Item> constraints_;
  std::vector<std::optional<SupportTable>> supports_;  // by constraint
  std::vector<Item> counters_;
  std::vector<ChoiceId> counter_ids_;
  std::vector<ChoiceId> counter_order_;
  std::vector<Item> triggers_;
  std::vector<Item> quotients_;
  std::vector<std::pair<std::string, std::string>> origins_;
  std::vector<StaticFilter> filters_;
  std::vector<TriggerCode> trigger_code_;  // per entry of triggers_
};

}  // namespace

std::vector<std::string> generated_file_names() { return {std::begin(kFiles), std::end(kFiles)}; }

std::vector<GeneratedFile> generate(const spacedsl::Model& model, const GeneratorOptions& options) {
  return Generator(model, options).run();
}

}  // namespace sculpt::spacegen
