#pragma once
// The syntax tree of one `.space` file, as parsed, before any name is resolved. Every node
// that can be the subject of an error carries the byte offset where it starts in its file.
#include <boost/optional.hpp>
#include <boost/variant.hpp>
#include <cstddef>
#include <string>
#include <vector>

namespace sculpt::spacedsl::ast {

/// Base of the located nodes; the parser fills `offset` on every successful match.
struct Located {
  std::size_t offset = 0;
};

struct Name : Located {
  std::string text;
};

/// `$name` (text without the `$`).
struct VarRef : Located {
  std::string text;
};

/// A string literal; `raw` is the text between the quotes, escapes not yet decoded, so that
/// offsets inside it map back to columns.
struct HostCode : Located {
  std::string raw;
};

/// `$x in Set` or `$x in Set($p)`.
struct VarDecl : Located {
  VarRef var;
  Name set;
  boost::optional<VarRef> set_arg;
};

/// `choice($a, $b)`.
struct ChoiceRef : Located {
  Name name;
  std::vector<VarRef> args;
};

/// `is [not] V1 | V2`.
struct IsTest {
  bool negated = false;
  std::vector<Name> values;
};

using Operand = boost::variant<HostCode, ChoiceRef>;

/// `op rhs` with op one of `<`, `<=`, `>`, `>=`, `==`, `!=`.
struct CompareTest : Located {
  std::string op;
  Operand rhs;
};

using ConditionTest = boost::variant<IsTest, CompareTest>;

struct ChoiceCondition : Located {
  ChoiceRef lhs;
  ConditionTest test;
};

/// `TRUE` or `FALSE`.
struct Constant : Located {
  std::string text;
};

using Condition = boost::variant<HostCode, Constant, ChoiceCondition>;

/// Conditions joined by `||`.
struct Clause : Located {
  std::vector<Condition> conditions;
};

/// `forall $x in S:` heads followed by clauses: the body of `require` and `requires`.
struct Requirement : Located {
  std::vector<VarDecl> forall;
  std::vector<Clause> clauses;
};

struct Include : Located {
  HostCode path;
};

/// `name = "code"` inside a set or quotient.
struct HostField : Located {
  Name field;
  HostCode code;
};

/// `disjoint: A, B`.
struct DisjointField : Located {
  std::vector<Name> sets;
};

/// `reverse forall $x in S = "code"`.
struct ReverseField : Located {
  VarDecl var;
  HostCode code;
};

using SetField = boost::variant<HostField, DisjointField, ReverseField>;

struct SetDecl : Located {
  Name name;
  boost::optional<VarDecl> param;
  boost::optional<Name> superset;  // `subsetof`
  std::vector<SetField> fields;
};

/// `quotient Q($p in P) of $x in S: repr = cond && cond / equiv is V1 | V2` + set fields.
struct QuotientDecl : Located {
  Name name;
  boost::optional<VarDecl> param;
  VarDecl element;
  Name repr;
  std::vector<Condition> condition;
  Name equivalence;
  std::vector<Name> equivalence_values;
  std::vector<SetField> fields;
};

struct ValueDecl : Located {
  Name name;
  std::vector<Requirement> requires_;
};

struct AliasDecl : Located {
  Name name;
  std::vector<Name> values;
  std::vector<Requirement> requires_;
};

struct Mapping : Located {
  Name from;
  Name to;
};

struct Antisymmetric : Located {
  std::vector<Mapping> mappings;
};

struct Symmetric : Located {};

using EnumItem = boost::variant<ValueDecl, AliasDecl, Antisymmetric, Symmetric>;

struct EnumChoice : Located {
  Name name;
  std::vector<VarDecl> args;
  std::vector<EnumItem> items;
};

struct IntegerChoice : Located {
  Name name;
  std::vector<VarDecl> args;
  HostCode universe;
};

struct CounterChoice : Located {
  bool half = false;
  Name name;
  std::vector<VarDecl> args;
  std::vector<VarDecl> forall;
  std::string op;  // "sum", "mul" or "max"
  Operand value;
  std::vector<Condition> when;
};

using ChoiceDecl = boost::variant<EnumChoice, IntegerChoice, CounterChoice>;

struct RequireDecl : Located {
  Requirement body;
};

struct TriggerDecl : Located {
  std::vector<VarDecl> forall;
  HostCode code;
  std::vector<Condition> conditions;
};

using Item = boost::variant<Include, SetDecl, QuotientDecl, ChoiceDecl, RequireDecl, TriggerDecl>;

/// The items of one file, in source order.
struct File {
  std::vector<Item> items;
};

}  // namespace sculpt::spacedsl::ast
