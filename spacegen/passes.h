#pragma once
// The analysis passes `build_plan` runs, in this order; each fills its part of the plan from
// the model and the parts before it.
#include "spacegen/model_queries.h"
#include "spacegen/plan.h"

namespace sculpt::spacegen {

/// Items after quotient desugaring, trigger code, counter order (items.cpp).
void desugar_items(const ModelQueries& q, Plan& plan);
/// Static filters, origins, counter patterns and bounds, value maps, peers (plan.cpp).
void plan_static_filters(const ModelQueries& q, Plan& plan);
void plan_origins(const ModelQueries& q, Plan& plan);
void plan_constraint_names(const ModelQueries& q, Plan& plan);
void plan_counters(const ModelQueries& q, Plan& plan);
void plan_value_maps(const ModelQueries& q, Plan& plan);
/// Support tables and their wake classes (support_tables.cpp).
void plan_support_tables(const ModelQueries& q, Plan& plan);
/// Settled clauses, woken patterns and clauses, what is posted on new objects, quiet
/// representatives (wakeups.cpp).
void plan_wakeups(const ModelQueries& q, Plan& plan);
/// Triangle shapes and the choices whose stores keep triangle rows (triangles.cpp).
void plan_triangles(const ModelQueries& q, Plan& plan);

/// Whether `table` narrows nothing while every instance over $v is full (support_tables.cpp).
bool inert_at_universe(const ModelQueries& q, const SupportTable& table, spacedsl::VarId v);

}  // namespace sculpt::spacegen
