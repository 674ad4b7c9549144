#include "frontend/tc_expressions.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "backbone/reference.h"

namespace sculpt::frontend {
namespace {

using backbone::ElemType;

// Constants of subscripts and bounds stay well inside what every stage's int64 arithmetic
// (range inference, strides times sizes) holds.
constexpr int64_t kMaxConstant = int64_t{1} << 20;

// Functions of TC that the backbone has no operator for.
constexpr std::string_view kUnsupportedFunctions[] = {
    "tanh", "sigmoid", "log", "log2", "exp2",  "rsqrt", "abs",   "fabs", "pow",   "sin",
    "cos",  "tan",     "erf", "ceil", "floor", "round", "trunc", "fmod", "lgamma"};

template <typename T>
const T* as(const ast::Expr& expr) {
  if constexpr (std::is_same_v<T, ast::Number> || std::is_same_v<T, ast::Name>) {
    return boost::get<T>(&expr.get());
  } else {
    const auto* node = boost::get<ast::x3::forward_ast<T>>(&expr.get());
    return node ? &node->get() : nullptr;
  }
}

bool is_integer_literal(const std::string& text) {
  return text.find_first_of(".eEfF") == std::string::npos;
}

int rank(ElemType type) {
  switch (type) {
    case ElemType::kI32:
      return 0;
    case ElemType::kF32:
      return 1;
    case ElemType::kF64:
      return 2;
  }
  return 0;
}

std::optional<ElemType> widest(std::optional<ElemType> a, std::optional<ElemType> b) {
  if (!a) return b;
  if (!b) return a;
  return rank(*a) >= rank(*b) ? a : b;
}

Expr constant(double value, std::size_t offset) {
  Expr e;
  e.kind = Expr::Kind::kConstant;
  e.value = value;
  e.offset = offset;
  return e;
}

/// `a op b`, folded when both are constants.
Expr binary(Expr::Kind kind, Expr a, Expr b, std::size_t offset) {
  if (a.kind == Expr::Kind::kConstant && b.kind == Expr::Kind::kConstant) {
    switch (kind) {
      case Expr::Kind::kAdd:
        return constant(a.value + b.value, a.offset);
      case Expr::Kind::kSub:
        return constant(a.value - b.value, a.offset);
      case Expr::Kind::kMul:
        return constant(a.value * b.value, a.offset);
      case Expr::Kind::kDiv:
        return constant(a.value / b.value, a.offset);
      case Expr::Kind::kMin:
        return constant(std::min(a.value, b.value), a.offset);
      case Expr::Kind::kMax:
        return constant(std::max(a.value, b.value), a.offset);
      default:
        break;
    }
  }
  Expr e;
  e.kind = kind;
  e.offset = offset;
  e.type = widest(a.type, b.type);
  e.args.push_back(std::move(a));
  e.args.push_back(std::move(b));
  return e;
}

/// A condition `kind` of `args`, folded where some are constants: comparisons of constants,
/// `&&` and `||` with a constant operand, `!` of a constant.
Expr condition_of(Expr::Kind kind, std::vector<Expr> args, std::size_t offset) {
  const auto is_constant = [](const Expr& e) { return e.kind == Expr::Kind::kConstant; };
  switch (kind) {
    case Expr::Kind::kNot:
      if (is_constant(args[0])) return constant(args[0].value == 0, offset);
      break;
    case Expr::Kind::kAnd:
    case Expr::Kind::kOr:
      for (int k = 0; k < 2; ++k) {
        if (!is_constant(args[k])) continue;
        // A constant that decides the result is it; one that does not leaves the other.
        const bool decides = (args[k].value != 0) == (kind == Expr::Kind::kOr);
        return std::move(args[decides ? k : 1 - k]);
      }
      break;
    default:
      if (is_constant(args[0]) && is_constant(args[1])) {
        return constant(backbone::compare(comparison_operator(kind), args[0].value, args[1].value),
                        offset);
      }
      break;
  }
  Expr e;
  e.kind = kind;
  e.offset = offset;
  for (const Expr& arg : args) e.type = widest(e.type, arg.type);
  e.args = std::move(args);
  return e;
}

bool is_comparison_op(const std::string& op) {
  return op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=";
}

/// Whether a chain of operator `op` gives a condition.
bool is_condition_op(const std::string& op) {
  return is_comparison_op(op) || op == "&&" || op == "||";
}

/// Whether `expr` is written as a condition: a comparison, `&&`, `||` or an outermost `!`.
bool is_condition(const ast::Expr& expr) {
  const ast::Expr& e = strip(expr);
  if (const auto* chain = as<ast::Chain>(e)) return is_condition_op(chain->rest.front().op);
  const auto* unary = as<ast::Unary>(e);
  return unary && unary->ops.front() == "!";
}

/// What using `what`, which gives a condition, as a number says.
std::string condition_as_number(const std::string& what) {
  return what + " gives a condition, not a number: use it as the condition of 'c ? a : b'";
}

bool too_large(const SizeAffine& a) {
  if (a.constant > kMaxConstant || a.constant < -kMaxConstant) return true;
  for (const auto& [name, coeff] : a.coeffs) {
    if (coeff > kMaxConstant || coeff < -kMaxConstant) return true;
  }
  return false;
}

}  // namespace

const ast::Expr& strip(const ast::Expr& expr) {
  if (const auto* chain = as<ast::Chain>(expr); chain && chain->rest.empty()) {
    return strip(chain->first);
  }
  if (const auto* unary = as<ast::Unary>(expr); unary && unary->ops.empty()) {
    return strip(unary->operand);
  }
  if (const auto* cond = as<ast::Conditional>(expr); cond && !cond->branches) {
    return strip(cond->cond);
  }
  return expr;
}

std::size_t offset_of(const ast::Expr& expr) {
  return boost::apply_visitor(
      [](const auto& node) -> std::size_t {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_base_of_v<ast::Located, T>) {
          return node.offset;
        } else {
          return node.get().offset;
        }
      },
      expr.get());
}

