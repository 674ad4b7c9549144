// The reference derived from a definition (frontend/tc_reference.h) against the same kernels
// written out as loops, bit for bit, at sizes that split its batches (256 elements along the
// last left-hand index) unevenly: every term in double, accumulated in increasing order of the
// reduced indices, rounded to the tensor's type once.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "backbone/host_args.h"
#include "backbone/reference.h"
#include "frontend/definition.h"

namespace sculpt::frontend {
namespace {

using backbone::ElemType;
using backbone::HostArgs;
using backbone::Sizes;

struct Case {
  std::string name;
  std::string text;
  std::string sizes;
  /// The outputs computed in `args` by plain loops.
  std::function<void(const Sizes&, HostArgs& args)> by_hand;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

double at(const HostArgs& args, const char* array, int64_t i) { return args.array(array).get(i); }

class DerivedReference : public ::testing::TestWithParam<Case> {};

TEST_P(DerivedReference, ComputesWhatLoopsCompute) {
  const Case& c = GetParam();
  const DefinitionLookup lookup = lookup_definition(c.text, "t.tc", "", c.sizes);
  ASSERT_TRUE(lookup.ok()) << lookup.error;
  const backbone::Kernel kernel = lookup.info->build(lookup.sizes);
  HostArgs expected = backbone::make_host_args(kernel, 3);
  HostArgs derived = expected;
  c.by_hand(lookup.sizes, expected);
  lookup.info->reference(lookup.sizes, derived);
  const std::optional<backbone::Mismatch> mismatch =
      backbone::compare_outputs(kernel, expected, derived, 0);
  EXPECT_FALSE(mismatch) << mismatch->to_string();
}

void matmul(const Sizes& s, HostArgs& args) {
  const int64_t m = s.at("M"), n = s.at("N"), k = s.at("K");
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += at(args, "A", i * k + p) * at(args, "B", p * n + j);
      args.array("C").set(i * n + j, static_cast<float>(acc));
    }
  }
}

void matvec(const Sizes& s, HostArgs& args) {
  const int64_t m = s.at("M"), n = s.at("N");
  for (int64_t i = 0; i < m; ++i) {
    double acc = 0;
    for (int64_t j = 0; j < n; ++j) acc += at(args, "A", i * n + j) * at(args, "x", j);
    args.array("y").set(i, static_cast<float>(acc));
  }
}

void batched(const Sizes& s, HostArgs& args) {
  const int64_t b = s.at("B"), m = s.at("M"), n = s.at("N"), k = s.at("K");
  for (int64_t q = 0; q < b; ++q) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          acc += at(args, "X", (q * m + i) * k + p) * at(args, "Y", (q * k + p) * n + j);
        }
        args.array("Z").set((q * m + i) * n + j, static_cast<float>(acc));
      }
    }
  }
}

// Into the output's own values, read transposed.
void accumulate_transposed(const Sizes& s, HostArgs& args) {
  const int64_t m = s.at("M"), n = s.at("N");
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const double sum = at(args, "C", i * n + j) + at(args, "A", j * m + i);
      args.array("C").set(i * n + j, static_cast<float>(sum));
    }
  }
}

void convolution(const Sizes& s, HostArgs& args) {
  const int64_t n = s.at("N"), k = s.at("K");
  for (int64_t i = 0; i + k <= n; ++i) {
    double acc = 0;
    for (int64_t p = 0; p < k; ++p) acc += at(args, "X", i + p) * at(args, "W", p);
    args.array("Y").set(i, static_cast<float>(acc));
  }
}

void row_max(const Sizes& s, HostArgs& args) {
  const int64_t m = s.at("M"), n = s.at("N");
  for (int64_t i = 0; i < m; ++i) {
    double acc = std::numeric_limits<float>::lowest();
    for (int64_t j = 0; j < n; ++j) acc = std::max(acc, at(args, "A", i * n + j));
    args.array("C").set(i, static_cast<float>(acc));
  }
}

