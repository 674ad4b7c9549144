#pragma once
// From the parser's expressions to the checked model's: values (names resolved, types
// computed, constants folded), subscripts (affine in the indices) and the bounds of `where`
// ranges (affine in the sizes). Every mistake is reported once, at its location; a conversion
// that reported one returns nothing.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/source.h"
#include "frontend/tc_ast.h"
#include "frontend/tc_model.h"

namespace sculpt::frontend {

/// Where the parser's wrappers (a chain of one operand, no prefix operator, no `?:`) are gone.
const ast::Expr& strip(const ast::Expr& expr);
std::size_t offset_of(const ast::Expr& expr);

/// The indices of a statement, by id.
struct IndexScope {
  std::vector<std::string> names;
  int find(const std::string& name) const;
};

class ExprChecker {
 public:
  /// `def` holds the signature and the tensors defined so far; `later` the tensors statements
  /// define further on, by name, with where (so that reading one early says so).
  ExprChecker(const Definition& def, const std::map<std::string, std::size_t>& later,
              const SourceFile& source, Diagnostics& diags)
      : def_(def), later_(later), source_(source), diags_(diags) {}

  /// The names inside the subscripts of tensor reads, in order of appearance: the indices a
  /// statement's right-hand side introduces (scalars and tensors excluded).
  void subscript_names(const ast::Expr& expr,
                       std::vector<std::pair<std::string, std::size_t>>& out) const;

  /// Resolves a value in the scope of a statement's indices.
  std::optional<Expr> value(const ast::Expr& expr, const IndexScope& scope) const;
  /// An affine subscript over a statement's indices.
  std::optional<Subscript> subscript(const ast::Expr& expr, const IndexScope& scope) const;
  /// A `where` range's bounds: the values lo..hi-1.
  std::optional<IndexRange> range(const ast::Range& range) const;

 private:
  std::optional<Expr> name_value(const ast::Name& name, const IndexScope& scope) const;
  std::optional<Expr> call_value(const ast::Call& call, const IndexScope& scope) const;
  std::optional<Expr> read_value(const ast::Call& call, const IndexScope& scope) const;
  std::optional<Expr> chain_value(const ast::Chain& chain, const IndexScope& scope) const;
  std::optional<Expr> unary_value(const ast::Unary& unary, const IndexScope& scope) const;
  /// A select's condition: a comparison of values, or conditions joined by `&&`, `||`, `!`.
  std::optional<Expr> condition(const ast::Expr& expr, const IndexScope& scope) const;
  /// An affine expression over the names `term` accepts (it reports those it refuses);
  /// `what` names it in messages ("a subscript").
  std::optional<SizeAffine> affine(const ast::Expr& expr,
                                   const std::function<bool(const ast::Name&)>& term,
                                   const std::string& what) const;
  std::optional<SizeBound> bound(const ast::Expr& expr) const;
  void error(std::size_t offset, std::string message) const;

  const Definition& def_;
  const std::map<std::string, std::size_t>& later_;
  const SourceFile& source_;
  Diagnostics& diags_;
};

}  // namespace sculpt::frontend
