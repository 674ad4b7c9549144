#include "frontend/tc_model.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "support/check.h"

namespace sculpt::frontend {
namespace {

int64_t floor_div(int64_t num, int64_t den) {
  SCULPT_CHECK(den > 0) << "a bound's divisor must be positive";
  return num >= 0 ? num / den : -((-num + den - 1) / den);
}

/// "N", "(N - 2)": an operand of a division.
std::string parenthesized(const SizeAffine& a) {
  const std::string text = a.to_string();
  return a.coeffs.size() + (a.constant != 0) > 1 ? "(" + text + ")" : text;
}

}  // namespace

namespace {

constexpr int64_t kLargest = int64_t{1} << 62;

/// `v` as an int64 when within 2^62, else 0 with `overflow` set.
int64_t narrowed(__int128 v, bool& overflow) {
  if (v > kLargest || v < -kLargest) {
    overflow = true;
    return 0;
  }
  return static_cast<int64_t>(v);
}

}  // namespace

SizeAffine SizeAffine::operator+(const SizeAffine& other) const {
  SizeAffine sum = *this;
  sum.overflow = overflow || other.overflow;
  sum.constant = narrowed(__int128{constant} + other.constant, sum.overflow);
  for (const auto& [name, coeff] : other.coeffs) {
    int64_t& c = sum.coeffs[name];
    c = narrowed(__int128{c} + coeff, sum.overflow);
    if (c == 0) sum.coeffs.erase(name);
  }
  return sum;
}

SizeAffine SizeAffine::operator-(const SizeAffine& other) const { return *this + other * -1; }

SizeAffine SizeAffine::operator*(int64_t factor) const {
  if (factor == 0) return of(0);
  SizeAffine product = *this;
  product.constant = narrowed(__int128{constant} * factor, product.overflow);
  for (auto& [name, coeff] : product.coeffs) {
    coeff = narrowed(__int128{coeff} * factor, product.overflow);
  }
  return product;
}

int64_t SizeAffine::eval(const backbone::Sizes& sizes) const {
  __int128 value = constant;
  for (const auto& [name, coeff] : coeffs) value += __int128{coeff} * sizes.at(name);
  const __int128 bound = kLargest / 2;
  return static_cast<int64_t>(std::clamp(value, -bound, bound));
}

std::string SizeAffine::to_string() const {
  std::string out;
  auto term = [&](int64_t coeff, const std::string& what) {
    if (out.empty()) {
      out = coeff < 0 ? "-" : "";
    } else {
      out += coeff < 0 ? " - " : " + ";
    }
    const int64_t magnitude = coeff < 0 ? -coeff : coeff;
    if (what.empty()) {
      out += std::to_string(magnitude);
    } else {
      out += (magnitude == 1 ? "" : std::to_string(magnitude) + "*") + what;
    }
  };
  // Positive terms first: "W - KW + 1".
  for (const auto& [name, coeff] : coeffs) {
    if (coeff > 0) term(coeff, name);
  }
  for (const auto& [name, coeff] : coeffs) {
    if (coeff < 0) term(coeff, name);
  }
  if (constant != 0 || out.empty()) term(constant, "");
  return out;
}

int64_t SizeBound::floor(const backbone::Sizes& sizes) const {
  return floor_div(num.eval(sizes), den);
}

int64_t SizeBound::ceil(const backbone::Sizes& sizes) const {
  return -floor_div(-num.eval(sizes), den);
}

SizeBound SizeBound::normalized() const {
  int64_t g = den;
  for (const auto& [name, coeff] : num.coeffs) g = std::gcd(g, coeff);
  g = std::gcd(g, num.constant);
  if (g <= 1) return *this;
  SizeBound b = *this;
  b.num.constant /= g;
  for (auto& [name, coeff] : b.num.coeffs) coeff /= g;
  b.den /= g;
  return b;
}

std::string IndexRange::to_string() const {
  const std::string first =
      lo.den == 1 ? lo.num.to_string()
                  : "ceil(" + parenthesized(lo.num) + "/" + std::to_string(lo.den) + ")";
  // hi = floor(last) + 1 = floor((num + den) / den).
  const SizeAffine hi = last.num + SizeAffine::of(last.den);
  const std::string end =
      last.den == 1 ? hi.to_string() : parenthesized(hi) + "/" + std::to_string(last.den);
  return first + ":" + end;
}

std::optional<std::string> IndexRange::as_size() const {
  if (lo.den != 1 || !(lo.num == SizeAffine::of(0)) || last.den != 1) return std::nullopt;
  const SizeAffine hi = last.num + SizeAffine::of(1);
  if (hi.constant != 0 || hi.coeffs.size() != 1 || hi.coeffs.begin()->second != 1) {
    return std::nullopt;
  }
  return hi.coeffs.begin()->first;
}

int64_t IndexRange::extent(const backbone::Sizes& sizes) const {
  return last.floor(sizes) - lo.ceil(sizes) + 1;
}

backbone::Operator comparison_operator(Expr::Kind kind) {
  using backbone::Operator;
  switch (kind) {
    case Expr::Kind::kLt:
      return Operator::kLt;
    case Expr::Kind::kLe:
      return Operator::kLe;
    case Expr::Kind::kGt:
      return Operator::kGt;
    case Expr::Kind::kGe:
      return Operator::kGe;
    case Expr::Kind::kEq:
      return Operator::kEq;
    case Expr::Kind::kNe:
      return Operator::kNe;
    default:
      break;
  }
  SCULPT_CHECK(false) << "not a comparison";
  return Operator::kMov;
}

double neutral(Reduction reduction, backbone::ElemType type) {
  using backbone::ElemType;
  const double largest = type == ElemType::kF32   ? std::numeric_limits<float>::max()
                         : type == ElemType::kF64 ? std::numeric_limits<double>::max()
                                                  : std::numeric_limits<int32_t>::max();
  switch (reduction) {
    case Reduction::kProduct:
      return 1;
    case Reduction::kMin:
      return largest;
    case Reduction::kMax:
      return type == ElemType::kI32 ? std::numeric_limits<int32_t>::min() : -largest;
    default:
      return 0;
  }
}

std::vector<int> Statement::reduced() const {
  std::vector<int> ids;
  for (int i = 0; i < static_cast<int>(indices.size()); ++i) {
    if (indices[i].reduced) ids.push_back(i);
  }
  return ids;
}

int Definition::find_tensor(const std::string& name) const {
  for (int i = 0; i < static_cast<int>(tensors.size()); ++i) {
    if (tensors[i].name == name) return i;
  }
  return -1;
}

}  // namespace sculpt::frontend