// int32 operations truncate; a division by zero gives 0.
void integer_division(const Sizes& s, HostArgs& args) {
  for (int64_t i = 0; i < s.at("N"); ++i) {
    const double x = at(args, "X", i), y = at(args, "Y", i);
    const double quotient = y == 0 ? 0 : std::trunc(x / y);
    args.array("Z").set(i, quotient + static_cast<double>(i));
  }
}

// A temporary read by a later statement, a select on a comparison.
void through_a_temporary(const Sizes& s, HostArgs& args) {
  const int64_t m = s.at("M"), n = s.at("N");
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const float t = static_cast<float>(at(args, "A", i * n + j) * 2);
      args.array("Y").set(i * n + j, t > 0.5f ? t : static_cast<float>(-static_cast<double>(t)));
    }
  }
}

// A layer normalisation: each temporary rounded to float, the expression of each in double, the
// square root included.
void layernorm(const Sizes& s, HostArgs& args) {
  const int64_t rows = s.at("R"), cols = s.at("C");
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      sum += at(args, "X", r * cols + c) / static_cast<double>(cols);
    }
    const float mean = static_cast<float>(sum);
    std::vector<float> d(cols);
    double squares = 0;
    for (int64_t c = 0; c < cols; ++c) {
      d[c] = static_cast<float>(at(args, "X", r * cols + c) - mean);
      squares += static_cast<double>(d[c]) * d[c] / static_cast<double>(cols);
    }
    const float var = static_cast<float>(squares);
    for (int64_t c = 0; c < cols; ++c) {
      args.array("Y").set(r * cols + c, static_cast<float>(d[c] / std::sqrt(var + 1e-5)));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Definitions, DerivedReference,
    ::testing::Values(
        Case{"matmul", "def mm(float(M,K) A, float(K,N) B) -> (C) { C(m,n) +=! A(m,k) * B(k,n) }",
             "M=3,N=300,K=5", matmul},
        Case{"matvec", "def mv(float(M,N) A, float(N) x) -> (y) { y(m) +=! A(m,n) * x(n) }",
             "M=600,N=3", matvec},
        Case{"batched",
             "def bmm(float(B,M,K) X, float(B,K,N) Y) -> (Z) {\n"
             "  Z(b,m,n) +=! X(b,m,k) * Y(b,k,n)\n}",
             "B=2,M=3,N=260,K=4", batched},
        Case{"accumulate_transposed", "def acc(float(N,M) A) -> (C) { C(m,n) += A(n,m) }",
             "M=3,N=270", accumulate_transposed},
        Case{"convolution", "def conv(float(N) X, float(K) W) -> (Y) { Y(i) +=! X(i+k) * W(k) }",
             "N=600,K=3", convolution},
        Case{"row_max", "def rmax(float(M,N) A) -> (C) { C(m) max=! A(m,n) }", "M=2,N=300",
             row_max},
        Case{"integer_division",
             "def idiv(int32(N) X, int32(N) Y) -> (Z) { Z(i) = X(i) / Y(i) + i }", "N=300",
             integer_division},
        Case{"through_a_temporary",
             "def tmp(float(M,N) A) -> (Y) {\n"
             "  T(m,n) = A(m,n) * 2\n"
             "  Y(m,n) = T(m,n) > 0.5 ? T(m,n) : -T(m,n)\n}",
             "M=2,N=300", through_a_temporary},
        Case{"layernorm",
             "def layernorm(float(R,C) X) -> (Y) {\n"
             "  mean(r) +=! X(r,c) / C\n"
             "  d(r,c) = X(r,c) - mean(r)\n"
             "  var(r) +=! d(r,c) * d(r,c) / C\n"
             "  Y(r,c) = d(r,c) / sqrt(var(r) + 1e-5)\n}",
             "R=3,C=300", layernorm}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace sculpt::frontend
