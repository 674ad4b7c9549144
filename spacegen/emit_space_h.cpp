// space.h: the class Candidate of the space, with its typed accessors and the declarations
// of everything the other generated files define.
#include "spacegen/emission.h"
#include "spacegen/emitters.h"
#include "spacegen/host_code.h"
#include "spacegen/line_directives.h"

namespace sculpt::spacegen {

namespace {

class SpaceHeader : public Emission {
 public:
  explicit SpaceHeader(const Emission& e) : Emission(e) {}

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
    w.line("#include \"spacegen/runtime/space_candidate.h\"");
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
    // Backbone, kAction, backbone(), kNoChoice, constant() and fun_ come from the base.
    w.open("class Candidate final : public sculpt::spacegen::SpaceCandidate<" + o_.backbone_type +
           ">");
    w.label("public:");
    w.line(
        "/// The layout of the decision vectors of `fun`: compute once, share between candidates.");
    w.line(
        "static std::shared_ptr<const sculpt::spacegen::Layout> make_layout(const Backbone& fun);");
    w.line("static const sculpt::spacegen::SpaceTable& space_table();");
    w.line(
        "Candidate(std::shared_ptr<Backbone> fun, std::shared_ptr<const sculpt::spacegen::Layout> "
        "layout);");
    w.line(
        "/// Posts every constraint and counter, then propagates; call once after construction.");
    w.line("[[nodiscard]] Status initialize();");
    w.line("std::unique_ptr<sculpt::spacegen::CandidateBase> clone() const override;");
    w.line("const sculpt::spacegen::SpaceTable& table() const override { return space_table(); }");
    w.line();
    emit_public_accessors(w);
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
    emit_set_glue(w);
    emit_filter_lookups(w);
    w.line("Status post_all();");
    emit_private_accessors(w);
    emit_function_decls(w);
    emit_quotient_decls(w);
    w.close(";");
    w.line();
    w.line("}  // namespace " + o_.ns);
    return w.text();
  }

  /// The typed accessors of every choice (public).
  void emit_public_accessors(CodeWriter& w) const {
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
  }

  /// Host glue. A set's item and id getters are defined here, so that every file inlines them.
  void emit_set_glue(CodeWriter& w) const {
    // Host glue. A set's item and id getters are defined here, so that every file inlines them.
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      const auto& set = m_.sets[s];
      w.comment("Set " + set.name + (set.doc.empty() ? "" : ": " + set.doc) + " (" +
                loc_string(set.loc) + ").");
      w.open("[[gnu::always_inline]] static " + set.type + " item_" + set.name +
             "(const Backbone& fun, ObjectId id)");
      // `$id` has the set's id type (strong id types are built from the dense integer).
      std::string id = set.id_type.empty() ? "id" : "static_cast<" + set.id_type + ">(id)";
      w.line("return " + located(set.loc, substitute(set.item_getter, {{"id", id}}, "fun")) + ";");
      w.close();
      w.open("static ObjectId id_" + set.name + "(const Backbone& fun, " + set.type + " item)");
      w.line("(void)fun;");
      w.line("return sculpt::spacegen::to_object_id(" +
             located(set.loc, substitute(set.id_getter, {{"item", "item"}}, "fun")) + ");");
      w.close();
      if (is_parametric(s)) {
        w.line("bool member_" + set.name + "(ObjectId parameter, ObjectId id) const;");
      } else if (!is_quotient(s)) {
        w.line("template <typename F>");
        w.line("static void for_each_" + set.name + "(const Backbone& fun, F&& f);");
      }
    }
  }

  /// A filter is read in the propagators' loops: the table lookup is inline, the host code
  /// (once per object tuple) is not.
  void emit_filter_lookups(CodeWriter& w) const {
    // A filter is read in the propagators' loops: the table lookup is inline, the host code
    // (once per object tuple) is not.
    for (std::size_t k = 0; k < plan_.filters.size(); ++k) {
      const std::string n = std::to_string(k);
      const std::size_t arity = plan_.filters[k].vars.size();
      w.open("bool filter_" + n + "(" + id_params(arity) + ") const");
      w.line("const std::uint8_t known = layout_->static_filters[" + n + "][" + filter_entry(k) +
             "].load(std::memory_order_relaxed);");
      w.line("return known != 0 ? known == 2 : compute_filter_" + n + "(" + id_list(arity) + ");");
      w.close();
      w.line("bool compute_filter_" + n + "(" + id_params(arity) + ") const;");
    }
  }

