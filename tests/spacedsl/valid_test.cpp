// The valid corpus: every construct of the language, each file loaded and its model checked.
#include <gtest/gtest.h>

#include "spacedsl/frontend.h"
#include "tests/spacedsl/space_test_util.h"

namespace sculpt::spacedsl {
namespace {

using testing::bits;
using testing::choice;
using testing::choice_id;
using testing::set_id;

Model load(const std::string& name) {
  Diagnostics diags;
  std::optional<Model> model = load_space(testing::data_dir() / "valid" / name, diags);
  EXPECT_TRUE(model.has_value()) << testing::printed(diags);
  EXPECT_FALSE(diags.has_errors()) << testing::printed(diags);
  return model ? std::move(*model) : Model{};
}

TEST(SpacedslValid, EveryFileLoads) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::data_dir() / "valid")) {
    if (entry.path().extension() != ".space") continue;
    SCOPED_TRACE(entry.path().string());
    Diagnostics diags;
    EXPECT_TRUE(load_space(entry.path(), diags).has_value()) << testing::printed(diags);
    ++count;
  }
  EXPECT_GE(count, 16);
}

TEST(SpacedslValid, Listing1SetsInheritFields) {
  Model m = load("listing1_sets.space");
  ASSERT_EQ(m.sets.size(), 4u);
  const Set& inst = m.sets[set_id(m, "Instructions")];
  EXPECT_EQ(inst.doc, "Every instruction of the kernel.");
  EXPECT_EQ(inst.type, "const Instruction*");
  EXPECT_EQ(inst.capacity, "$fun.max_instructions()");
  EXPECT_FALSE(inst.superset.has_value());
  const Set& mem = m.sets[set_id(m, "MemAccesses")];
  EXPECT_EQ(mem.superset, set_id(m, "Instructions"));
  EXPECT_EQ(mem.type, "const MemAccess*");              // its own
  EXPECT_EQ(mem.id_type, "InstId");                     // inherited
  EXPECT_EQ(mem.item_getter, "$fun.instruction($id)");  // inherited
  EXPECT_EQ(mem.new_objs, "$new.instructions");         // inherited
  EXPECT_EQ(mem.iterator, "$fun.mem_accesses()");       // never inherited
  const Set& regions = m.sets[set_id(m, "AccessedRegions")];
  ASSERT_TRUE(regions.parameter.has_value());
  EXPECT_EQ(regions.parameter->name, "inst");
  EXPECT_EQ(regions.parameter->set, set_id(m, "MemAccesses"));
  ASSERT_TRUE(regions.reverse.has_value());
  EXPECT_EQ(regions.reverse->var, "region");
  EXPECT_EQ(regions.reverse->set, set_id(m, "MemRegions"));
  EXPECT_EQ(regions.reverse->code, "$region->accesses()");
  EXPECT_EQ(regions.type, "const MemRegion*");
  EXPECT_EQ(regions.loc.line, 29);
  EXPECT_EQ(regions.loc.column, 5);
}

TEST(SpacedslValid, AllIdsIsNotInherited) {
  Model m = load("all_ids.space");
  EXPECT_EQ(m.sets[set_id(m, "Temporaries")].all_ids, "$fun.all_temporary_ids()");
  EXPECT_EQ(m.sets[set_id(m, "TemporaryLoads")].all_ids, "");
  EXPECT_EQ(m.sets[set_id(m, "Statements")].all_ids, "");
}

TEST(SpacedslValid, Listing2CacheValuesInOrder) {
  Model m = load("listing2_cache.space");
  ASSERT_EQ(m.files.size(), 2u);
  EXPECT_NE(m.files[1].find("listing1_sets.space"), std::string::npos);
  const Choice& cache = choice(m, "cache");
  EXPECT_EQ(cache.kind, ChoiceKind::Enum);
  ASSERT_EQ(cache.values.size(), 4u);
  EXPECT_EQ(cache.values[0].name, "L1");
  EXPECT_EQ(cache.values[3].name, "NONE");
  ASSERT_EQ(cache.args.size(), 1u);
  EXPECT_EQ(cache.args[0].set, set_id(m, "MemAccesses"));
  EXPECT_TRUE(cache.antisymmetric_map.empty());
}

