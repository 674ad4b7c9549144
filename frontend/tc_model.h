#pragma once
// A checked Tensor Comprehensions definition: names resolved, element types known, subscripts
// affine, and the range of every index inferred (tc_check.h makes it). The builder
// (tc_builder.h) and the CPU reference (tc_reference.h) read nothing else, so that what a
// kernel computes and what its reference computes come from the same model.
//
// Sizes stay symbolic here: a range is `lo:hi` with bounds affine in the signature's sizes
// (`0:H-KH+1`), possibly floor-divided (`0:N/2`), and becomes numbers only for given sizes.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backbone/kernel.h"
#include "backbone/sizes.h"

namespace sculpt::frontend {

/// An integer affine in the sizes: sum of coeff * size + constant. Arithmetic past 2^62 sets
/// `overflow` (and whatever it computed is meaningless) rather than overflow int64.
struct SizeAffine {
  std::map<std::string, int64_t> coeffs;  // nonzero coefficients only
  int64_t constant = 0;
  bool overflow = false;

  static SizeAffine of(int64_t constant) { return {{}, constant, false}; }
  static SizeAffine size(const std::string& name) { return {{{name, 1}}, 0, false}; }
  bool is_constant() const { return coeffs.empty(); }
  SizeAffine operator+(const SizeAffine& other) const;
  SizeAffine operator-(const SizeAffine& other) const;
  SizeAffine operator*(int64_t factor) const;
  bool operator==(const SizeAffine&) const = default;
  /// The value at `sizes`, within +-2^61 (a larger one is that bound).
  int64_t eval(const backbone::Sizes& sizes) const;
  /// "H - KH + 1", "N", "3".
  std::string to_string() const;
};

/// `num / den` rounded down (an upper bound) or up (a lower bound), den > 0.
struct SizeBound {
  SizeAffine num;
  int64_t den = 1;
  int64_t floor(const backbone::Sizes& sizes) const;
  int64_t ceil(const backbone::Sizes& sizes) const;
  /// The same bound with the gcd of the divisor and every number of the numerator divided out.
  SizeBound normalized() const;
  bool operator==(const SizeBound&) const = default;
};

/// The values `first..last` of an index, both included: first = ceil(lo), last = floor(last).
struct IndexRange {
  SizeBound lo;
  SizeBound last;
  /// TC's `lo:hi`, hi excluded: "0:H-KH+1".
  std::string to_string() const;
  /// Whether it is `0:S` for the size S, and which.
  std::optional<std::string> as_size() const;
  int64_t first(const backbone::Sizes& sizes) const { return lo.ceil(sizes); }
  /// Values in the range for `sizes` (0 or less when empty).
  int64_t extent(const backbone::Sizes& sizes) const;
  bool operator==(const IndexRange&) const = default;
};

/// `sum coeff * index + constant` over the indices of a statement.
struct Subscript {
  std::vector<std::pair<int, int64_t>> terms;  // (index id, coeff), ids distinct, coeff != 0
  int64_t constant = 0;
  std::size_t offset = 0;
  std::string text;  // as written, for messages
};

struct Expr {
  enum class Kind {
    kConstant,
    kIndex,   // the value of an index (id)
    kSize,    // a size's value (name)
    kScalar,  // a scalar parameter (id)
    kRead,    // a tensor's element (id, subscripts)
    kNeg,
    kAdd,
    kSub,
    kMul,
    kDiv,
    kMin,
    kMax,
    kExp,
    kSqrt,
    // Conditions: only a select's condition, or an operand of another condition, is one. They
    // are 1 where they hold and 0 elsewhere; a comparison compares in its type.
    kLt,
    kLe,
    kGt,
    kGe,
    kEq,
    kNe,
    kAnd,
    kOr,
    kNot,
    kSelect,  // args: the condition, then the values where it holds and where it does not
  };
  Kind kind = Kind::kConstant;
  std::size_t offset = 0;
  double value = 0;                   // kConstant
  int id = -1;                        // kIndex, kScalar, kRead
  std::string name;                   // kSize
  std::vector<Subscript> subscripts;  // kRead
  std::vector<Expr> args;             // operators, in order
  /// Unset for constants alone (they take the type of what they meet).
  std::optional<backbone::ElemType> type;
};

/// The backbone's comparison operator of a comparison (kLt..kNe).
backbone::Operator comparison_operator(Expr::Kind kind);

enum class Reduction { kNone, kSum, kProduct, kMin, kMax };

/// A reduction's neutral element in `type`: for max (min) the most negative (positive) finite
/// number, so that every printer writes it as it writes any number.
double neutral(Reduction reduction, backbone::ElemType type);

struct Tensor {
  enum class Role { kInput, kOutput, kTemporary };
  std::string name;
  std::size_t offset = 0;
  Role role = Role::kInput;
  backbone::ElemType type = backbone::ElemType::kF32;
  /// Inputs: the declared sizes, in order.
  std::vector<std::string> sizes;
  /// Defined tensors (outputs and temporaries): the dimension of each index position.
  std::vector<int> dims;
  /// An output a `+=` reduces into before any statement defined it: an in-out array.
  bool reads_initial = false;
  /// Defined tensors: the statement whose value is final (what an output stores).
  int last_statement = -1;
  bool defined() const { return role != Role::kInput; }
};

struct Scalar {
  std::string name;
  backbone::ElemType type = backbone::ElemType::kF32;
};

/// A dimension of the definition: the indices several statements share through the tensors
/// they define and read, one loop dimension of the backbone.
struct Dim {
  std::string name;
  std::size_t offset = 0;  // where its first index first appears
  IndexRange range;
  bool parallel = false;  // on the left-hand side of some statement (else only reduced)
};

struct Index {
  std::string name;
  int dim = -1;
  bool reduced = false;  // not on the left-hand side
};

struct Statement {
  std::size_t offset = 0;
  int tensor = -1;
  std::vector<int> lhs;  // index ids, in position order
  Reduction reduction = Reduction::kNone;
  bool init = false;  // `!`: from the reduction's neutral element
  std::vector<Index> indices;
  Expr rhs;
  /// Indices the statement reduces over, in order of first appearance.
  std::vector<int> reduced() const;
};

struct Definition {
  std::string name;
  std::size_t offset = 0;  // of its name
  /// The statements' text, on one line, for `sculpt kernels`.
  std::string text;
  std::vector<std::string> sizes;  // declared sizes, in order of first appearance
  std::vector<Scalar> scalars;
  std::vector<Tensor> tensors;  // parameters (inputs) in order, then the defined tensors
  /// The signature's parameters (scalars and input tensors), in order.
  struct Param {
    bool scalar = false;
    int id = -1;
  };
  std::vector<Param> params;
  std::vector<int> outputs;  // tensor ids, in the order of the `->` list
  std::vector<Dim> dims;
  std::vector<Statement> statements;

  int find_tensor(const std::string& name) const;
};

}  // namespace sculpt::frontend
