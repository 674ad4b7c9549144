// The invalid corpus: each file and the exact diagnostics (line, column, message) it gives.
#include <gtest/gtest.h>

#include <vector>

#include "spacedsl/frontend.h"
#include "tests/spacedsl/invalid_corpus.h"
#include "tests/spacedsl/space_test_util.h"

namespace sculpt::spacedsl {
namespace {

using testing::case_name;
using testing::expect_every_file_listed;
using testing::expect_exactly;
using testing::InvalidCase;

// clang-format off
const std::vector<InvalidCase> kCases = {
  InvalidCase{"all_ids_on_parametric_set.space", {{6, 3, "'all_ids' is for plain sets, not parametric ones"}}},
  InvalidCase{"all_ids_on_quotient.space", {{11, 3, "'all_ids' is for plain sets, not quotient ones"}}},
  InvalidCase{"alias_unknown_value.space", {{6, 29, "'WARP' is not a value of choice 'kind'"}}},
  InvalidCase{"antisymmetric_mapped_twice.space", {{9, 5, "value 'BEFORE' is mapped twice"}}},
  InvalidCase{"antisymmetric_not_involution.space", {{9, 5, "mapping 'AFTER -> INNER' breaks the involution: 'AFTER' already maps to 'BEFORE'"}}},
  InvalidCase{"antisymmetric_one_argument.space", {{6, 3, "an antisymmetric choice takes exactly two arguments from the same set"}}},
  InvalidCase{"argument_set_mismatch.space", {{7, 8, "argument 1 of 'kind' must be in 'Dimensions', '$s' is in 'Statements'"}}},
  InvalidCase{"arity_mismatch.space", {{8, 3, "choice 'order' takes 2 arguments, not 1"}}},
  InvalidCase{"counter_cycle.space", {{9, 9, "counter 'b' depends on itself through its value"}}},
  InvalidCase{"counter_enum_value.space", {{8, 9, "a counter counts host code, an integer choice or a counter; 'kind' is an enum choice"}}},
  InvalidCase{"counter_when_comparison.space", {{7, 7, "a counter's 'when' takes 'choice is VALUES' conditions and host-code filters only"}}},
  InvalidCase{"disjoint_from_superset.space", {{4, 20, "'Loops' cannot be disjoint from 'Statements': one is a subset of the other"}}},
  InvalidCase{"duplicate_choice.space", {{6, 16, "choice 'kind' is declared twice (first at 3:13)"}}},
  InvalidCase{"duplicate_field.space", {{5, 3, "field 'iterator' is set twice"}}},
  InvalidCase{"duplicate_set.space", {{10, 5, "set 'Regions' is declared twice (first at 2:5)"}, {10, 5, "set 'Regions' lacks required fields: id_type, iterator, item_getter, id_getter, capacity"}}},
  InvalidCase{"duplicate_value.space", {{6, 9, "value 'A' is declared twice in 'kind'"}, {7, 9, "alias 'B' has the name of a value or alias of 'kind'"}}},
  InvalidCase{"enum_compared_with_code.space", {{7, 12, "'==' compares integers, 'kind' is an enum choice (use 'is')"}}},
  InvalidCase{"enum_equal_different_domains.space", {{12, 9, "'==' between choices of different domains: 'a' and 'b'"}}},
  InvalidCase{"enum_ordering_comparison.space", {{10, 9, "'<=' between enum choices; only '==' and '!=' are allowed"}}},
  InvalidCase{"enum_without_value.space", {{3, 13, "choice 'nothing' has no value"}}},
  InvalidCase{"host_field_bad_variable.space", {{4, 26, "unknown variable '$id' in host code"}}},
  InvalidCase{"integer_equal_enum.space", {{8, 12, "'==' between choices of different domains: 'size' and 'kind'"}}},
  InvalidCase{"is_on_integer.space", {{5, 3, "'is' needs an enum choice, 'size' is an integer choice"}}},
  InvalidCase{"missing_from_superset.space", {{3, 5, "set 'Loops' lacks required fields: from_superset"}}},
  InvalidCase{"missing_include.space", {{2, 1, "cannot open 'no_such_file.space': no such file"}}},
  InvalidCase{"missing_set_fields.space", {{2, 5, "set 'Regions' lacks required fields: id_type, item_getter, id_getter, capacity"}}},
  InvalidCase{"multiple_errors.space", {{8, 15, "'WARP' is not a value of choice 'kind'"}, {10, 3, "unknown choice 'knd'"}, {11, 22, "unknown set 'Dimension'"}, {13, 5, "set 'Broken' lacks required fields: id_type, iterator, item_getter, id_getter, capacity"}}},
  InvalidCase{"parameter_on_plain_set.space", {{4, 27, "set 'Dimensions' has no parameter"}}},
  InvalidCase{"parametric_set_without_parameter.space", {{7, 22, "set 'Tiles' takes a parameter: write 'Tiles($p)'"}}},
  InvalidCase{"quotient_bad_equivalence.space", {{8, 36, "the equivalence of a quotient must be an enum choice over two objects of 'Dimensions' or of one of its supersets"}}},
  InvalidCase{"quotient_unknown_value.space", {{13, 45, "'MERGED' is not a value of choice 'fused'"}}},
  InvalidCase{"quotient_uses_itself.space", {{9, 27, "the condition of quotient 'Fused' cannot use 'is_repr', the choice it defines"}}},
  InvalidCase{"requires_out_of_scope.space", {{5, 15, "unknown variable '$other' in host code"}, {8, 34, "unknown variable '$x'"}}},
  InvalidCase{"reserved_variable.space", {{3, 16, "'$fun' is reserved and cannot be bound"}}},
  InvalidCase{"reverse_on_plain_set.space", {{6, 3, "'reverse' is only for parametric sets"}}},
  InvalidCase{"superset_cycle.space", {{2, 5, "set 'A' is its own superset through 'subsetof'"}}},
  InvalidCase{"symmetric_different_sets.space", {{4, 3, "a symmetric choice takes exactly two arguments from the same set"}}},
  InvalidCase{"syntax_bad_item.space", {{2, 1, "expected an item ('include', 'set', 'quotient', 'choice', 'require' or 'trigger') but found 'sett'"}}},
  InvalidCase{"syntax_bad_mapping.space", {{8, 1, "expected a name but found 'end'"}}},
  InvalidCase{"syntax_counter_op.space", {{5, 5, "expected 'sum', 'mul' or 'max' but found 'add'"}}},
  InvalidCase{"syntax_dangling_is.space", {{4, 15, "expected a value name but found '||'"}}},
  InvalidCase{"syntax_dangling_or.space", {{4, 15, "expected a condition but found end of file"}}},
  InvalidCase{"syntax_missing_colon.space", {{3, 3, "expected ':' but found 'type'"}}},
  InvalidCase{"syntax_missing_end.space", {{4, 11, "expected 'value', 'alias', 'antisymmetric', 'symmetric' or 'end' but found end of file"}}},
  InvalidCase{"syntax_reserved_name.space", {{3, 13, "expected a name but found 'value'"}}},
  InvalidCase{"syntax_unterminated_string.space", {{3, 56, "expected '\"' closing the string on the same line but found end of line"}}},
  InvalidCase{"too_many_values.space", {{68, 9, "choice 'big' has more than 64 values"}}},
  InvalidCase{"unknown_choice.space", {{4, 3, "unknown choice 'dim_kind'"}}},
  InvalidCase{"unknown_set.space", {{3, 22, "unknown set 'Dimension'"}}},
  InvalidCase{"unknown_set_field.space", {{6, 3, "unknown set field 'getter' (fields: type, id_type, iterator, item_getter, id_getter, new_objs, from_superset, add_to_set, capacity, all_ids)"}}},
  InvalidCase{"unknown_value.space", {{8, 22, "'BLOCK' is not a value of choice 'kind'"}}},
  InvalidCase{"unknown_variable.space", {{7, 8, "unknown variable '$e'"}}},
  InvalidCase{"unknown_variable_in_host_code.space", {{4, 15, "unknown variable '$other' in host code"}}},
  InvalidCase{"variable_bound_twice.space", {{4, 10, "variable '$d' is already bound (at 3:16)"}}},
  InvalidCase{"variable_passed_twice.space", {{7, 13, "variable '$x' is passed twice to 'order' (the arguments of a choice are distinct objects)"}}}
};
// clang-format on

class SpacedslInvalid : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(SpacedslInvalid, ReportsExactly) {
  const InvalidCase& c = GetParam();
  Diagnostics diags;
  std::filesystem::path path = testing::data_dir() / "invalid" / c.file;
  EXPECT_FALSE(load_space(path, diags).has_value());
  expect_exactly(diags, c.errors, path);
}

TEST(SpacedslInvalidCorpus, EveryFileIsListed) {
  // The include cycle's error is in the included file: diagnostics_test checks it.
  expect_every_file_listed(testing::data_dir() / "invalid", ".space", kCases,
                           {"include_cycle_a.space", "include_cycle_b.space"});
}

INSTANTIATE_TEST_SUITE_P(Files, SpacedslInvalid, ::testing::ValuesIn(kCases), case_name);

}  // namespace
}  // namespace sculpt::spacedsl
