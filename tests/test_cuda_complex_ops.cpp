// The formulas of the CUDA complex kernels (backend/cuda/complex_ops.h, Note [Complex kernels on CUDA]) run on the
// host and compared with std::complex (the C library's functions, which the CPU kernels use) and with long double
// where the formula exists to avoid a cancellation. Needs the toolkit's CCCL headers (libcu++); skips without them.
#include <gtest/gtest.h>

#if defined(EMBER_HAVE_CCCL)
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "ember/backend/cuda/complex_ops.h"

using namespace ember;
using namespace ember::cuda::complex_ops;

namespace {

using CD = std::complex<double>;

CD ref(UnaryOp op, CD z) {
  const double ln2 = std::numbers::ln2;
  switch (op) {
    case UnaryOp::Neg: return -z;
    case UnaryOp::Sgn: return z == CD(0) ? CD(0) : z / std::abs(z);
    case UnaryOp::Square: return z * z;
    case UnaryOp::Reciprocal: return CD(1) / z;
    case UnaryOp::Sqrt: return std::sqrt(z);
    case UnaryOp::Rsqrt: return CD(1) / std::sqrt(z);
    case UnaryOp::Exp: return std::exp(z);
    case UnaryOp::Exp2: return std::pow(CD(2), z);
    case UnaryOp::Expm1: {
      const std::complex<long double> w(z.real(), z.imag());
      const auto r = std::exp(w) - 1.0L;
      return {static_cast<double>(r.real()), static_cast<double>(r.imag())};
    }
    case UnaryOp::Log: return std::log(z);
    case UnaryOp::Log2: return std::log(z) / ln2;
    case UnaryOp::Log10: return std::log10(z);
    case UnaryOp::Log1p: {
      const std::complex<long double> w(z.real(), z.imag());
      const auto r = std::log(1.0L + w);
      return {static_cast<double>(r.real()), static_cast<double>(r.imag())};
    }
    case UnaryOp::Sin: return std::sin(z);
    case UnaryOp::Cos: return std::cos(z);
    case UnaryOp::Tan: return std::tan(z);
    case UnaryOp::Asin: return std::asin(z);
    case UnaryOp::Acos: return std::acos(z);
    case UnaryOp::Atan: return std::atan(z);
    case UnaryOp::Sinh: return std::sinh(z);
    case UnaryOp::Cosh: return std::cosh(z);
    case UnaryOp::Tanh: return std::tanh(z);
    case UnaryOp::Asinh: return std::asinh(z);
    case UnaryOp::Acosh: return std::acosh(z);
    case UnaryOp::Atanh: return std::atanh(z);
    case UnaryOp::Sigmoid: return CD(1) / (CD(1) + std::exp(-z));
    default: ADD_FAILURE() << "no reference"; return {};
  }
}

const std::vector<UnaryOp> kUnary = {
    UnaryOp::Neg,  UnaryOp::Sgn,   UnaryOp::Square, UnaryOp::Reciprocal, UnaryOp::Sqrt,   UnaryOp::Rsqrt, UnaryOp::Exp,
    UnaryOp::Exp2, UnaryOp::Expm1, UnaryOp::Log,    UnaryOp::Log2,       UnaryOp::Log10,  UnaryOp::Log1p, UnaryOp::Sin,
    UnaryOp::Cos,  UnaryOp::Tan,   UnaryOp::Asin,   UnaryOp::Acos,       UnaryOp::Atan,   UnaryOp::Sinh,  UnaryOp::Cosh,
    UnaryOp::Tanh, UnaryOp::Asinh, UnaryOp::Acosh,  UnaryOp::Atanh,      UnaryOp::Sigmoid};

// Random points (both scales), points near zero, and points on the real and imaginary axes away from branch cuts.
std::vector<CD> points() {
  std::mt19937 rng(7);
  std::normal_distribution<double> n;
  std::vector<CD> v;
  for (int i = 0; i < 200; ++i) v.emplace_back(n(rng) * (i % 2 ? 3.0 : 1.0), n(rng) * (i % 3 ? 1.0 : 3.0));
  for (double s : {1e-9, 1e-5, 0.3}) v.insert(v.end(), {CD(s, s), CD(-s, 2 * s), CD(s, -s)});
  v.insert(v.end(), {CD(0.5, 0), CD(-0.5, 0), CD(0, 0.5), CD(0, -0.5), CD(2, 0)});
  return v;
}

bool close(CD got, CD want, double rtol) {
  const double scale = std::max(1.0, std::abs(want));
  return std::abs(got - want) <= rtol * scale;
}

TEST(CudaComplexOps, UnaryFunctionsMatchTheCLibraryInDouble) {
  for (UnaryOp op : kUnary) {
    ASSERT_TRUE(unary_same(op)) << static_cast<int>(op);
    for (CD z : points()) {
      const Complex<double> r = UnaryFn<double>{op}(Complex<double>(z.real(), z.imag()));
      const CD want = ref(op, z);
      // Expm1 and Log1p are compared with long double: near zero, exp(z) - 1 in double would lose the digits.
      EXPECT_TRUE(close({r.re, r.im}, want, 1e-12))
          << "op " << static_cast<int>(op) << " at " << z << ": got (" << r.re << ", " << r.im << "), want " << want;
    }
  }
}

TEST(CudaComplexOps, UnaryFunctionsMatchInFloat) {
  for (UnaryOp op : kUnary) {
    for (CD z : points()) {
      const Complex<float> r = UnaryFn<float>{op}(
          Complex<float>(static_cast<float>(z.real()), static_cast<float>(z.imag())));
      const CD zf(static_cast<float>(z.real()), static_cast<float>(z.imag()));
      const CD want = ref(op, zf);
      if (!std::isfinite(want.real()) || !std::isfinite(want.imag()) || std::abs(want) > 1e30) continue;
      EXPECT_TRUE(close({r.re, r.im}, want, 2e-5))
          << "op " << static_cast<int>(op) << " at " << zf << ": got (" << r.re << ", " << r.im << "), want " << want;
    }
  }
}

TEST(CudaComplexOps, SpecialValues) {
  using C = Complex<double>;
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(UnaryFn<double>{UnaryOp::Sgn}(C(0, 0)), C(0, 0));
  EXPECT_EQ(UnaryFn<double>{UnaryOp::Sgn}(C(0, -3)), C(0, -1));
  EXPECT_EQ(UnaryFn<double>{UnaryOp::Exp}(C(0, 0)), C(1, 0));
  // Expm1 keeps the digits of a tiny argument (exp(z) - 1 in double would give 0 for the real part).
  const C e = UnaryFn<double>{UnaryOp::Expm1}(C(1e-20, 0));
  EXPECT_DOUBLE_EQ(e.re, 1e-20);
  EXPECT_EQ(e.im, 0.0);
  EXPECT_EQ(AbsFn<double>{}(C(3, 4)), 5.0);
  EXPECT_EQ(AbsFn<double>{}(C(-inf, nan)), inf);  // hypot: an infinite part wins over NaN, as C's cabs
  PredFn<double> isnan{UnaryOp::IsNan}, isinf{UnaryOp::IsInf}, isfinite{UnaryOp::IsFinite}, lnot{UnaryOp::LogicalNot};
  EXPECT_TRUE(isnan(C(1, nan)));
  EXPECT_FALSE(isnan(C(inf, 1)));
  EXPECT_TRUE(isinf(C(1, -inf)));
  EXPECT_FALSE(isinf(C(nan, 1)));
  EXPECT_TRUE(isfinite(C(1, 2)));
  EXPECT_FALSE(isfinite(C(1, nan)));
  EXPECT_TRUE(lnot(C(0, -0.0)));
  EXPECT_FALSE(lnot(C(0, 1e-300)));
}

TEST(CudaComplexOps, ArithmeticMatchesStdComplex) {
  using C = Complex<double>;
  std::mt19937 rng(3);
  std::normal_distribution<double> n;
  const C s(2, -1);
  for (int i = 0; i < 200; ++i) {
    const C a(n(rng), n(rng)), b(n(rng), n(rng));
    const CD x(a.re, a.im), y(b.re, b.im), sd(s.re, s.im);
    auto check = [&](Arith op, CD want) {
      const C r = ArithFn<double>{op, s}(a, b);
      EXPECT_TRUE(close({r.re, r.im}, want, 1e-13)) << static_cast<int>(op) << " " << x << " " << y;
    };
    check(Arith::Add, x + y);
    check(Arith::Sub, x - y);
    check(Arith::AddScaled, x + sd * y);
    check(Arith::Mul, x * y);
    check(Arith::Div, x / y);
    check(Arith::Pow, std::pow(x, y));
    EXPECT_FALSE(EqFn<double>{false}(a, b));
    EXPECT_TRUE(EqFn<double>{false}(a, a));
    EXPECT_TRUE(EqFn<double>{true}(a, b));
    EXPECT_EQ(WhereFn<double>{}(C(0, 0), a, b), b);
    EXPECT_EQ(WhereFn<double>{}(C(0, 1), a, b), a);  // a condition is true when either part is nonzero
  }
}

TEST(CudaComplexOps, ArithmeticSpecialCases) {
  using C = Complex<double>;
  const double inf = std::numeric_limits<double>::infinity();
  // a + b and a - b do not multiply b by alpha = +-1: an infinite part of b stays infinite instead of 0 * inf = NaN.
  const C a(1, 1), b(inf, 0);
  const C add = ArithFn<double>{Arith::Add, C(1)}(a, b), sub = ArithFn<double>{Arith::Sub, C(-1)}(a, b);
  EXPECT_EQ(add.re, inf);
  EXPECT_EQ(add.im, 1.0);
  EXPECT_EQ(sub.re, -inf);
  EXPECT_EQ(sub.im, 1.0);
  // z ** 2 is z * z (exact), z ** 0 is 1 for every z, 0 ** 0 included (Python's and PyTorch's rule).
  const C z(0.1, 3);
  EXPECT_EQ((ArithFn<double>{Arith::Pow, C(1)}(z, C(2))), z * z);
  EXPECT_EQ((ArithFn<double>{Arith::Pow, C(1)}(C(0, 0), C(0))), C(1));
  EXPECT_EQ((ArithFn<double>{Arith::Pow, C(1)}(C(std::nan(""), 1), C(0))), C(1));
  // Division by zero gives non-finite parts, as C's.
  const C q = ArithFn<double>{Arith::Div, C(1)}(C(1, 0), C(0, 0));
  EXPECT_FALSE(std::isfinite(q.re) && std::isfinite(q.im));
}

}  // namespace

#else

TEST(CudaComplexOps, NeedsTheToolkitsCcclHeaders) {
  GTEST_SKIP() << "the CUDA toolkit's CCCL headers (cuda/std/complex) were not found at configure time";
}

#endif