TEST(SpacedslValid, Listing3AntisymmetricMapIsCompleted) {
  Model m = load("listing3_order.space");
  const Choice& order = choice(m, "order");
  EXPECT_EQ(order.antisymmetric_map, (std::vector<std::size_t>{1, 0}));
}

TEST(SpacedslValid, Listing4TransitivityIsOneClause) {
  Model m = load("listing4_transitivity.space");
  ASSERT_EQ(m.constraints.size(), 1u);
  const Constraint& c = m.constraints[0];
  ASSERT_EQ(c.vars.size(), 3u);
  EXPECT_EQ(c.vars[2].name, "c");
  ASSERT_EQ(c.clauses.size(), 1u);
  const auto& conds = c.clauses[0].conditions;
  ASSERT_EQ(conds.size(), 3u);
  const Choice& order = choice(m, "order");
  EXPECT_EQ(conds[0].kind, Condition::Kind::Is);
  EXPECT_EQ(conds[0].values, bits(order, {"AFTER"}));
  EXPECT_EQ(conds[0].lhs.args, (std::vector<VarId>{0, 2}));
  EXPECT_EQ(conds[1].values, bits(order, {"BEFORE"}));  // `is not AFTER`
  EXPECT_EQ(conds[2].lhs.args, (std::vector<VarId>{1, 2}));
  EXPECT_EQ(conds[2].loc.line, 9);
  EXPECT_EQ(conds[2].loc.column, 10);
}

TEST(SpacedslValid, Listing5CounterAndBound) {
  Model m = load("listing5_local_mem.space");
  const Choice& local = choice(m, "local_mem");
  EXPECT_EQ(local.kind, ChoiceKind::Counter);
  ASSERT_TRUE(local.counter.has_value());
  const Counter& counter = *local.counter;
  EXPECT_EQ(counter.op, CounterOp::Sum);
  EXPECT_FALSE(counter.half);
  ASSERT_EQ(counter.forall.size(), 1u);
  EXPECT_EQ(counter.forall[0].name, "mem_block");
  EXPECT_FALSE(counter.value.choice.has_value());
  EXPECT_EQ(counter.value.code, "$mem_block.size()");
  ASSERT_EQ(counter.when.size(), 1u);
  EXPECT_EQ(counter.when[0].lhs.choice, choice_id(m, "mem_space"));
  EXPECT_EQ(counter.when[0].lhs.args, (std::vector<VarId>{0}));  // no args: forall var is 0
  ASSERT_EQ(m.constraints.size(), 1u);
  const Condition& bound = m.constraints[0].clauses[0].conditions[0];
  EXPECT_EQ(bound.kind, Condition::Kind::CompareCode);
  EXPECT_EQ(bound.op, CompareOp::Lt);
  EXPECT_EQ(bound.code, "gpu.local_mem_size");
  EXPECT_TRUE(m.constraints[0].vars.empty());
}

TEST(SpacedslValid, Listing6QuotientDeclaresBooleanChoice) {
  Model m = load("listing6_thread_dims.space");
  ASSERT_EQ(m.quotients.size(), 1u);
  const Quotient& q = m.quotients[0];
  const Set& threads = m.sets[q.set];
  EXPECT_EQ(threads.name, "ThreadDims");
  EXPECT_EQ(threads.superset, set_id(m, "Dimensions"));
  EXPECT_EQ(threads.quotient, 0u);
  EXPECT_EQ(threads.type, "const Dimension*");  // inherited from Dimensions
  EXPECT_EQ(threads.add_to_set, "$fun.add_thread_dim($item)");
  const Choice& repr = m.choices[q.repr_choice];
  EXPECT_EQ(repr.name, "is_thread_dim");
  EXPECT_EQ(repr.quotient, 0u);
  ASSERT_EQ(repr.values.size(), 2u);
  EXPECT_EQ(repr.values[0].name, "FALSE");
  EXPECT_EQ(repr.values[1].name, "TRUE");
  ASSERT_EQ(repr.args.size(), 1u);
  EXPECT_EQ(repr.args[0].set, set_id(m, "Dimensions"));
  ASSERT_EQ(q.vars.size(), 1u);
  ASSERT_EQ(q.condition.size(), 1u);
  EXPECT_EQ(q.condition[0].lhs.choice, choice_id(m, "dim_kind"));
  EXPECT_EQ(q.equivalence, choice_id(m, "fused"));
  EXPECT_EQ(q.equivalence_values, bits(choice(m, "fused"), {"TRUE"}));
  EXPECT_TRUE(choice(m, "fused").symmetric);
  const Counter& threads_counter = *choice(m, "num_threads").counter;
  ASSERT_TRUE(threads_counter.value.choice.has_value());
  EXPECT_EQ(threads_counter.value.choice->choice, choice_id(m, "size"));
  EXPECT_EQ(threads_counter.when[0].lhs.choice, q.repr_choice);
  EXPECT_EQ(threads_counter.when[0].values, 2u);  // TRUE is value 1
}