int IndexScope::find(const std::string& name) const {
  for (int i = 0; i < static_cast<int>(names.size()); ++i) {
    if (names[i] == name) return i;
  }
  return -1;
}

void ExprChecker::error(std::size_t offset, std::string message) const {
  report(diags_, source_, offset, std::move(message));
}

void ExprChecker::subscript_names(const ast::Expr& expr,
                                  std::vector<std::pair<std::string, std::size_t>>& out) const {
  // Inside a tensor's subscripts every name is an index but for scalars and tensors, which are
  // mistakes reported when the subscript is converted.
  std::function<void(const ast::Expr&, bool)> walk = [&](const ast::Expr& e, bool in_subscript) {
    if (const auto* name = as<ast::Name>(e)) {
      const bool other = def_.find_tensor(name->text) >= 0 || later_.count(name->text) > 0 ||
                         std::any_of(def_.scalars.begin(), def_.scalars.end(),
                                     [&](const Scalar& s) { return s.name == name->text; });
      if (in_subscript && !other) out.emplace_back(name->text, name->offset);
    } else if (const auto* call = as<ast::Call>(e)) {
      const bool tensor = def_.find_tensor(call->name.text) >= 0 || later_.count(call->name.text);
      for (const ast::Expr& arg : call->args) walk(arg, in_subscript || tensor);
    } else if (const auto* unary = as<ast::Unary>(e)) {
      walk(unary->operand, in_subscript);
    } else if (const auto* chain = as<ast::Chain>(e)) {
      walk(chain->first, in_subscript);
      for (const ast::Operation& op : chain->rest) walk(op.operand, in_subscript);
    } else if (const auto* cond = as<ast::Conditional>(e)) {
      walk(cond->cond, in_subscript);
      if (cond->branches) {
        walk(cond->branches->then, in_subscript);
        walk(cond->branches->otherwise, in_subscript);
      }
    }
  };
  walk(expr, false);
}

std::optional<Expr> ExprChecker::value(const ast::Expr& expr, const IndexScope& scope) const {
  const ast::Expr& e = strip(expr);
  if (const auto* number = as<ast::Number>(e)) {
    std::string text = number->text;
    if (text.back() == 'f' || text.back() == 'F') text.pop_back();
    const double v = std::strtod(text.c_str(), nullptr);
    if (!std::isfinite(v)) {
      error(number->offset, "number '" + number->text + "' is out of range");
      return std::nullopt;
    }
    return constant(v, number->offset);
  }
  if (const auto* name = as<ast::Name>(e)) return name_value(*name, scope);
  if (const auto* call = as<ast::Call>(e)) return call_value(*call, scope);
  if (const auto* unary = as<ast::Unary>(e)) return unary_value(*unary, scope);
  if (const auto* chain = as<ast::Chain>(e)) return chain_value(*chain, scope);
  if (const auto* range = as<ast::DimRange>(e)) {
    error(range->offset, "'" + range->tensor.text + "." + range->dim +
                             "' (TC's size of a tensor's dimension) is not supported: name the "
                             "size in the signature");
    return std::nullopt;
  }
  const auto& select = *as<ast::Conditional>(e);
  std::optional<Expr> cond = condition(select.cond, scope);
  if (!cond) return std::nullopt;
  std::optional<Expr> then = value(select.branches->then, scope);
  if (!then) return std::nullopt;
  std::optional<Expr> otherwise = value(select.branches->otherwise, scope);
  if (!otherwise) return std::nullopt;
  if (cond->kind == Expr::Kind::kConstant) return cond->value != 0 ? then : otherwise;
  Expr out;
  out.kind = Expr::Kind::kSelect;
  out.offset = select.offset;
  out.type = widest(then->type, otherwise->type);
  out.args.push_back(std::move(*cond));
  out.args.push_back(std::move(*then));
  out.args.push_back(std::move(*otherwise));
  return out;
}

