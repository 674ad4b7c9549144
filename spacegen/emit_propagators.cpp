// propagators_<stem>.cpp: per constraint written in the .space file <stem>, its propagators
// on every tuple, on the tuples of a new object and on a change of each pattern it reads.
#include "spacegen/emission.h"
#include "spacegen/emitters.h"

namespace sculpt::spacegen {

namespace {

class Propagators : public Emission {
 public:
  explicit Propagators(const Emission& e) : Emission(e) {}

  std::string propagators_cpp(const std::string& space_file) const {
    CodeWriter w;
    open_source(
        w,
        {"Propagators of the constraints of " + space_file + ": one function per constraint",
         "and choice it reads, woken when that choice's instance changes."},
        {R"("space.h")", R"("spacegen/runtime/triangle.h")"});
    for (std::size_t i = 0; i < plan_.constraints.size(); ++i) {
      if (m_.constraints[i].loc.file == space_file) emit_constraint(w, i);
    }
    close_source(w);
    return w.text();
  }

  void constraint_comment(CodeWriter& w, std::size_t i) const {
    const auto& c = m_.constraints[i];
    if (!c.doc.empty()) w.comment(c.doc);
    w.comment("require at " + loc_string(c.loc));
  }

  void emit_constraint(CodeWriter& w, std::size_t i) const {
    const Item& item = plan_.constraints[i];
    auto origin = [&](std::size_t k) { return constraint_origin(i, k); };
    const std::optional<SupportTable>& table = plan_.supports[i];
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
    w.open("Status Candidate::" + propagator(i) + "_all()");
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
      w.open("Status Candidate::" + propagator(i) + "_new_" + item.vars[v].name + "(ObjectId id)");
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      std::vector<bool> needs(item.vars.size(), false);
      needs[v] = true;
      scope.names[v] = "id";
      emit_checks(scope, needs, table ? all : plan_.posted_clauses[i][v], std::nullopt);
      w.line("return Status::Ok;");
      w.close();
      w.line();
    }
    auto ps = patterns_of(item);
    for (std::size_t k : woken_patterns(i)) {
      constraint_comment(w, i);
      w.comment("Woken when " + cname(ps[k].choice) + " changes.");
      w.open("Status Candidate::" + propagator(i) + "_on_" + cname(ps[k].choice) + "_" +
             std::to_string(k) + "(const ObjectId* ids)");
      Scope scope{&item, std::vector<std::string>(item.vars.size())};
      std::vector<bool> needs = bind_pattern(w, scope, ps[k]);
      if (std::optional<TriangleShape> shape = plan_.triangles[i][k]) {
        emit_triangle(w, i, k, *shape, scope);
        w.close();
        w.line();
        continue;
      }
      const std::vector<std::size_t> reading = plan_.woken_clauses[i][k];
      emit_checks(scope, needs, reading, k);
      w.line("return Status::Ok;");
      w.close();
      w.line();
    }
  }
};

}  // namespace

std::string emit_propagators(const Emission& e, const std::string& space_file) {
  return Propagators(e).propagators_cpp(space_file);
}

}  // namespace sculpt::spacegen