TEST(SpacedslValid, Listing7ParametricQuotient) {
  Model m = load("listing7_control_flow.space");
  const Choice& order = choice(m, "order");
  EXPECT_EQ(order.antisymmetric_map, (std::vector<std::size_t>{1, 0, 3, 2, 4}));
  const Quotient& q = m.quotients.at(0);
  ASSERT_EQ(q.vars.size(), 2u);
  EXPECT_EQ(q.vars[0].name, "inst");
  EXPECT_EQ(q.vars[1].name, "dim");
  EXPECT_EQ(q.condition[0].lhs.args, (std::vector<VarId>{1, 0}));
  EXPECT_EQ(q.equivalence_values, bits(order, {"MERGED"}));
  const Set& iter = m.sets[q.set];
  ASSERT_TRUE(iter.parameter.has_value());
  EXPECT_EQ(iter.parameter->set, set_id(m, "Insts"));
  EXPECT_EQ(m.choices[q.repr_choice].args.size(), 2u);
}

TEST(SpacedslValid, Listing10ParametricSetInQuantifier) {
  Model m = load("listing10_tiling.space");
  const Set& tiling = m.sets[set_id(m, "TilingDims")];
  EXPECT_EQ(tiling.superset, set_id(m, "StaticDims"));
  EXPECT_EQ(tiling.id_type, "StmtId");  // inherited across two levels
  ASSERT_EQ(m.constraints.size(), 1u);
  const Constraint& c = m.constraints[0];
  EXPECT_EQ(c.doc, "A tile of a logical dimension is no larger than the logical dimension allows.");
  ASSERT_EQ(c.vars.size(), 2u);
  EXPECT_EQ(c.vars[1].set, set_id(m, "TilingDims"));
  EXPECT_EQ(c.vars[1].set_parameter, 0u);
  EXPECT_FALSE(c.vars[0].set_parameter.has_value());
}

TEST(SpacedslValid, Listing11And13) {
  Model m = load("listing11_memory.space");
  EXPECT_EQ(m.sets[set_id(m, "Insts")].disjoint, (std::vector<SetId>{set_id(m, "Dimensions")}));
  EXPECT_EQ(m.sets[set_id(m, "MemInsts")].superset, set_id(m, "Insts"));
  Model t = load("listing13_thread_mapping.space");
  EXPECT_EQ(choice(t, "thread_level").antisymmetric_map, (std::vector<std::size_t>{0, 2, 1, 3}));
  EXPECT_EQ(t.quotients.at(0).equivalence_values, bits(choice(t, "thread_level"), {"MAPPED"}));
}