std::optional<Expr> ExprChecker::condition(const ast::Expr& expr, const IndexScope& scope) const {
  const ast::Expr& e = strip(expr);
  if (!is_condition(e)) {
    error(offset_of(e),
          "expected a condition (a comparison such as 'x > 0', or conditions joined by '&&' or "
          "'||', or negated by '!'), not a number");
    return std::nullopt;
  }
  if (const auto* unary = as<ast::Unary>(e)) {
    // `!` applies to conditions only: every prefix operator is one, and what follows them is
    // a condition.
    if (std::any_of(unary->ops.begin(), unary->ops.end(),
                    [](const std::string& op) { return op != "!"; }) ||
        !is_condition(unary->operand)) {
      error(unary->offset, "'!' applies to a condition (a comparison), not to a number");
      return std::nullopt;
    }
    std::optional<Expr> c = condition(unary->operand, scope);
    if (!c) return std::nullopt;
    for (std::size_t k = 0; k < unary->ops.size(); ++k) {
      c = condition_of(Expr::Kind::kNot, {std::move(*c)}, unary->offset);
    }
    return c;
  }
  const auto& chain = *as<ast::Chain>(e);
  const std::string& first_op = chain.rest.front().op;
  if (is_comparison_op(first_op)) {
    if (chain.rest.size() > 1) {
      error(chain.rest[1].offset, "comparisons do not chain: write 'a < b && b < c'");
      return std::nullopt;
    }
    std::optional<Expr> lhs = value(chain.first, scope);
    if (!lhs) return std::nullopt;
    std::optional<Expr> rhs = value(chain.rest.front().operand, scope);
    if (!rhs) return std::nullopt;
    static const std::map<std::string, Expr::Kind> kComparisons = {
        {"<", Expr::Kind::kLt},  {"<=", Expr::Kind::kLe}, {">", Expr::Kind::kGt},
        {">=", Expr::Kind::kGe}, {"==", Expr::Kind::kEq}, {"!=", Expr::Kind::kNe}};
    return condition_of(kComparisons.at(first_op), {std::move(*lhs), std::move(*rhs)},
                        chain.rest.front().offset);
  }
  std::optional<Expr> acc = condition(chain.first, scope);
  if (!acc) return std::nullopt;
  for (const ast::Operation& op : chain.rest) {
    std::optional<Expr> rhs = condition(op.operand, scope);
    if (!rhs) return std::nullopt;
    acc = condition_of(op.op == "&&" ? Expr::Kind::kAnd : Expr::Kind::kOr,
                       {std::move(*acc), std::move(*rhs)}, op.offset);
  }
  return acc;
}

std::optional<Expr> ExprChecker::name_value(const ast::Name& name, const IndexScope& scope) const {
  Expr e;
  e.offset = name.offset;
  if (const int index = scope.find(name.text); index >= 0) {
    e.kind = Expr::Kind::kIndex;
    e.id = index;
    e.type = ElemType::kI32;
    return e;
  }
  if (std::find(def_.sizes.begin(), def_.sizes.end(), name.text) != def_.sizes.end()) {
    e.kind = Expr::Kind::kSize;
    e.name = name.text;
    e.type = ElemType::kI32;
    return e;
  }
  for (int i = 0; i < static_cast<int>(def_.scalars.size()); ++i) {
    if (def_.scalars[i].name != name.text) continue;
    e.kind = Expr::Kind::kScalar;
    e.id = i;
    e.type = def_.scalars[i].type;
    return e;
  }
  if (def_.find_tensor(name.text) >= 0 || later_.count(name.text)) {
    error(name.offset,
          "'" + name.text + "' is a tensor: read an element, '" + name.text + "(...)'");
    return std::nullopt;
  }
  error(name.offset, "unknown name '" + name.text +
                         "' (an index takes its range from a subscript or a 'where' range)");
  return std::nullopt;
}

