// triggers.cpp: the checks that fire each trigger once its conditions are certain, and the
// lowerings they run.
#include <map>

#include "spacegen/emission.h"
#include "spacegen/emitters.h"
#include "spacegen/host_code.h"
#include "spacegen/line_directives.h"

namespace sculpt::spacegen {

namespace {

class Triggers : public Emission {
 public:
  explicit Triggers(const Emission& e) : Emission(e) {}

  std::string triggers_cpp() const {
    CodeWriter w;
    open_source(w,
                {"Triggers: lowerings fired once their condition is certain; the objects they add",
                 "are instantiated by instantiate_new_objects()."},
                {R"("space.h")"});
    for (std::size_t t = 0; t < plan_.triggers.size(); ++t) emit_trigger(w, t);
    w.open("void Candidate::run_trigger(std::uint32_t trigger, const ObjectId* ids)");
    w.line("(void)ids;");
    w.line("// Lowerings modify the backbone: this candidate gets its own copy first.");
    w.line("if (fun_.use_count() > 1) fun_ = std::make_shared<Backbone>(*fun_);");
    w.open("switch (trigger)");
    for (std::size_t t = 0; t < plan_.triggers.size(); ++t) {
      const Item& item = plan_.triggers[t];
      w.open("case " + std::to_string(t) + ":");
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      for (std::size_t v = 0; v < item.vars.size(); ++v) {
        scope.names[v] = "ids[" + std::to_string(v) + "]";
      }
      w.comment("trigger at " + loc_string(plan_.trigger_code[t].loc));
      std::map<std::string, std::string> vars;
      for (VarId v = 0; v < item.vars.size(); ++v) {
        vars[item.vars[v].name] = item_expr(item.vars[v].set, scope.names[v], "*fun_");
      }
      w.line("(void)(" +
             located(plan_.trigger_code[t].loc,
                     substitute(plan_.trigger_code[t].code, vars, "(*fun_)")) +
             ");");
      w.line("break;");
      w.close();
    }
    w.line("default: break;");
    w.close();
    w.close();
    w.line();
    close_source(w);
    return w.text();
  }

  void emit_trigger(CodeWriter& w, std::size_t t) const {
    const Item& item = plan_.triggers[t];
    const TriggerCode& trig = plan_.trigger_code[t];
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
};

}  // namespace

std::string emit_triggers(const Emission& e) { return Triggers(e).triggers_cpp(); }

}  // namespace sculpt::spacegen
