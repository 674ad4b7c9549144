// decision_vector.cpp: the space table, host glue per set, static filters, make_layout and
// the accessors; the change dispatch is emit_dispatch.cpp's.
#include <algorithm>
#include <map>

#include "spacegen/emission.h"
#include "spacegen/emitters.h"
#include "spacegen/host_code.h"
#include "spacegen/line_directives.h"

namespace sculpt::spacegen {

namespace {

class DecisionVector : public Emission {
 public:
  explicit DecisionVector(const Emission& e) : Emission(e) {}

  std::string decision_vector_cpp(std::uint64_t hash) const {
    CodeWriter w;
    open_source(w,
                {"The decision vector: tables, layout, typed accessors and the change dispatch."},
                {"<algorithm>", R"("space.h")", R"("spacegen/runtime/triangle.h")",
                 R"("support/check.h")"});
    emit_table(w, hash);
    emit_host_glue(w);
    emit_filters(w);
    emit_layout(w);
    emit_accessors(w);
    emit_dispatch(*this, w);
    close_source(w);
    return w.text();
  }

  void emit_table(CodeWriter& w, std::uint64_t hash) const {
    const std::vector<CounterBounds>& bounds = plan_.counter_bounds;
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
             flag(bounds[c].lower) + ", " + flag(bounds[c].upper) + "});");
    }
    for (const auto& [name, loc] : plan_.origins) {
      w.line("t.origins.push_back({" + quoted(name) + ", " + quoted(loc) + "});");
    }
    w.line("t.num_triggers = " + std::to_string(plan_.triggers.size()) + ";");
    w.line("t.model_hash = " + hex(hash) + ";");
    w.line("return t;");
    w.close("();");
    w.line("return table;");
    w.close();
    w.line();
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
        w.open(
            "for (auto&& item : " +
            located(set.loc, substitute(set.iterator, {{set.parameter->name, param}}, "(*fun_)")) +
            ")");
        w.line("if (id_" + set.name + "(*fun_, item) == id) return true;");
        w.close();
        w.line("return false;");
        w.close();
      } else {
        w.line("template <typename F>");
        w.open("void Candidate::for_each_" + set.name + "(const Backbone& fun, F&& f)");
        if (!set.iterator.empty()) {
          w.line("for (auto&& item : " + located(set.loc, substitute(set.iterator, {}, "fun")) +
                 ") f(id_" + set.name + "(fun, item));");
        } else {
          const auto& super = m_.sets[*set.superset];
          w.open("for_each_" + super.name + "(fun, [&](ObjectId id)");
          w.line("if (" +
                 located(set.loc,
                         substitute(set.from_superset,
                                    {{"item", item_expr(*set.superset, "id", "fun")}}, "fun")) +
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
    const StaticFilter& f = plan_.filters[k];
    std::map<std::string, std::string> vars;
    for (std::size_t i = 0; i < f.vars.size(); ++i) {
      const Variable& var = f.item->vars[f.vars[i]];
      vars[var.name] = item_expr(var.set, "a" + std::to_string(i), fun);
    }
    return located(f.cond->loc, substitute(f.cond->code, vars, fun));
  }

  void emit_filters(CodeWriter& w) const {
    for (std::size_t k = 0; k < plan_.filters.size(); ++k) {
      const StaticFilter& f = plan_.filters[k];
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
    const StaticFilter& f = plan_.filters[k];
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
             located(m_.sets[s].loc, substitute(m_.sets[s].capacity, {}, "fun")) + "));");
    }
    for (SetId s : plain_sets_by_depth()) {
      const spacedsl::Set& set = m_.sets[s];
      std::optional<SetId> super;
      if (set.superset) super = membership_set(*set.superset);
      if (!set.all_ids.empty()) {
        w.open("");
        w.line("std::vector<ObjectId> ids;");
        w.line("for (auto&& id : " + located(set.loc, substitute(set.all_ids, {}, "fun")) +
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
    for (std::size_t k = 0; k < plan_.filters.size(); ++k) emit_filter_fill(w, k);
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      if (m_.choices[c].kind == ChoiceKind::Integer) emit_universes(w, c, true);
    }
    for (std::size_t t = 0; t < plan_.triggers.size(); ++t) {
      std::string sets;
      for (std::size_t i = 0; i < plan_.triggers[t].vars.size(); ++i) {
        sets += (i ? ", " : "") + set_id(membership_set(plan_.triggers[t].vars[i].set));
      }
      w.line("builder.add_trigger(" + std::to_string(t) + ", {" + sets + "});");
    }
    w.line("return std::make_shared<const Layout>(builder.finish());");
    w.close();
    w.line();
    w.line(
        "Candidate::Candidate(std::shared_ptr<Backbone> fun, std::shared_ptr<const Layout> "
        "layout)");
    w.line("    : SpaceCandidate(std::move(fun), std::move(layout)) {}");
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

  void emit_accessors(CodeWriter& w) const {
    for (const auto& [from, to] : plan_.value_maps) emit_value_map(w, from, to);
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      const auto& choice = m_.choices[c];
      w.comment("Choice " + choice.name + " (" + loc_string(choice.loc) + ").");
      switch (choice.kind) {
        case ChoiceKind::Enum:
          emit_enum_accessors(w, c);
          break;
        case ChoiceKind::Integer:
          emit_integer_accessors(w, c);
          break;
        case ChoiceKind::Counter:
          emit_counter_accessors(w, c);
          break;
      }
      w.line();
    }
  }

  /// `map_<from>_to_<to>`: an enum domain onto the values of the same names.
  void emit_value_map(CodeWriter& w, ChoiceId from, ChoiceId to) const {
    w.open("ValueSet Candidate::map_" + cname(from) + "_to_" + cname(to) + "(ValueSet values)");
    w.line("ValueSet out = 0;");
    for (std::size_t i = 0; i < num_values(from); ++i) {
      const std::string& name = m_.choices[from].values[i].name;
      w.line("if (values & " + hex(std::uint64_t{1} << i) + ") out |= " + hex(value_bit(to, name)) +
             ";  // " + name);
    }
    w.line("return out;");
    w.close();
    w.line();
  }

  /// `restrict_<c>` of an enum choice: stores, updates counters, queues.
  void emit_enum_accessors(CodeWriter& w, ChoiceId c) const {
    const auto& choice = m_.choices[c];
    std::size_t n = choice.args.size();
    const std::string& name = choice.name;
    std::string id = choice_id(c);
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
      w.line("store_at<" + type + ">(slots + index * sizeof(" + type + "), static_cast<" + type +
             ">(now));");
    }
    if (plan_.scanned_as_triangle[c]) {
      w.line("note_triangle_store<" + std::to_string(num_values(c)) + ">(triangle_rows_, " + id +
             ", a0, a1, now, " + (antisymmetric(c) ? "flip_" + name + "(now)" : "now") + ");");
    }
    w.open("if (now == 0)");
    w.line("const ObjectId ids[] = {" + (n ? id_list(n) : std::string("0")) + "};");
    w.line("return fail(origin, " + id + ", ids);");
    w.close();
    emit_counter_hooks(w, c, "old");
    w.line(std::string(plan_.woken_only_by_own_check[c] ? "if (queue) " : "") + "enqueue(" + id +
           ", index, {" + id_list(n) + "}, old);");
    w.line("return Status::Ok;");
    w.close();
  }

  /// The domain, bounds, values and restrictions of an integer choice.
  void emit_integer_accessors(CodeWriter& w, ChoiceId c) const {
    const auto& choice = m_.choices[c];
    std::size_t n = choice.args.size();
    const std::string& name = choice.name;
    std::string id = choice_id(c);
    w.open("sculpt::spacegen::IntDomainRef Candidate::domain_" + name + "(" + id_params(n) + ")");
    w.line("return int_domain(" + id + ", " + index_expr(c, n) + ");");
    w.close();
    w.open("Interval Candidate::get_" + name + "(" + id_params(n) + ") const");
    w.line("return int_bounds(" + id + ", " + index_expr(c, n) + ");");
    w.close();
    w.open("std::vector<std::int64_t> Candidate::values_" + name + "(" + id_params(n) + ") const");
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
      w.open("Status Candidate::restrict_" + name + v.suffix + "(" + id_params_comma(n) + v.param +
             ", Origin origin)");
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
  }

  /// `bound_<c>` and `set_state_<c>` of a counter.
  void emit_counter_accessors(CodeWriter& w, ChoiceId c) const {
    const auto& choice = m_.choices[c];
    std::size_t n = choice.args.size();
    const std::string& name = choice.name;
    std::string id = choice_id(c);
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
  }

  /// Calls the counter updates of every counter term reading choice `c`; `old` is the
  /// summary before the change, ids are a0..an in stored order. An update runs right after the
  /// change, so an enum instance its term reads only through `is` conditions wakes it only
  /// when the change settles one of them (`now`, the domain after it, is in scope): otherwise
  /// the term, its conditions and what they let the bounds force are as they were.
  void emit_counter_hooks(CodeWriter& w, ChoiceId c, const std::string& old) const {
    std::size_t n = m_.choices[c].args.size();
    for (std::size_t i = 0; i < plan_.counters.size(); ++i) {
      if (rederived_on(i, c)) {
        w.line(check("rederive_" + cname(plan_.counter_ids[i]) + "()"));
        continue;
      }
      auto ps = plan_.counter_patterns[i];
      const auto& value = m_.choices[plan_.counter_ids[i]].counter->value;
      for (std::size_t k = 0; k < ps.size(); ++k) {
        if (ps[k].choice != c) continue;
        std::string fn =
            "count_" + cname(plan_.counter_ids[i]) + "_on_" + cname(c) + "_" + std::to_string(k);
        const bool is_value =
            value.choice && Pattern{value.choice->choice, value.choice->args} == ps[k];
        auto guard = [&](bool flipped) {
          return wake_guard(c, wake_of(*this, plan_.counters[i], ps[k], flipped, is_value));
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
};

}  // namespace

std::string emit_decision_vector(const Emission& e, std::uint64_t model_hash) {
  return DecisionVector(e).decision_vector_cpp(model_hash);
}

}  // namespace sculpt::spacegen