std::optional<Expr> ExprChecker::call_value(const ast::Call& call, const IndexScope& scope) const {
  const std::string& f = call.name.text;
  Expr::Kind kind = Expr::Kind::kExp;
  std::size_t arity = 1;
  if (f == "fmax" || f == "max" || f == "fmin" || f == "min") {
    kind = f.ends_with("max") ? Expr::Kind::kMax : Expr::Kind::kMin;
    arity = 2;
  } else if (f == "sqrt") {
    kind = Expr::Kind::kSqrt;
  } else if (f != "exp") {
    if (std::find(std::begin(kUnsupportedFunctions), std::end(kUnsupportedFunctions), f) !=
        std::end(kUnsupportedFunctions)) {
      error(call.offset, "function '" + f +
                             "' is not supported (sculpt has fmax, fmin, max, min, exp and sqrt)");
      return std::nullopt;
    }
    return read_value(call, scope);
  }
  if (call.args.size() != arity) {
    error(call.offset, "'" + f + "' takes " + std::to_string(arity) + " argument" +
                           (arity == 1 ? "" : "s") + ", not " + std::to_string(call.args.size()));
    return std::nullopt;
  }
  std::vector<Expr> args;
  for (const ast::Expr& arg : call.args) {
    std::optional<Expr> a = value(arg, scope);
    if (!a) return std::nullopt;
    args.push_back(std::move(*a));
  }
  if (kind == Expr::Kind::kMax || kind == Expr::Kind::kMin)
    return binary(kind, std::move(args[0]), std::move(args[1]), call.offset);
  const Expr& x = args[0];
  Expr e;
  e.kind = kind;
  e.offset = call.offset;
  if (kind == Expr::Kind::kExp) {
    if (x.type && x.type != ElemType::kF32) {
      error(call.offset, "'exp' takes float values (the PTX printer has exp for float only), not " +
                             std::string(backbone::elem_type_name(*x.type)));
      return std::nullopt;
    }
    if (x.kind == Expr::Kind::kConstant) return constant(std::exp(x.value), call.offset);
    e.type = ElemType::kF32;
  } else {
    // In the type of its operand: PTX has sqrt.rn for f32 and f64.
    if (x.type == ElemType::kI32) {
      error(call.offset, "'sqrt' takes float or double values, not i32");
      return std::nullopt;
    }
    if (x.kind == Expr::Kind::kConstant) {
      // A NaN constant has no C literal.
      if (x.value < 0) {
        error(call.offset, "'sqrt' of a negative number");
        return std::nullopt;
      }
      return constant(std::sqrt(x.value), call.offset);
    }
    // A select of constants has no type of its own: float, as for a tensor of constants.
    e.type = x.type.value_or(ElemType::kF32);
  }
  e.args = std::move(args);
  return e;
}

std::optional<Expr> ExprChecker::read_value(const ast::Call& call, const IndexScope& scope) const {
  const std::string& name = call.name.text;
  const int tensor = def_.find_tensor(name);
  if (tensor < 0) {
    if (auto later = later_.find(name); later != later_.end()) {
      const SourceLocation at = source_.location(later->second);
      error(call.offset, "'" + name + "' is read before it is defined (at " +
                             std::to_string(at.line) + ":" + std::to_string(at.column) + ")");
    } else if (std::find(def_.sizes.begin(), def_.sizes.end(), name) != def_.sizes.end()) {
      error(call.offset, "'" + name + "' is a size, not a tensor");
    } else {
      error(call.offset, "unknown tensor or function '" + name + "'");
    }
    return std::nullopt;
  }
  const Tensor& t = def_.tensors[tensor];
  const std::size_t rank = t.defined() ? t.dims.size() : t.sizes.size();
  if (call.args.size() != rank) {
    error(call.offset, "'" + name + "' has " + std::to_string(rank) + " dimension" +
                           (rank == 1 ? "" : "s") + ", not " + std::to_string(call.args.size()));
    return std::nullopt;
  }
  Expr e;
  e.kind = Expr::Kind::kRead;
  e.offset = call.offset;
  e.id = tensor;
  e.type = t.type;
  for (const ast::Expr& arg : call.args) {
    std::optional<Subscript> s = subscript(arg, scope);
    if (!s) return std::nullopt;
    e.subscripts.push_back(std::move(*s));
  }
  return e;
}

