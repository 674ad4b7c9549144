// The invalid corpus: each definition file and the exact diagnostics (line, column, message) it
// gives, every one located where the mistake is.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "tests/frontend/frontend_test_util.h"
#include "tests/spacedsl/invalid_corpus.h"

namespace sculpt::frontend {
namespace {

using spacedsl::testing::case_name;
using spacedsl::testing::expect_every_file_listed;
using spacedsl::testing::expect_exactly;
using spacedsl::testing::InvalidCase;

// clang-format off
const std::vector<InvalidCase> kCases = {
  InvalidCase{"and_of_a_number.tc", {{3, 22, "expected a condition (a comparison such as 'x > 0', or conditions joined by '&&' or '||', or negated by '!'), not a number"}}},
  InvalidCase{"chained_comparison.tc", {{3, 19, "comparisons do not chain: write 'a < b && b < c'"}}},
  InvalidCase{"comparison.tc", {{3, 23, "'>=' gives a condition, not a number: use it as the condition of 'c ? a : b'"}}},
  InvalidCase{"comparison_in_subscript.tc", {{3, 25, "a subscript is affine in the indices: '>=' is not allowed"}}},
  InvalidCase{"comparison_wrong_arity.tc", {{3, 10, "'X' has 1 dimension, not 2"}}},
  InvalidCase{"condition_as_value.tc", {{3, 19, "'||' gives a condition, not a number: use it as the condition of 'c ? a : b'"}}},
  InvalidCase{"dimension_size.tc", {{3, 17, "'A.0' (TC's size of a tensor's dimension) is not supported: name the size in the signature"}}},
  InvalidCase{"division_by_zero.tc", {{3, 15, "division by zero"}}},
  InvalidCase{"division_in_subscript.tc", {{3, 14, "a subscript is affine in the indices: '/' is not allowed"}}},
  InvalidCase{"duplicate_definition.tc", {{3, 5, "definition 'f' is defined twice (first at 2:5)"}}},
  InvalidCase{"duplicate_parameter.tc", {{3, 16, "parameter 'A' is declared twice (first at 2:16)"}}},
  InvalidCase{"exp_of_double.tc", {{3, 10, "'exp' takes float values (the PTX printer has exp for float only), not f64"}}},
  InvalidCase{"free_index_in_assignment.tc", {{3, 15, "index 'k' is not on the left-hand side: only a reduction ('+=!', 'max=!', ...) ranges over free indices"}}},
  InvalidCase{"function_arity.tc", {{3, 10, "'fmax' takes 2 arguments, not 1"}}},
  InvalidCase{"gather.tc", {{3, 14, "a subscript is affine in the indices: reading 'I' in it (a gather) is not supported"}}},
  InvalidCase{"lhs_not_an_index.tc", {{3, 5, "the left-hand side is indexed by index names, as in 'B(i, j)'"}}},
  InvalidCase{"lhs_repeated_index.tc", {{3, 8, "index 'i' appears twice on the left-hand side"}}},
  InvalidCase{"lhs_starts_past_zero.tc", {{3, 5, "index 'i' ranges over 1:N: 'B' is written from index 0"}}},
  InvalidCase{"logical_not.tc", {{3, 10, "'!' gives a condition, not a number: use it as the condition of 'c ? a : b'"}}},
  InvalidCase{"maxpool_without_where.tc", {{3, 37, "cannot infer the range of index 'kw': give it one with 'where kw in lo:hi'"}}},
  InvalidCase{"mismatched_sizes.tc", {{3, 25, "mismatched sizes: index 'k' ranges over 0:L here but over 0:K at 3:18"}}},
  InvalidCase{"modulo.tc", {{3, 15, "'%' is not supported: the backbone has no remainder operator"}}},
  InvalidCase{"multiple_errors.tc", {{7, 16, "expected an expression but found '*'"}, {3, 12, "index 'j' is not on the left-hand side: only a reduction ('+=!', 'max=!', ...) ranges over free indices"}, {15, 10, "function 'tanh' is not supported (sculpt has fmax, fmin, max, min, exp and sqrt)"}}},
  InvalidCase{"negated_condition.tc", {{3, 10, "'!' applies to a condition (a comparison), not to a number"}}},
  InvalidCase{"no_output.tc", {{2, 5, "definition 'f' has no output: list them in '-> (...)'"}}},
  InvalidCase{"no_statement.tc", {{2, 5, "definition 'f' has no statement"}}},
  InvalidCase{"non_affine_subscript.tc", {{3, 17, "a subscript is affine in the indices: it cannot multiply two names"}}},
  InvalidCase{"not_of_a_number.tc", {{3, 10, "'!' applies to a condition (a comparison), not to a number"}}},
  InvalidCase{"number_out_of_range.tc", {{3, 17, "number '1e999' is out of range"}}},
  InvalidCase{"out_of_bounds_shift.tc", {{3, 19, "'A' may be read out of bounds: subscript 'i + 1' leaves 0:N (e.g. N=1, i=0 gives 1)"}}},
  InvalidCase{"out_of_bounds_where.tc", {{3, 12, "'A' may be read out of bounds: subscript 'i' leaves 0:N (e.g. N=1, i=1 gives 1)"}}},
  InvalidCase{"output_is_input.tc", {{2, 23, "'A' is a parameter or a size: an output needs a name of its own"}}},
  InvalidCase{"output_listed_twice.tc", {{2, 26, "output 'B' is listed twice"}}},
  InvalidCase{"output_never_defined.tc", {{2, 26, "output 'C' is never defined"}}},
  InvalidCase{"read_before_defined.tc", {{3, 10, "'T' is read before it is defined (at 4:3)"}}},
  InvalidCase{"redefinition_arity.tc", {{4, 3, "'C' has 2 dimensions, not 1"}}},
  InvalidCase{"reduction_reads_itself.tc", {{4, 12, "a reduction cannot read the tensor it reduces into, 'C'"}}},
  InvalidCase{"scalar_stride.tc", {{3, 19, "a subscript is affine in the indices: 'sh' is a scalar (strides given by scalars are not supported)"}}},
  InvalidCase{"select.tc", {{3, 10, "expected a condition (a comparison such as 'x > 0', or conditions joined by '&&' or '||', or negated by '!'), not a number"}}},
  InvalidCase{"select_as_condition.tc", {{3, 11, "expected a condition (a comparison such as 'x > 0', or conditions joined by '&&' or '||', or negated by '!'), not a number"}}},
  InvalidCase{"select_missing_colon.tc", {{4, 1, "expected ':' but found '}'"}}},
  InvalidCase{"size_as_tensor.tc", {{3, 17, "'N' is a size, not a tensor"}}},
  InvalidCase{"size_named_like_parameter.tc", {{2, 16, "'N' names both a size and a parameter"}}},
  InvalidCase{"sqrt_of_int32.tc", {{3, 10, "'sqrt' takes float or double values, not i32"}}},
  InvalidCase{"sqrt_of_negative.tc", {{3, 17, "'sqrt' of a negative number"}}},
  InvalidCase{"subscript_too_large.tc", {{3, 16, "a subscript is affine in the indices: a number in it exceeds 2^20"}}},
  InvalidCase{"syntax_bad_assignment.tc", {{3, 8, "expected an assignment ('=', '+=!', '+=', '*=!', '*=', 'min=!', 'min=', 'max=!' or 'max=') but found ':'"}}},
  InvalidCase{"syntax_bad_definition_start.tc", {{2, 1, "expected a definition 'def name(...) -> (...) { ... }' but found 'dfe'"}}},
  InvalidCase{"syntax_dangling_operator.tc", {{4, 1, "expected an expression but found '}'"}}},
  InvalidCase{"syntax_missing_arrow.tc", {{2, 19, "expected '->' but found '('"}}},
  InvalidCase{"syntax_missing_brace.tc", {{3, 14, "expected a statement 'tensor(indices) = expression' or '}' but found end of file"}}},
  InvalidCase{"syntax_parameter_without_name.tc", {{2, 15, "expected a name but found ')'"}}},
  InvalidCase{"syntax_reserved_name.tc", {{2, 5, "expected a name but found 'where'"}}},
  InvalidCase{"syntax_unclosed_parenthesis.tc", {{4, 1, "expected ')' but found '}'"}}},
  InvalidCase{"syntax_where_without_in.tc", {{3, 28, "expected 'in' but found '0'"}}},
  InvalidCase{"temporary_reduced_without_init.tc", {{3, 3, "'T' has no value to reduce into: write '+=!' to start from the reduction's neutral element"}}},
  InvalidCase{"temporary_shifted_read.tc", {{4, 12, "'T' is computed by this definition: read it at index names only, as it was written (sculpt passes it as a value, not in memory)"}}},
  InvalidCase{"temporary_transposed_read.tc", {{4, 7, "indices 'i' and 'j' would be one dimension: a tensor computed by this definition is read in the order of its indices"}}},
  InvalidCase{"tensor_as_value.tc", {{3, 10, "'A' is a tensor: read an element, 'A(...)'"}}},
  InvalidCase{"too_deep.tc", {{3, 74, "expressions nest more than 64 deep (parentheses, calls, selects and prefix operators)"}}},
  InvalidCase{"too_deep_prefix.tc", {{3, 73, "expressions nest more than 64 deep (parentheses, calls, selects and prefix operators)"}}},
  InvalidCase{"too_many_operands.tc", {{3, 898, "a definition holds at most 256 operands (numbers, names and calls) in its expressions"}}},
  InvalidCase{"too_many_indices.tc", {{3, 152, "a statement has at most 16 indices (each index is a loop of every instruction of its statement, and a search's space grows faster than they do)"}}},
  InvalidCase{"too_many_dimensions.tc", {{2, 67, "a tensor has at most 16 dimensions (each index is a loop of every instruction of its statement, and a search's space grows faster than they do)"}}},
  InvalidCase{"two_where_ranges.tc", {{3, 36, "index 'k' has two 'where' ranges"}}},
  InvalidCase{"unbound_index.tc", {{3, 8, "cannot infer the range of index 'j': give it one with 'where j in lo:hi'"}}},
  InvalidCase{"unknown_name.tc", {{3, 17, "unknown name 'q' (an index takes its range from a subscript or a 'where' range)"}}},
  InvalidCase{"unknown_tensor.tc", {{3, 17, "unknown tensor or function 'D'"}}},
  InvalidCase{"unknown_type.tc", {{2, 7, "unknown element type 'flot'"}}},
  InvalidCase{"unsupported_function.tc", {{3, 10, "function 'tanh' is not supported (sculpt has fmax, fmin, max, min, exp and sqrt)"}}},
  InvalidCase{"unsupported_type.tc", {{2, 7, "element type 'half' is not supported (sculpt has float, double and int32)"}}},
  InvalidCase{"where_bound_not_a_size.tc", {{3, 33, "a range bound is affine in the sizes: 'i' is not a size"}}},
  InvalidCase{"where_mismatches_dimension.tc", {{4, 21, "mismatched sizes: the range 0:2 of 'i' is not 0:N, the range of its dimension"}}},
  InvalidCase{"write_input.tc", {{4, 3, "'A' is an input: a statement cannot write it"}}},
  InvalidCase{"write_scalar.tc", {{4, 3, "'alpha' is a scalar or a size: a statement writes a tensor"}}},
  InvalidCase{"wrong_arity.tc", {{3, 10, "'A' has 2 dimensions, not 1"}}}
};
// clang-format on

class FrontendInvalid : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(FrontendInvalid, ReportsExactly) {
  const InvalidCase& c = GetParam();
  const std::filesystem::path path = testing::data_dir() / "invalid" / c.file;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  Diagnostics diags;
  load_definitions(text.str(), path.string(), diags);
  expect_exactly(diags, c.errors, path);
}

TEST(FrontendInvalidCorpus, EveryFileIsListed) {
  expect_every_file_listed(testing::data_dir() / "invalid", ".tc", kCases);
}

INSTANTIATE_TEST_SUITE_P(Files, FrontendInvalid, ::testing::ValuesIn(kCases), case_name);

}  // namespace
}  // namespace sculpt::frontend