TEST(SpacedslValid, SpecExamples) {
  Model m = load("spec_examples.space");
  EXPECT_EQ(summarize(m), "9 sets, 10 choices, 3 constraints, 2 counters, 1 triggers, 1 quotients");
  const Choice& cache = choice(m, "cache");
  EXPECT_EQ(cache.doc, "Cache directive of a memory access.");
  ASSERT_EQ(cache.aliases.size(), 1u);
  EXPECT_EQ(cache.aliases[0].name, "CACHED");
  EXPECT_EQ(cache.aliases[0].values, bits(cache, {"L1", "L2", "READ_ONLY"}));
  // `requires` of READ_ONLY, lowered after the two `require`s.
  const Constraint& lowered = m.constraints[2];
  ASSERT_EQ(lowered.vars.size(), 1u);
  EXPECT_EQ(lowered.vars[0].name, "inst");
  ASSERT_EQ(lowered.clauses.size(), 1u);
  const auto& conds = lowered.clauses[0].conditions;
  ASSERT_EQ(conds.size(), 2u);
  EXPECT_EQ(conds[0].kind, Condition::Kind::Is);
  EXPECT_EQ(conds[0].lhs.choice, choice_id(m, "cache"));
  EXPECT_EQ(conds[0].values, bits(cache, {"L1", "L2", "NONE"}));
  EXPECT_EQ(conds[1].kind, Condition::Kind::Code);
  EXPECT_EQ(conds[1].code, "$inst->is_read_only()");
  const Counter& threads = *choice(m, "num_threads").counter;
  EXPECT_TRUE(threads.half);
  EXPECT_EQ(threads.op, CounterOp::Mul);
  ASSERT_EQ(m.triggers.size(), 1u);
  const Trigger& trigger = m.triggers[0];
  EXPECT_EQ(trigger.code, "lower::merge_dims($fun, $lhs, $rhs)");
  ASSERT_EQ(trigger.conditions.size(), 2u);
  EXPECT_EQ(trigger.conditions[0].values, bits(choice(m, "order"), {"MERGED"}));
  EXPECT_EQ(trigger.conditions[1].kind, Condition::Kind::Code);
  const Set& tiles = m.sets[set_id(m, "TileDims")];
  EXPECT_EQ(tiles.reverse->code, "$dim->logical_dims()");
}

TEST(SpacedslValid, RequiresAreLoweredPerValueAndAlias) {
  Model m = load("requires_forall.space");
  const Choice& kind = choice(m, "dim_kind");
  ASSERT_EQ(m.constraints.size(), 3u);
  // VECTOR: forall $other ...
  const Constraint& inner = m.constraints[0];
  EXPECT_EQ(inner.doc, "requires of dim_kind = VECTOR");
  ASSERT_EQ(inner.vars.size(), 2u);
  EXPECT_EQ(inner.vars[0].name, "dim");
  EXPECT_EQ(inner.vars[1].name, "other");
  const auto& c0 = inner.clauses.at(0).conditions;
  ASSERT_EQ(c0.size(), 3u);
  EXPECT_EQ(c0[0].values, bits(kind, {"LOOP", "THREAD", "BLOCK"}));
  EXPECT_EQ(c0[1].lhs.choice, choice_id(m, "order"));
  EXPECT_EQ(c0[1].values, bits(choice(m, "order"), {"BEFORE", "AFTER", "INNER"}));
  EXPECT_EQ(c0[2].lhs.args, (std::vector<VarId>{1}));
  // VECTOR: the host-code requires is a second constraint.
  EXPECT_EQ(m.constraints[1].vars.size(), 1u);
  EXPECT_EQ(m.constraints[1].clauses[0].conditions[1].code, "$dim->is_vectorizable()");
  // The alias applies to each of its values: `dim_kind is not (THREAD | BLOCK) || ...`.
  const auto& c2 = m.constraints[2].clauses.at(0).conditions;
  ASSERT_EQ(c2.size(), 3u);
  EXPECT_EQ(c2[0].values, bits(kind, {"LOOP", "VECTOR"}));
  EXPECT_EQ(c2[2].values, bits(kind, {"BLOCK"}));
  EXPECT_EQ(kind.values[1].doc, "Vector dimensions are innermost.");
}