  /// Indices, flips and the private accessors of every choice.
  void emit_private_accessors(CodeWriter& w) const {
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
  }

  /// The value maps, propagators, counter updates and trigger checks the other files define.
  void emit_function_decls(CodeWriter& w) const {
    for (const auto& [from, to] : plan_.value_maps) {
      w.line("static ValueSet map_" + cname(from) + "_to_" + cname(to) + "(ValueSet values);");
    }
    for (std::size_t i = 0; i < plan_.constraints.size(); ++i) {
      w.line("Status " + propagator(i) + "_all();");
      for (VarId v : posted_vars(i)) {
        w.line("Status " + propagator(i) + "_new_" + plan_.constraints[i].vars[v].name +
               "(ObjectId id);");
      }
      auto ps = patterns_of(plan_.constraints[i]);
      for (std::size_t k : woken_patterns(i)) {
        w.line("Status " + propagator(i) + "_on_" + cname(ps[k].choice) + "_" + std::to_string(k) +
               "(const ObjectId* ids);");
      }
    }
    for (std::size_t i = 0; i < plan_.counters.size(); ++i) {
      std::string name = cname(plan_.counter_ids[i]);
      auto ps = plan_.counter_patterns[i];
      for (std::size_t k = 0; k < ps.size(); ++k) {
        if (rederived_on(i, ps[k].choice)) continue;
        w.line("Status count_" + name + "_on_" + cname(ps[k].choice) + "_" + std::to_string(k) +
               "(const ObjectId* ids, " + summary_type(ps[k].choice) + " old);");
      }
      if (has_rederive(i)) w.line("Status rederive_" + name + "();");
    }
    for (std::size_t t = 0; t < plan_.triggers.size(); ++t) {
      w.line("void check_trigger_" + std::to_string(t) + "_all();");
      for (std::size_t v = 0; v < plan_.triggers[t].vars.size(); ++v) {
        w.line("void check_trigger_" + std::to_string(t) + "_new_" +
               plan_.triggers[t].vars[v].name + "(ObjectId id);");
      }
      auto ps = patterns_of(plan_.triggers[t]);
      for (std::size_t k = 0; k < ps.size(); ++k) {
        w.line("void check_trigger_" + std::to_string(t) + "_on_" + cname(ps[k].choice) + "_" +
               std::to_string(k) + "(const ObjectId* ids);");
      }
    }
  }

  /// The functions of each quotient.
  void emit_quotient_decls(CodeWriter& w) const {
    if (hoists_peers()) {
      w.line("/// Members that may be equivalent to an element (most elements have few).");
      w.line("using Peers = boost::container::small_vector<ObjectId, 64>;");
    }
    for (std::size_t q = 0; q < plan_.quotients.size(); ++q) {
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

  /// The entry of the ids a0 (, a1) of a candidate's objects in filter k's table (see
  /// FilterTable).
  std::string filter_entry(std::size_t k) const {
    const StaticFilter& f = plan_.filters[k];
    if (f.vars.empty()) return "0";
    SetId s0 = membership_set(f.item->vars[f.vars[0]].set);
    if (f.vars.size() == 1) return slot_expr(s0, "a0");
    SetId s1 = membership_set(f.item->vars[f.vars[1]].set);
    return "std::size_t{" + slot_expr(s0, "a0") + "} * layout_->set_slots[" + set_id(s1) + "] + " +
           slot_expr(s1, "a1");
  }
};

}  // namespace

std::string emit_space_h(const Emission& e) { return SpaceHeader(e).space_h(); }

}  // namespace sculpt::spacegen
