#pragma once
// The ranges of a statement's indices, as TC infers them (section 3.1 of the paper): in rounds,
// each round solving, for every subscript of an input tensor with one index left open, the
// largest range that keeps the subscript in bounds whatever values the indices already known
// take, and intersecting what several subscripts say of the same index. Indices start at 0 at
// the earliest. Then isl checks, for every size, that every subscript of an input stays in
// bounds over the whole iteration domain (a `where` range may claim more than a tensor holds).
#include <optional>
#include <vector>

#include "frontend/source.h"
#include "frontend/tc_expressions.h"
#include "frontend/tc_model.h"

namespace sculpt::frontend {

struct RangeProblem {
  const Definition* def = nullptr;
  IndexScope scope;
  std::size_t lhs_count = 0;               // the first indices are the left-hand side's
  std::vector<std::size_t> first_offsets;  // where each index first appears
  /// Ranges known beforehand (`where`, or the dimension of a defined tensor the index reads).
  std::vector<std::optional<IndexRange>> known;
  /// The reads of input tensors, in order.
  std::vector<const Expr*> reads;
};

/// Every index's range, or nothing after reporting why at its location: an index no subscript
/// bounds alone, or subscripts that bound it differently (mismatched sizes).
std::optional<std::vector<IndexRange>> infer_ranges(const RangeProblem& problem,
                                                    const SourceFile& source, Diagnostics& diags);

/// Whether every read stays in bounds for every size at least 1 (isl); reports each subscript
/// that may not, with an example.
bool check_bounds(const RangeProblem& problem, const std::vector<IndexRange>& ranges,
                  const SourceFile& source, Diagnostics& diags);

}  // namespace sculpt::frontend
