#pragma once
// The syntax tree of a file of Tensor Comprehensions definitions, as parsed, before any name is
// resolved. Every node that can be the subject of an error carries the byte offset where it
// starts in its file. Expressions keep the parser's shape (one `Chain` per precedence level);
// tc_check.cpp turns them into the checked model's expressions.
#include <boost/optional.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>
#include <cstddef>
#include <string>
#include <vector>

namespace sculpt::frontend::ast {

namespace x3 = boost::spirit::x3;

/// Base of the located nodes; the parser fills `offset` on every successful match.
struct Located {
  std::size_t offset = 0;
};

struct Name : Located {
  std::string text;
};

/// A number as written (`2`, `0.5`, `1e-3`, `1.0f`); tc_check.cpp reads it.
struct Number : Located {
  std::string text;
};

struct Call;
struct DimRange;
struct Unary;
struct Chain;
struct Conditional;

using Expr =
    x3::variant<Number, Name, x3::forward_ast<Call>, x3::forward_ast<DimRange>,
                x3::forward_ast<Unary>, x3::forward_ast<Chain>, x3::forward_ast<Conditional>>;

/// `name(args)`: a tensor access or a built-in function.
struct Call : Located {
  Name name;
  std::vector<Expr> args;
};

/// `A.0`: TC's size of a tensor's dimension (parsed to be refused clearly).
struct DimRange : Located {
  Name tensor;
  std::string dim;
};

/// Prefix operators (`-`, `+`, `!`), outermost first, applied to `operand`.
struct Unary : Located {
  std::vector<std::string> ops;
  Expr operand;
};

/// `op operand` after the first operand of a chain.
struct Operation : Located {
  std::string op;
  Expr operand;
};

/// Operands of one precedence level, left-associative: `first op1 a op2 b`.
struct Chain : Located {
  Expr first;
  std::vector<Operation> rest;
};

/// `? then : otherwise`, located at the `?`.
struct Branches : Located {
  Expr then;
  Expr otherwise;
};

/// `cond ? then : otherwise`, or just `cond`.
struct Conditional : Located {
  Expr cond;
  boost::optional<Branches> branches;
};

/// `float(M, K) A` or `float alpha`.
struct Param : Located {
  Name type;
  boost::optional<std::vector<Name>> sizes;
  Name name;
};

/// `i in lo:hi`.
struct Range : Located {
  Name index;
  Expr lo;
  Expr hi;
};

/// `C(m, n) +=! A(m, k) * B(k, n) where k in 0:K`.
struct Statement : Located {
  Name tensor;
  std::vector<Expr> indices;
  std::string op;  // "=", "+=", "+=!", "*=", "*=!", "min=", "min=!", "max=", "max=!"
  Expr rhs;
  std::vector<Range> where;
};

struct Definition : Located {
  Name name;
  std::vector<Param> params;
  std::vector<Name> outputs;
  std::vector<Statement> statements;
};

/// The definitions of one file, in source order.
struct File {
  std::vector<Definition> definitions;
};

}  // namespace sculpt::frontend::ast
