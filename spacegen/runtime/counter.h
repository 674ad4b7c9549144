#pragma once
// Interval arithmetic of counters. A term contributes its value when its condition holds;
// while the condition is unknown it may contribute either its value or the identity, so the
// counter is the interval of every total the remaining choices allow. Products assume
// non-negative values (sizes, counts); so do maxima, whose identity is 0.
#include "spacegen/runtime/domain.h"
#include "spacegen/runtime/layout.h"

namespace sculpt::spacegen {

enum class CounterOp : std::uint8_t { Sum, Mul, Max };

inline Truth conjunction(Truth a, Truth b) {
  if (a == Truth::False || b == Truth::False) return Truth::False;
  if (a == Truth::True && b == Truth::True) return Truth::True;
  return Truth::Unknown;
}

inline Interval identity(CounterOp op) {
  return op == CounterOp::Mul ? Interval{1, 1} : Interval{0, 0};
}

inline Interval contribution(CounterOp op, Truth counted, Interval value) {
  if (counted == Truth::True) return value;
  Interval id = identity(op);
  if (counted == Truth::False) return id;
  return {std::min(id.lo, value.lo), std::max(id.hi, value.hi)};
}

inline Interval accumulate(CounterOp op, Interval total, Interval term) {
  if (op == CounterOp::Sum) return {sat_add(total.lo, term.lo), sat_add(total.hi, term.hi)};
  if (op == CounterOp::Max) return {std::max(total.lo, term.lo), std::max(total.hi, term.hi)};
  return {sat_mul(total.lo, term.lo), sat_mul(total.hi, term.hi)};
}

inline bool saturated(std::int64_t v) { return v <= -kInfinity || v >= kInfinity; }

/// Whether every total the terms can still reach lies within the bounds: nothing to enforce.
inline bool within_bounds(const CounterState& s) {
  return s.lo >= s.min_bound && s.hi <= s.max_bound;
}

/// Replaces one term of the derived bounds in place; false when that cannot be done exactly
/// (saturation, a zero factor, or a maximum that the old term reached and the new one does
/// not) and the counter must be derived again from scratch.
/// Half counters keep only their lower end.
inline bool replace_term(CounterOp op, bool half, CounterState& s, Interval old_term,
                         Interval new_term) {
  if (op == CounterOp::Max) {
    // Below the maximum, the old term leaves it to the others; at it, the maximum of the
    // others is unknown, unless the new term reaches at least as high.
    auto replace = [](std::int64_t& total, std::int64_t old_end, std::int64_t new_end) {
      if (old_end < total) {
        total = std::max(total, new_end);
        return true;
      }
      if (new_end < old_end) return false;
      total = new_end;
      return true;
    };
    CounterState t = s;
    if (!replace(t.lo, old_term.lo, new_term.lo)) return false;
    if (!half && !replace(t.hi, old_term.hi, new_term.hi)) return false;
    s = t;
    return true;
  }
  if (saturated(s.lo) || saturated(old_term.lo)) return false;
  if (!half && (saturated(s.hi) || saturated(old_term.hi))) return false;
  if (op == CounterOp::Sum) {
    s.lo = sat_add(s.lo - old_term.lo, new_term.lo);
    if (!half) s.hi = sat_add(s.hi - old_term.hi, new_term.hi);
    return true;
  }
  if (old_term.lo == 0 || (!half && old_term.hi == 0)) return false;
  s.lo = sat_mul(s.lo / old_term.lo, new_term.lo);
  if (!half) s.hi = sat_mul(s.hi / old_term.hi, new_term.hi);
  return true;
}

/// What the bounds imposed on a counter say about one of its terms.
struct TermSlack {
  bool forbid = false;                    // counting the term would exceed the upper bound
  bool force = false;                     // without the term the lower bound cannot be reached
  Interval value{-kInfinity, kInfinity};  // allowed values when the term is counted
};

/// Whether a term of a maximum can still reach the counter's lower bound.
inline bool max_witness(const CounterState& s, Truth counted, Interval value) {
  return counted != Truth::False && value.hi >= s.min_bound;
}

/// `witnesses`: for a maximum, how many of its terms are max_witness (the only one is forced).
[[gnu::always_inline]] inline TermSlack term_slack(CounterOp op, const CounterState& s,
                                                   Truth counted, Interval value,
                                                   std::size_t witnesses = 0) {
  TermSlack r;
  if (op == CounterOp::Max) {
    // Each counted value is capped by the upper bound; the lower bound needs one term to reach
    // it, which is forced when it is the last that can.
    if (s.max_bound < kInfinity) {
      if (counted == Truth::Unknown) r.forbid = value.lo > s.max_bound;
      r.value.hi = s.max_bound;
    }
    if (s.min_bound > -kInfinity && witnesses == 1 && max_witness(s, counted, value)) {
      r.force = counted == Truth::Unknown;
      r.value.lo = s.min_bound;
    }
    return r;
  }
  const Interval c = contribution(op, counted, value);
  const bool has_max = s.max_bound < kInfinity;
  const bool has_min = s.min_bound > -kInfinity;
  // The rest of the counter, without this term; unknown where saturated. Each end is only
  // read against its bound: a product's division is skipped when there is none.
  bool lo_ok = has_max && !saturated(s.lo) && !saturated(c.lo);
  bool hi_ok = has_min && !saturated(s.hi) && !saturated(c.hi);
  Interval rest{};
  if (op == CounterOp::Sum) {
    rest = {s.lo - c.lo, s.hi - c.hi};
  } else {
    lo_ok = lo_ok && c.lo > 0;
    hi_ok = hi_ok && c.hi > 0;
    // An uncertain term's lower end is the identity: no division.
    if (lo_ok) rest.lo = c.lo == 1 ? s.lo : s.lo / c.lo;
    if (hi_ok) rest.hi = s.hi / c.hi;
  }
  if (counted == Truth::Unknown) {
    if (lo_ok && !saturated(value.lo)) {
      std::int64_t with = op == CounterOp::Sum ? rest.lo + value.lo : sat_mul(rest.lo, value.lo);
      r.forbid = with > s.max_bound;
    }
    if (hi_ok) {
      std::int64_t without = rest.hi;  // the identity leaves the rest unchanged
      r.force = without < s.min_bound;
    }
  }
  if (counted == Truth::True) {
    if (op == CounterOp::Sum) {
      if (lo_ok) r.value.hi = s.max_bound - rest.lo;
      if (hi_ok) r.value.lo = s.min_bound - rest.hi;
    } else {
      if (lo_ok && rest.lo > 0) r.value.hi = s.max_bound / rest.lo;
      if (hi_ok && rest.hi > 0) r.value.lo = (s.min_bound + rest.hi - 1) / rest.hi;
    }
  }
  return r;
}

/// Whether the bounds on a sum or a product forbid, force or cut one of its terms (what its
/// enforcement would restrict), the rest of the counter being `s`.
inline bool term_needs_enforcing(CounterOp op, const CounterState& s, Truth counted,
                                 Interval value) {
  if (counted == Truth::False || within_bounds(s)) return false;
  const TermSlack slack = term_slack(op, s, counted, value);
  return slack.forbid || slack.force ||
         (counted == Truth::True && (value.lo < slack.value.lo || value.hi > slack.value.hi));
}

}  // namespace sculpt::spacegen