std::optional<Expr> ExprChecker::unary_value(const ast::Unary& unary,
                                             const IndexScope& scope) const {
  // Before the operand, so that `!(a < b)` says `!`, the outermost.
  if (std::find(unary.ops.begin(), unary.ops.end(), "!") != unary.ops.end()) {
    error(unary.offset, condition_as_number("'!'"));
    return std::nullopt;
  }
  std::optional<Expr> operand = value(unary.operand, scope);
  if (!operand) return std::nullopt;
  for (auto op = unary.ops.rbegin(); op != unary.ops.rend(); ++op) {
    if (*op == "+") continue;
    if (operand->kind == Expr::Kind::kConstant) {
      operand->value = -operand->value;
      operand->offset = unary.offset;
      continue;
    }
    Expr neg;
    neg.kind = Expr::Kind::kNeg;
    neg.offset = unary.offset;
    neg.type = operand->type;
    neg.args.push_back(std::move(*operand));
    operand = std::move(neg);
  }
  return operand;
}

std::optional<Expr> ExprChecker::chain_value(const ast::Chain& chain,
                                             const IndexScope& scope) const {
  // Before the operands, so that `a < b || c < d` says `||`, the outermost.
  if (const ast::Operation& first = chain.rest.front(); is_condition_op(first.op)) {
    error(first.offset, condition_as_number("'" + first.op + "'"));
    return std::nullopt;
  }
  std::optional<Expr> acc = value(chain.first, scope);
  if (!acc) return std::nullopt;
  for (const ast::Operation& op : chain.rest) {
    Expr::Kind kind;
    if (op.op == "+") {
      kind = Expr::Kind::kAdd;
    } else if (op.op == "-") {
      kind = Expr::Kind::kSub;
    } else if (op.op == "*") {
      kind = Expr::Kind::kMul;
    } else if (op.op == "/") {
      kind = Expr::Kind::kDiv;
    } else {  // '%': a chain's operators are all of one precedence level
      error(op.offset, "'%' is not supported: the backbone has no remainder operator");
      return std::nullopt;
    }
    std::optional<Expr> rhs = value(op.operand, scope);
    if (!rhs) return std::nullopt;
    if (kind == Expr::Kind::kDiv && rhs->kind == Expr::Kind::kConstant && rhs->value == 0) {
      error(op.offset, "division by zero");
      return std::nullopt;
    }
    acc = binary(kind, std::move(*acc), std::move(*rhs), op.offset);
  }
  return acc;
}

std::optional<SizeAffine> ExprChecker::affine(const ast::Expr& expr,
                                              const std::function<bool(const ast::Name&)>& term,
                                              const std::string& what) const {
  const ast::Expr& e = strip(expr);
  std::optional<SizeAffine> result;
  if (const auto* number = as<ast::Number>(e)) {
    if (!is_integer_literal(number->text)) {
      error(number->offset, what + ": '" + number->text + "' is not an integer");
      return std::nullopt;
    }
    errno = 0;
    const long long v = std::strtoll(number->text.c_str(), nullptr, 10);
    result = SizeAffine::of(errno == 0 ? v : kMaxConstant + 1);
  } else if (const auto* name = as<ast::Name>(e)) {
    if (!term(*name)) return std::nullopt;
    result = SizeAffine::size(name->text);
  } else if (const auto* unary = as<ast::Unary>(e)) {
    result = affine(unary->operand, term, what);
    if (!result) return std::nullopt;
    for (const std::string& op : unary->ops) {
      if (op == "!") {
        error(unary->offset, what + ": '!' is not allowed");
        return std::nullopt;
      }
      if (op == "-") result = *result * -1;
    }
  } else if (const auto* chain = as<ast::Chain>(e)) {
    result = affine(chain->first, term, what);
    if (!result) return std::nullopt;
    for (const ast::Operation& op : chain->rest) {
      if (op.op != "+" && op.op != "-" && op.op != "*") {
        error(op.offset, what + ": '" + op.op + "' is not allowed");
        return std::nullopt;
      }
      std::optional<SizeAffine> rhs = affine(op.operand, term, what);
      if (!rhs) return std::nullopt;
      if (op.op == "*" && !result->is_constant() && !rhs->is_constant()) {
        error(op.offset, what + ": it cannot multiply two names");
        return std::nullopt;
      }
      if (op.op == "*") {
        result = result->is_constant() ? *rhs * result->constant : *result * rhs->constant;
      } else {
        result = op.op == "+" ? *result + *rhs : *result - *rhs;
      }
      if (too_large(*result)) break;
    }
  } else if (const auto* call = as<ast::Call>(e)) {
    const bool tensor = def_.find_tensor(call->name.text) >= 0 || later_.count(call->name.text);
    error(call->offset,
          what + ": " +
              (tensor ? "reading '" + call->name.text + "' in it (a gather) is not supported"
                      : "a call of '" + call->name.text + "' is not allowed"));
    return std::nullopt;
  } else {
    error(offset_of(e), what + ": this expression is not allowed");
    return std::nullopt;
  }
  if (too_large(*result)) {
    error(offset_of(e), what + ": a number in it exceeds 2^20");
    return std::nullopt;
  }
  return result;
}

