#pragma once
// Mutants of a model, for checking that a test of the generated propagation bites: each changes
// one `require` (Model::constraints, value and alias `requires` included) of the model the
// generator receives, so that the generated space no longer matches its source. Constraints are
// numbered N from 0, their clauses K and a clause's conditions J from 1:
//   drop N              removes the constraint;
//   drop N.K            removes a clause of a constraint of several clauses;
//   drop N.K.J          removes a condition of a clause of several conditions (strengthens; not
//                       a FALSE constant, which changes nothing);
//   widen N.K.J VALUE   adds VALUE to an `is` condition's values (never all of them, which
//                       would drop the clause);
//   compare N.K.J OP    makes an integer comparison OP, which holds wherever it held (`<` to
//                       `<=` or `!=`, `>` to `>=` or `!=`, `==` to `<=` or `>=`);
//   shift N.K.J         moves the host bound of `<=` up by one, of `>=` down by one;
//   or N.K L.J          adds condition J of clause L to clause K, as one more disjunct (not a
//                       constant, which changes nothing or drops the clause, nor a condition
//                       clause K has or an earlier `or` of clause K adds).
// Every kind but `drop N.K.J` weakens the constraint. A clause holding TRUE has no mutant but
// dropping the TRUE.
#include <string>
#include <string_view>
#include <vector>

#include "spacedsl/model.h"

namespace sculpt::spacedsl {

/// The names of the mutants of `model`, in constraint order.
std::vector<std::string> list_mutants(const Model& model);

/// Applies the mutant `name` of list_mutants(model) (blank: none, surrounding blanks ignored);
/// false, leaving the model as it was, for a name that is not one of them.
bool apply_mutant(Model& model, std::string_view name);

}  // namespace sculpt::spacedsl
