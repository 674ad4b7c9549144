#include "frontend/tc_ranges.h"

#include <algorithm>

#include "backbone/isl_wrap.h"
#include "support/check.h"

namespace sculpt::frontend {
namespace {

std::string at(const SourceFile& source, std::size_t offset) {
  const SourceLocation loc = source.location(offset);
  return std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

/// How two bounds compare for every size: a - b when it is a constant.
std::optional<int64_t> difference(const SizeBound& a, const SizeBound& b) {
  if (a.den != b.den) return std::nullopt;
  const SizeAffine d = a.num - b.num;
  if (!d.is_constant() || d.overflow) return std::nullopt;
  return d.constant;
}

/// max(0, lo) when it is one of the two for every size at least 1.
std::optional<SizeBound> non_negative(const SizeBound& lo) {
  bool up = true, down = true;  // lo's numerator only grows, or only shrinks, with the sizes
  __int128 at_ones = lo.num.constant;
  for (const auto& [name, coeff] : lo.num.coeffs) {
    up &= coeff > 0;
    down &= coeff < 0;
    at_ones += coeff;
  }
  if (up && at_ones > -lo.den) return lo;        // ceil(lo) >= 0 everywhere
  if (down && at_ones <= 0) return SizeBound{};  // ceil(lo) <= 0 everywhere
  return std::nullopt;
}

/// What one subscript says of the range of its one open index.
struct Candidate {
  SizeBound lo;
  SizeBound last;
  std::size_t offset;
};

class Inference {
 public:
  Inference(const RangeProblem& p, const SourceFile& source, Diagnostics& diags)
      : p_(p), source_(source), diags_(diags), known_(p.known) {}

  std::optional<std::vector<IndexRange>> run() {
    while (std::any_of(known_.begin(), known_.end(), [](const auto& k) { return !k; })) {
      std::map<int, std::vector<Candidate>> found;
      for (const Expr* read : p_.reads) {
        const Tensor& tensor = p_.def->tensors[read->id];
        for (std::size_t d = 0; d < read->subscripts.size(); ++d) {
          solve(read->subscripts[d], SizeAffine::size(tensor.sizes[d]), found);
        }
      }
      if (found.empty()) return unbounded();
      for (const auto& [index, candidates] : found) {
        if (!intersect(index, candidates)) return std::nullopt;
      }
    }
    std::vector<IndexRange> ranges;
    for (const auto& k : known_) ranges.push_back(*k);
    return ranges;
  }

 private:
  /// Adds what `s` says of its one open index, if it has exactly one.
  void solve(const Subscript& s, const SizeAffine& extent,
             std::map<int, std::vector<Candidate>>& found) {
    int open = -1;
    int64_t a = 0;
    SizeAffine rest_min = SizeAffine::of(s.constant), rest_max = rest_min;
    for (const auto& [index, coeff] : s.terms) {
      if (!known_[index]) {
        if (open >= 0) return;
        open = index;
        a = coeff;
        continue;
      }
      const IndexRange& r = *known_[index];
      if (r.lo.den != 1 || r.last.den != 1) return;  // not affine in the sizes
      rest_min = rest_min + (coeff > 0 ? r.lo.num : r.last.num) * coeff;
      rest_max = rest_max + (coeff > 0 ? r.last.num : r.lo.num) * coeff;
    }
    if (open < 0) return;
    // 0 <= a * x + rest <= extent - 1 for every value of rest.
    const SizeAffine top = extent - SizeAffine::of(1);
    Candidate c{{}, {}, s.offset};
    if (a > 0) {
      c.lo = SizeBound{rest_min * -1, a}.normalized();
      c.last = SizeBound{top - rest_max, a}.normalized();
    } else {
      c.lo = SizeBound{rest_max - top, -a}.normalized();
      c.last = SizeBound{rest_min, -a}.normalized();
    }
    if (c.lo.num.overflow || c.last.num.overflow) return;  // numbers past what is reasonable
    std::optional<SizeBound> lo = non_negative(c.lo);
    if (!lo) return;  // no rectangle for every size: left to a `where`
    c.lo = *lo;
    found[open].push_back(c);
  }

  bool intersect(int index, const std::vector<Candidate>& candidates) {
    Candidate range = candidates.front();
    for (const Candidate& c : candidates) {
      const std::optional<int64_t> lo = difference(c.lo, range.lo);
      const std::optional<int64_t> last = difference(c.last, range.last);
      if (!lo || !last) {
        const IndexRange here{c.lo, c.last}, there{range.lo, range.last};
        report(diags_, source_, c.offset,
               "mismatched sizes: index '" + p_.scope.names[index] + "' ranges over " +
                   here.to_string() + " here but over " + there.to_string() + " at " +
                   at(source_, range.offset));
        return false;
      }
      if (*lo > 0) range.lo = c.lo;
      if (*last < 0) range.last = c.last;
    }
    known_[index] = IndexRange{range.lo, range.last};
    return true;
  }

  /// Reports the first index left open, reduced ones first: the left-hand side's usually
  /// follow from them (the paper's max pooling needs ranges for kw and kh, not i and j).
  std::nullopt_t unbounded() {
    int first = -1;
    auto before = [&](int i, int j) {
      const bool i_reduced = i >= static_cast<int>(p_.lhs_count);
      const bool j_reduced = j >= static_cast<int>(p_.lhs_count);
      if (i_reduced != j_reduced) return i_reduced;
      return p_.first_offsets[i] < p_.first_offsets[j];
    };
    for (int i = 0; i < static_cast<int>(known_.size()); ++i) {
      if (!known_[i] && (first < 0 || before(i, first))) first = i;
    }
    const std::string& name = p_.scope.names[first];
    std::string message = "cannot infer the range of index '" + name +
                          "': give it one with 'where " + name + " in lo:hi'";
    if (std::find(p_.def->sizes.begin(), p_.def->sizes.end(), name) != p_.def->sizes.end()) {
      message += " ('" + name + "' is also a size, but in a subscript every name is an index)";
    }
    report(diags_, source_, p_.first_offsets[first], message);
    return std::nullopt;
  }

  const RangeProblem& p_;
  const SourceFile& source_;
  Diagnostics& diags_;
  std::vector<std::optional<IndexRange>> known_;
};

/// isl's text of `sum coeff * name + constant`, names renamed by `rename`.
template <typename Terms, typename Rename>
std::string isl_affine(const Terms& terms, int64_t constant, const Rename& rename) {
  std::string out = std::to_string(constant);
  for (const auto& [key, coeff] : terms) out += " + " + std::to_string(coeff) + "*" + rename(key);
  return out;
}

class BoundsCheck {
 public:
  BoundsCheck(const RangeProblem& p, const std::vector<IndexRange>& ranges) : p_(p) {
    for (std::size_t i = 0; i < p.def->sizes.size(); ++i) {
      params_ += (i ? ", " : "") + param(p.def->sizes[i]);
      context_ += param(p.def->sizes[i]) + " >= 1 and ";
    }
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      vars_ += (i ? ", " : "") + var(static_cast<int>(i));
      const IndexRange& r = ranges[i];
      // den * v >= lo.num and den * v <= last.num.
      context_ += std::to_string(r.lo.den) + "*" + var(static_cast<int>(i)) +
                  " >= " + size_text(r.lo.num) + " and " + std::to_string(r.last.den) + "*" +
                  var(static_cast<int>(i)) + " <= " + size_text(r.last.num) + " and ";
    }
  }

  /// An example of sizes and indices where `s` leaves 0:extent, or nothing when there is none.
  std::optional<std::string> outside(const Subscript& s, const std::string& extent) const {
    const std::string value = isl_affine(s.terms, s.constant, [&](int i) { return var(i); });
    const std::string text = "[" + params_ + "] -> { [" + vars_ + "] : " + context_ + "(" + value +
                             " <= -1 or " + value + " >= " + param(extent) + ") }";
    const std::optional<backbone::isl::Point> point = backbone::isl::sample(ctx_.set(text));
    if (!point) return std::nullopt;
    std::string example;
    for (const std::string& size : p_.def->sizes) {
      // A size isl dropped: any value does.
      example += (example.empty() ? "" : ", ") + size + "=" +
                 std::to_string(point->parameter(param(size)).value_or(1));
    }
    int64_t at = s.constant;
    for (const auto& [index, coeff] : s.terms) {
      const int64_t v = point->dimension(var(index)).value_or(1);
      example += ", " + p_.scope.names[index] + "=" + std::to_string(v);
      at += coeff * v;
    }
    return example + " gives " + std::to_string(at);
  }

 private:
  // isl's own words (and, or, min...) may be names of a definition: isl sees p0.. and v0...
  std::string param(const std::string& size) const {
    const auto it = std::find(p_.def->sizes.begin(), p_.def->sizes.end(), size);
    return "p" + std::to_string(it - p_.def->sizes.begin());
  }
  static std::string var(int index) { return "v" + std::to_string(index); }
  std::string size_text(const SizeAffine& a) const {
    return isl_affine(a.coeffs, a.constant, [&](const std::string& s) { return param(s); });
  }

  const RangeProblem& p_;
  backbone::isl::Ctx ctx_;
  std::string params_, vars_, context_;
};

}  // namespace

std::optional<std::vector<IndexRange>> infer_ranges(const RangeProblem& problem,
                                                    const SourceFile& source, Diagnostics& diags) {
  return Inference(problem, source, diags).run();
}

bool check_bounds(const RangeProblem& problem, const std::vector<IndexRange>& ranges,
                  const SourceFile& source, Diagnostics& diags) {
  const BoundsCheck check(problem, ranges);
  bool ok = true;
  for (const Expr* read : problem.reads) {
    const Tensor& tensor = problem.def->tensors[read->id];
    for (std::size_t d = 0; d < read->subscripts.size(); ++d) {
      const Subscript& s = read->subscripts[d];
      const std::optional<std::string> example = check.outside(s, tensor.sizes[d]);
      if (!example) continue;
      report(diags, source, s.offset,
             "'" + tensor.name + "' may be read out of bounds: subscript '" + s.text +
                 "' leaves 0:" + tensor.sizes[d] + " (e.g. " + *example + ")");
      ok = false;
    }
  }
  return ok;
}

}  // namespace sculpt::frontend