TEST(SpacedslValid, ConditionKinds) {
  Model m = load("conditions.space");
  ASSERT_EQ(m.constraints.size(), 2u);
  const auto& enums = m.constraints[0].clauses;
  ASSERT_EQ(enums.size(), 2u);
  EXPECT_EQ(enums[0].conditions[0].kind, Condition::Kind::ChoiceEqual);
  EXPECT_EQ(enums[0].conditions[0].rhs.choice, choice_id(m, "is_vectorized"));
  EXPECT_EQ(enums[1].conditions[0].kind, Condition::Kind::ChoiceNotEqual);
  EXPECT_EQ(enums[1].conditions[1].kind, Condition::Kind::Constant);
  EXPECT_TRUE(enums[1].conditions[1].constant);
  const auto& ints = m.constraints[1].clauses;
  ASSERT_EQ(ints.size(), 3u);
  EXPECT_EQ(ints[0].conditions[0].kind, Condition::Kind::ChoiceEqual);
  EXPECT_EQ(ints[0].conditions[1].kind, Condition::Kind::CompareCode);
  EXPECT_EQ(ints[0].conditions[1].op, CompareOp::Gt);
  EXPECT_EQ(ints[1].conditions[0].kind, Condition::Kind::CompareChoices);
  EXPECT_EQ(ints[1].conditions[0].op, CompareOp::Le);
  EXPECT_EQ(ints[1].conditions[1].kind, Condition::Kind::Code);
  EXPECT_EQ(ints[1].conditions[2].kind, Condition::Kind::Constant);
  EXPECT_FALSE(ints[1].conditions[2].constant);
  EXPECT_EQ(ints[2].conditions[0].kind, Condition::Kind::CompareChoices);
  EXPECT_EQ(ints[2].conditions[0].op, CompareOp::Ne);
  EXPECT_EQ(ints[2].conditions[2].op, CompareOp::Lt);
  EXPECT_EQ(ints[2].conditions[3].op, CompareOp::Ne);
  EXPECT_TRUE(choice(m, "total_size").counter->when.empty());
}

TEST(SpacedslValid, TriggersAndCounters) {
  Model m = load("trigger_counter.space");
  const Counter& threads = *choice(m, "threads").counter;
  ASSERT_EQ(threads.when.size(), 2u);
  EXPECT_EQ(threads.when[1].kind, Condition::Kind::Code);
  const Choice& nested = choice(m, "nested_threads");
  ASSERT_EQ(nested.args.size(), 1u);
  const Counter& counter = *nested.counter;
  EXPECT_EQ(counter.value.choice->choice, choice_id(m, "threads"));
  EXPECT_EQ(counter.when[0].lhs.args, (std::vector<VarId>{0}));  // $outer
  EXPECT_EQ(counter.when[1].lhs.args, (std::vector<VarId>{1}));  // $inner
  ASSERT_EQ(m.triggers.size(), 2u);
  EXPECT_EQ(m.triggers[0].doc, "Lowers a pair of thread dimensions.");
  EXPECT_EQ(m.triggers[0].conditions.size(), 3u);
  EXPECT_TRUE(m.triggers[1].vars.empty());
  EXPECT_EQ(m.triggers[1].conditions[0].kind, Condition::Kind::CompareCode);
}

TEST(SpacedslValid, DiamondIncludesReadEachFileOnce) {
  Model m = load("include_diamond.space");
  EXPECT_EQ(m.files.size(), 4u);
  EXPECT_EQ(m.sets.size(), 5u);
  EXPECT_EQ(m.choices.size(), 2u);
}

TEST(SpacedslValid, FromStringResolvesIncludesInBaseDir) {
  Diagnostics diags;
  auto m = load_space_from_string("include \"dims.space\"\nchoice integer n(): \"$fun.n()\" end\n",
                                  "inline.space", testing::data_dir() / "valid", diags);
  ASSERT_TRUE(m.has_value()) << testing::printed(diags);
  EXPECT_EQ(m->files.front(), "inline.space");
  EXPECT_EQ(m->sets.size(), 5u);
  EXPECT_TRUE(m->choices[0].args.empty());
  EXPECT_EQ(m->choices[0].universe, "$fun.n()");
}

TEST(SpacedslValid, HostCodeEscapes) {
  Diagnostics diags;
  auto m = load_space_from_string(
      "include \"dims.space\"\nrequire forall $d in Dimensions: \"f(\\\"a\\\\n\\\", $d)\"\n",
      "escapes.space", testing::data_dir() / "valid", diags);
  ASSERT_TRUE(m.has_value()) << testing::printed(diags);
  EXPECT_EQ(m->constraints[0].clauses[0].conditions[0].code, "f(\"a\\n\", $d)");
}

}  // namespace
}  // namespace sculpt::spacedsl