std::optional<Subscript> ExprChecker::subscript(const ast::Expr& expr,
                                                const IndexScope& scope) const {
  const std::string what = "a subscript is affine in the indices";
  auto term = [&](const ast::Name& name) {
    if (scope.find(name.text) >= 0) return true;
    const bool scalar = std::any_of(def_.scalars.begin(), def_.scalars.end(),
                                    [&](const Scalar& s) { return s.name == name.text; });
    error(name.offset, what + ": '" + name.text + "' is a " + (scalar ? "scalar" : "tensor") +
                           (scalar ? " (strides given by scalars are not supported)" : ""));
    return false;
  };
  std::optional<SizeAffine> a = affine(expr, term, what);
  if (!a) return std::nullopt;
  Subscript s;
  s.offset = offset_of(strip(expr));
  s.constant = a->constant;
  for (const auto& [name, coeff] : a->coeffs) s.terms.emplace_back(scope.find(name), coeff);
  // Terms in index order, for a text that follows the statement's indices.
  std::sort(s.terms.begin(), s.terms.end());
  for (const auto& [index, coeff] : s.terms) {
    s.text += (s.text.empty() ? (coeff < 0 ? "-" : "") : (coeff < 0 ? " - " : " + ")) +
              (coeff == 1 || coeff == -1 ? "" : std::to_string(coeff < 0 ? -coeff : coeff) + "*") +
              scope.names[index];
  }
  if (s.constant != 0 || s.text.empty()) {
    const int64_t c = s.constant;
    s.text += (s.text.empty() ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ")) +
              std::to_string(c < 0 ? -c : c);
  }
  return s;
}

std::optional<SizeBound> ExprChecker::bound(const ast::Expr& expr) const {
  const std::string what = "a range bound is affine in the sizes";
  auto term = [&](const ast::Name& name) {
    if (std::find(def_.sizes.begin(), def_.sizes.end(), name.text) != def_.sizes.end()) {
      return true;
    }
    error(name.offset, what + ": '" + name.text + "' is not a size");
    return false;
  };
  // `affine / constant` at the top, as in `0:N/2`.
  const ast::Expr& e = strip(expr);
  const auto* chain = as<ast::Chain>(e);
  if (chain && chain->rest.back().op == "/") {
    ast::Chain numerator = *chain;
    numerator.rest.pop_back();
    std::optional<SizeAffine> num = affine(ast::Expr(numerator), term, what);
    std::optional<SizeAffine> den = affine(chain->rest.back().operand, term, what);
    if (!num || !den) return std::nullopt;
    if (!den->is_constant() || den->constant <= 0) {
      error(chain->rest.back().offset, what + ": it divides by a positive integer only");
      return std::nullopt;
    }
    return SizeBound{*num, den->constant};
  }
  std::optional<SizeAffine> num = affine(e, term, what);
  if (!num) return std::nullopt;
  return SizeBound{*num, 1};
}

std::optional<IndexRange> ExprChecker::range(const ast::Range& range) const {
  std::optional<SizeBound> lo = bound(range.lo);
  std::optional<SizeBound> hi = bound(range.hi);
  if (!lo || !hi) return std::nullopt;
  // i >= floor(n / d) is i >= ceil((n - d + 1) / d); i <= floor(n / d) - 1 is
  // i <= floor((n - d) / d).
  return IndexRange{SizeBound{lo->num - SizeAffine::of(lo->den - 1), lo->den}.normalized(),
                    SizeBound{hi->num - SizeAffine::of(hi->den), hi->den}.normalized()};
}

}  // namespace sculpt::frontend
