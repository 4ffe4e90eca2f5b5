// Special functions for every backend (Note [Shared elementwise math] in common.h): the gamma family, modified
// Bessel functions of order 0 and 1, the normal distribution, the regularized incomplete gamma functions, Hurwitz's
// zeta, the orthogonal polynomials, and the small ones (sinc, entr, xlogy, logaddexp, gcd, nextafter, heaviside).
// The rows of ember/ops/unary.def and binary.def that name their formula (EMBER_*_SPECIAL) become the cases of the
// kernels' switches below.
//
// Note [Special function methods]
// Each function is written from a standard method, templated on the type it computes in (float for float32 and the
// 16-bit types, double for float64), with its stopping tolerance from that type's epsilon:
// - digamma, trigamma: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series in the
//   Bernoulli numbers; reflection (pi cot(pi x), pi^2 / sin^2(pi x)) below 0 and 0.5;
// - zeta(s, q) (Hurwitz): Euler-Maclaurin summation, nine terms and more until q + N > 9, then the integral, the
//   half endpoint and the Bernoulli corrections; polygamma(n >= 2, x) = (-1)^(n+1) n! zeta(n + 1, x);
// - I0, I1 (and the scaled I0e, I1e): the power series up to |x| = 25 (float: 12), then the asymptotic expansion
//   e^x / sqrt(2 pi x) sum (-1)^k prod (4 nu^2 - (2j-1)^2) / (k! (8x)^k), whose smallest term is about e^(-2x);
// - erfcx: exp(x^2) erfc(x) with x^2 split exactly (fma) below 4 (float: 2.5), Laplace's continued fraction above,
//   and 2 exp(x^2) - erfcx(-x) for x < 0; ndtr and log_ndtr from erfc and erfcx (no cancellation in either tail);
// - ndtri: sqrt(2) erfinv(2p - 1) for p in [1/8, 7/8]; in the tails Abramowitz-Stegun 26.2.23 (error < 4.5e-4)
//   refined by Newton steps on log_ndtr(x) = log(p), which converge quadratically;
// - the orthogonal polynomials: three-term recurrences (Chebyshev: also cos(n acos x)-type forms for |x| < 1);
// - igamma, igammac: the series of P(a, x) for x < a + 1, else Lentz's evaluation of the continued fraction of
//   Q(a, x); the prefactor x^a e^-x / Gamma(a) in logarithms. Near x ~ a the iteration count grows like sqrt(a)
//   (capped; relative accuracy about 1e-9 for a beyond 1e5).
// Edge values follow PyTorch (tested in python/tests/test_special.py), except where docs/differences.md says.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ember/backend/math/bessel.h"
#include "ember/backend/math/common.h"
#include "ember/backend/math/unary.h"
#include "ember/error.h"
#include "ember/ops/binary_op.h"
#include "ember/ops/unary.h"

namespace ember::math {

namespace sf {

template <class A>
EMBER_HOST_DEVICE constexpr A eps() {
  return std::numeric_limits<A>::epsilon();
}
template <class A>
EMBER_HOST_DEVICE constexpr A inf() {
  return std::numeric_limits<A>::infinity();
}
template <class A>
EMBER_HOST_DEVICE constexpr A nan() {
  return std::numeric_limits<A>::quiet_NaN();
}
template <class A>
EMBER_HOST_DEVICE constexpr A pi() {
  return A(3.14159265358979323846);
}
template <class A>
EMBER_HOST_DEVICE constexpr bool is_double() {
  return std::is_same_v<A, double>;
}

// psi(x) for x > 0 (and +inf, NaN).
template <class A>
EMBER_HOST_DEVICE A digamma_positive(A x) {
  A acc = 0;
  while (x < A(10)) {
    acc -= A(1) / x;
    x += A(1);
  }
  if (x == inf<A>()) return x;
  // sum_k B_2k / (2k x^2k), k = 1..7
  const A z = A(1) / (x * x);
  const A s = z * (A(1.0 / 12) -
                   z * (A(1.0 / 120) -
                        z * (A(1.0 / 252) -
                             z * (A(1.0 / 240) - z * (A(1.0 / 132) - z * (A(691.0 / 32760) - z * A(1.0 / 12)))))));
  return acc + std::log(x) - A(0.5) / x - s;
}

template <class A>
EMBER_HOST_DEVICE A digamma(A x) {
  if (x == A(0)) return std::copysign(inf<A>(), -x);  // as PyTorch: -inf at +0, +inf at -0
  if (x < A(0)) {
    if (x == std::trunc(x)) return nan<A>();  // the poles, and -inf
    // psi(x) = psi(1 - x) - pi cot(pi x); tan has period pi, and pi (x - round(x)) is small and accurate near poles
    return digamma_positive(A(1) - x) - pi<A>() / std::tan(pi<A>() * (x - std::round(x)));
  }
  return digamma_positive(x);
}

// psi'(x) for x >= 0.5 (and +inf, NaN).
template <class A>
EMBER_HOST_DEVICE A trigamma_positive(A x) {
  A acc = 0;
  while (x < A(10)) {
    acc += A(1) / (x * x);
    x += A(1);
  }
  if (x == inf<A>()) return acc;
  // 1/x + 1/(2x^2) + sum_k B_2k / x^(2k+1), k = 1..7
  const A z = A(1) / (x * x);
  const A s = z *
              (A(1.0 / 6) - z * (A(1.0 / 30) -
                                 z * (A(1.0 / 42) -
                                      z * (A(1.0 / 30) - z * (A(5.0 / 66) - z * (A(691.0 / 2730) - z * A(7.0 / 6)))))));
  return acc + (A(1) + A(0.5) / x + s) / x;
}

template <class A>
EMBER_HOST_DEVICE A trigamma(A x) {
  if (x == -inf<A>()) return nan<A>();
  if (x < A(0.5)) {  // psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x): +inf at the poles
    const A s = std::sin(pi<A>() * (x - std::round(x)));
    return pi<A>() * pi<A>() / (s * s) - trigamma_positive(A(1) - x);
  }
  return trigamma_positive(x);
}

// Hurwitz's zeta(s, q) = sum_k (q + k)^-s.
template <class A>
EMBER_HOST_DEVICE A zeta(A s, A q) {
  if (s == A(1)) return inf<A>();
  if (s < A(1)) return nan<A>();
  if (q <= A(0)) {
    if (q == std::floor(q)) return inf<A>();
    if (s != std::floor(s)) return nan<A>();  // (q + k)^-s of a negative base is not real
  }
  A sum = 0, a = q;
  int n = 0;
  while (n < 9 || a <= A(9)) {
    sum += std::pow(a, -s);
    a += A(1);
    ++n;
  }
  // Euler-Maclaurin from w = q + n: w^(1-s) / (s-1) + w^-s / 2 + sum_j B_2j / (2j)! (s)_(2j-1) w^(-s-2j+1)
  constexpr double c[] = {8.3333333333333333e-02,  -1.3888888888888889e-03, 3.3068783068783069e-05,
                          -8.2671957671957672e-07, 2.0876756987868099e-08,  -5.2841901386874932e-10,
                          1.3382536530684679e-11,  -3.3896802963225827e-13, 8.5860620562778446e-15,
                          -2.1748686985580619e-16, 5.5090028283602295e-18,  -1.3954464685812522e-19};
  const A w = a, wp = std::pow(w, -s);
  sum += w * wp / (s - A(1)) + A(0.5) * wp;
  A rising = s, pw = wp / w;  // (s)_(2j-1) and w^(-s-2j+1)
  for (int j = 0; j < 12; ++j) {
    const A t = A(c[j]) * rising * pw;
    sum += t;
    if (std::fabs(t) <= eps<A>() * std::fabs(sum)) break;
    rising *= (s + A(2 * j + 1)) * (s + A(2 * j + 2));
    pw /= w * w;
  }
  return sum;
}

template <class A>
EMBER_HOST_DEVICE A polygamma(int n, A x) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  const A sign = (n % 2) ? A(1) : A(-1);
  return sign * std::exp(std::lgamma(A(n) + A(1))) * zeta(A(n) + A(1), x);  // not n + 1: n may be INT_MAX
}

// The Bessel functions: series for |x| <= kBesselSwitch, the scaled asymptotic expansion above.
template <class A>
EMBER_HOST_DEVICE constexpr A bessel_switch() {
  return is_double<A>() ? A(25) : A(12);
}

// I_nu(x) for 0 <= x <= bessel_switch, nu = 0 or 1: (x/2)^nu sum_k (x^2/4)^k / (k! (k + nu)!).
template <class A>
EMBER_HOST_DEVICE A bessel_i_series(A x, int nu) {
  const A y = x * x / A(4);
  A term = 1, sum = 1;
  for (int k = 1; k < 200; ++k) {
    term *= y / (A(k) * A(k + nu));
    sum += term;
    if (term <= eps<A>() * sum) break;
  }
  return nu ? sum * x / A(2) : sum;
}

// I_nu(x) e^-x for x > bessel_switch (and +inf, NaN).
template <class A>
EMBER_HOST_DEVICE A bessel_i_scaled_asymptotic(A x, int nu) {
  const A mu = A(4 * nu * nu);
  A term = 1, sum = 1;
  for (int k = 1; k < 100; ++k) {
    const A odd = A(2 * k - 1);
    const A next = -term * (mu - odd * odd) / (A(8 * k) * x);
    if (std::fabs(next) >= std::fabs(term)) break;  // the series diverges from here on
    term = next;
    sum += term;
    if (std::fabs(term) <= eps<A>() * std::fabs(sum)) break;
  }
  return sum / std::sqrt(A(2) * pi<A>() * x);
}

// I_nu(|x|) (scaled: e^-|x| I_nu(|x|)).
template <class A>
EMBER_HOST_DEVICE A bessel_i(A x, int nu, bool scaled) {
  const A ax = std::fabs(x);
  if (ax <= bessel_switch<A>()) {
    const A v = bessel_i_series(ax, nu);
    return scaled ? v * std::exp(-ax) : v;
  }
  if (ax == inf<A>()) return scaled ? A(0) : nan<A>();  // as PyTorch and Cephes: I0(inf), I1(inf) are NaN
  const A v = bessel_i_scaled_asymptotic(ax, nu);
  if (scaled) return v;
  const A h = std::exp(ax / A(2));  // in two halves: finite up to where I_nu itself overflows
  return h * v * h;
}

template <class A>
EMBER_HOST_DEVICE A i0(A x) {
  return bessel_i(x, 0, false);
}
template <class A>
EMBER_HOST_DEVICE A i0e(A x) {
  return bessel_i(x, 0, true);
}
template <class A>
EMBER_HOST_DEVICE A i1(A x) {  // odd
  const A v = bessel_i(x, 1, false);
  return x < A(0) ? -v : v;
}
template <class A>
EMBER_HOST_DEVICE A i1e(A x) {
  const A v = bessel_i(x, 1, true);
  return x < A(0) ? -v : v;
}

// exp(x^2) with x^2 = h + l split exactly, so that the rounding of x^2 is not amplified.
template <class A>
EMBER_HOST_DEVICE A exp_square(A x) {
  const A h = x * x, l = std::fma(x, x, -h);
  return std::exp(h) * (A(1) + l);
}

// erfcx for x >= 0 (and +inf, NaN).
template <class A>
EMBER_HOST_DEVICE A erfcx_nonnegative(A x) {
  if (x < A(is_double<A>() ? 4 : 2.5)) return exp_square(x) * std::erfc(x);
  // Laplace's continued fraction: erfc(x) = exp(-x^2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))))
  A f = x;
  for (int k = is_double<A>() ? 24 : 12; k >= 1; --k) f = x + A(0.5 * k) / f;
  return A(0.56418958354775628695) / f;  // 1 / sqrt(pi)
}

template <class A>
EMBER_HOST_DEVICE A erfcx(A x) {
  if (x >= A(0) || x != x) return erfcx_nonnegative(x);
  if (x < A(is_double<A>() ? -26.7 : -9.4)) return inf<A>();  // 2 exp(x^2) overflows
  return A(2) * exp_square(x) - erfcx_nonnegative(-x);
}

template <class A>
EMBER_HOST_DEVICE A ndtr(A x) {
  return A(0.5) * std::erfc(-x * A(0.70710678118654752440));
}

template <class A>
EMBER_HOST_DEVICE A log_ndtr(A x) {
  const A t = x * A(0.70710678118654752440);
  if (x < A(-1)) return std::log(A(0.5) * erfcx(-t)) - t * t;
  return std::log1p(A(-0.5) * std::erfc(t));
}

template <class A>
EMBER_HOST_DEVICE A ndtri(A p) {
  if (p != p) return p;
  if (p <= A(0) || p >= A(1)) return p == A(0) ? -inf<A>() : p == A(1) ? inf<A>() : nan<A>();
  if (p >= A(0.125) && p <= A(0.875))  // sqrt(2) erfinv(2p - 1): accurate near p = 1/2, where x is small
    return static_cast<A>(1.41421356237309504880 * erfinv(2.0 * static_cast<double>(p) - 1.0));
  const bool upper = p > A(0.5);
  const A q = upper ? A(1) - p : p;  // exact (Sterbenz)
  const A t = std::sqrt(A(-2) * std::log(q));
  A x = -(t - (A(2.515517) + t * (A(0.802853) + t * A(0.010328))) /
                  (A(1) + t * (A(1.432788) + t * (A(0.189269) + t * A(0.001308)))));
  const A lq = std::log(q);
  // Newton on log ndtr(x) = log q: the step is (log ndtr(x) - log q) ndtr(x) / pdf(x), and
  // ndtr(x) / pdf(x) = sqrt(pi/2) erfcx(-x/sqrt2)
  for (int i = 0; i < (is_double<A>() ? 4 : 3); ++i)
    x -= (log_ndtr(x) - lq) * A(1.25331413731550025121) * erfcx(-x * A(0.70710678118654752440));
  return upper ? -x : x;
}

template <class A>
EMBER_HOST_DEVICE A entr(A x) {
  if (x != x) return x;
  if (x > A(0)) return -x * std::log(x);
  if (x == A(0)) return A(0);
  return -inf<A>();
}

template <class A>
EMBER_HOST_DEVICE A lgamma(A x) {
  return std::lgamma(x);
}
template <class A>
EMBER_HOST_DEVICE A deg2rad(A x) {
  return x * A(M_PI / 180.0);
}
template <class A>
EMBER_HOST_DEVICE A rad2deg(A x) {
  return x * A(180.0 / M_PI);
}

template <class A>
EMBER_HOST_DEVICE A sinc(A x) {
  if (x == A(0)) return A(1);
  const A px = pi<A>() * x;
  return std::sin(px) / px;
}

// x^a e^-x / Gamma(a + 1) (plus_one) or / Gamma(a), in double: the exponent is a difference of terms of size
// a log x, which float would leave with an absolute error of about 1 for a ~ 1e6.
template <class A>
EMBER_HOST_DEVICE A log_gamma_prefactor(A a, A x, bool plus_one) {
  const double ad = a, xd = x;
  return static_cast<A>(std::exp(ad * std::log(xd) - xd - std::lgamma(plus_one ? ad + 1.0 : ad)));
}

// The regularized lower (P) and upper (Q) incomplete gamma functions; edge values as PyTorch's.
template <class A>
EMBER_HOST_DEVICE A incomplete_gamma(A a, A x, bool upper) {
  if (x < A(0) || a < A(0)) return nan<A>();
  if (a == A(0)) return x > A(0) ? A(upper ? 0 : 1) : nan<A>();
  if (x == A(0)) return A(upper ? 1 : 0);
  if (a == inf<A>()) return x == inf<A>() ? nan<A>() : A(upper ? 1 : 0);
  if (x == inf<A>()) return A(upper ? 0 : 1);
  if (a != a || x != x) return nan<A>();
  constexpr int kMaxIter = 20000;
  if (x < a + A(1)) {  // P = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a+1) ... (a+n))
    A r = a, term = 1, sum = 1;
    for (int n = 0; n < kMaxIter; ++n) {
      r += A(1);
      term *= x / r;
      sum += term;
      if (term <= sum * eps<A>()) break;
    }
    const A p = sum * log_gamma_prefactor(a, x, true);
    return upper ? A(1) - p : p;
  }
  // Q = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...))), by Lentz
  const A tiny = A(1e-30);
  A b = x + A(1) - a, c = A(1) / tiny, d = A(1) / b, h = d;
  for (int i = 1; i < kMaxIter; ++i) {
    const A an = -A(i) * (A(i) - a);
    b += A(2);
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = A(1) / d;
    const A delta = d * c;
    h *= delta;
    if (std::fabs(delta - A(1)) <= eps<A>()) break;
  }
  const A q = h * log_gamma_prefactor(a, x, false);
  return upper ? q : A(1) - q;
}

template <class A>
EMBER_HOST_DEVICE A igamma(A a, A x) {
  return incomplete_gamma(a, x, false);
}
template <class A>
EMBER_HOST_DEVICE A igammac(A a, A x) {
  return incomplete_gamma(a, x, true);
}

// x log(y) and x log(1 + y), 0 where x is 0 (unless y is NaN).
template <class A>
EMBER_HOST_DEVICE A xlogy(A x, A y) {
  return y != y ? y : x == A(0) ? A(0) : x * std::log(y);
}
template <class A>
EMBER_HOST_DEVICE A xlog1py(A x, A y) {
  return y != y ? y : x == A(0) ? A(0) : x * std::log1p(y);
}

template <class A>
EMBER_HOST_DEVICE A logaddexp(A a, A b) {
  if (std::isinf(a) && a == b) return a;
  const A m = a > b ? a : b;
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

template <class A>
EMBER_HOST_DEVICE A logaddexp2(A a, A b) {
  if (std::isinf(a) && a == b) return a;
  const A m = a > b ? a : b;
  return m + std::log1p(std::exp2(-std::fabs(a - b))) * A(1.44269504088896340736);  // 1 / ln 2
}

// Magnitudes in the unsigned type, so that the most negative value does not overflow (it wraps as in PyTorch).
template <class T>
EMBER_HOST_DEVICE std::make_unsigned_t<T> magnitude(T a) {
  using U = std::make_unsigned_t<T>;
  if constexpr (std::is_signed_v<T>)
    return a < 0 ? static_cast<U>(U(0) - static_cast<U>(a)) : static_cast<U>(a);
  else
    return a;
}

template <class T>
EMBER_HOST_DEVICE T gcd(T a, T b) {
  auto x = magnitude(a), y = magnitude(b);
  while (y != 0) {
    const auto r = static_cast<decltype(x)>(x % y);
    x = y;
    y = r;
  }
  return static_cast<T>(x);
}

template <class T>
EMBER_HOST_DEVICE T lcm(T a, T b) {
  const auto g = magnitude(gcd(a, b));
  if (g == 0) return T(0);
  return static_cast<T>(static_cast<decltype(g)>(magnitude(a) / g * magnitude(b)));
}

// nextafter of the 16-bit floats, on their bits.
template <class T>
EMBER_HOST_DEVICE T nextafter16(T a, T b) {
  const float fa = a, fb = b;
  if (fa != fa || fb != fb) return T(fa + fb);
  if (fa == fb) return b;
  if (fa == 0.0f) return T::from_bits(static_cast<uint16_t>((b.x & 0x8000u) | 1u));
  const bool away_from_zero = (fa < fb) == (fa > 0.0f);
  return T::from_bits(static_cast<uint16_t>(away_from_zero ? a.x + 1u : a.x - 1u));
}

// The orthogonal polynomials p_n(x) (ember::Polynomial), n already truncated and >= 0. Chebyshev-type families
// by their three-term recurrence (p_{k+1} = 2x p_k - p_{k-1}), or for |x| < 1 and n > 8 by their trigonometric forms
// in theta = acos(x), as PyTorch; their exact values at x = +-1; the others by their recurrences. A recurrence stops
// once its value is no longer finite.
enum class ChebyshevKind : uint8_t { T, U, V, W };

template <class A>
EMBER_HOST_DEVICE A chebyshev(ChebyshevKind kind, A x, int64_t n) {
  using K = ChebyshevKind;
  const bool odd = n % 2 != 0;
  const A n1 = A(n + 1), n21 = A(2 * n + 1);
  if (x == A(1)) return kind == K::T || kind == K::V ? A(1) : kind == K::U ? n1 : n21;
  if (x == A(-1)) {
    const A m = kind == K::T || kind == K::W ? A(1) : kind == K::U ? n1 : n21;
    return odd ? -m : m;
  }
  if (n > 8 && std::fabs(x) < A(1)) {
    const A t = std::acos(x), h = A(n) + A(0.5);
    switch (kind) {
      case K::T: return std::cos(A(n) * t);
      case K::U: return std::sin(n1 * t) / std::sin(t);
      case K::V: return std::cos(h * t) / std::cos(t / A(2));
      case K::W: return std::sin(h * t) / std::sin(t / A(2));
    }
  }
  if (n == 0) return A(1);
  A p = A(1), q = kind == K::T ? x : kind == K::U ? x + x : kind == K::V ? x + x - A(1) : x + x + A(1);
  for (int64_t k = 2; k <= n && std::isfinite(q); ++k) {
    const A r = (x + x) * q - p;
    p = q;
    q = r;
  }
  return q;
}

// Note [Polynomials of large degree]
// The recurrences cost n steps: PyTorch's run a degree of 2**40 for hours. Hermite's values overflow within a few
// hundred steps and the recurrence stops there; Legendre's (|x| <= 1) stay finite, so above 2**24, where the
// recurrence's cost and rounding error have both grown, Legendre uses the Hilb-type asymptotic formulas (Szego,
// Orthogonal Polynomials, 8.21.17; P_n(-x) = (-1)^n P_n(x)), in double:
//   P_n(cos t)  ~ sqrt(t / sin t) J0((n + 1/2) t),       0 <= t <= pi/2
//   P_n(cosh h) ~ sqrt(h / sinh h) I0((n + 1/2) h),      x > 1
// Against the recurrence at n = 2**24 the error is below 1e-11 (test_special.py, test_legendre_of_large_degree).
// Laguerre keeps its recurrence, linear in n as PyTorch's: the corresponding formula (Szego 8.22.4) is only good to
// O(n^(-3/4)) of its envelope, 1e-3 at x = 50 and n = 2**24, which would be a silently wrong value. A non-finite
// degree gives NaN (PyTorch's comes from an undefined float-to-int conversion).
inline constexpr int64_t kAsymptoticDegree = int64_t(1) << 24;

EMBER_HOST_DEVICE double legendre_asymptotic(double x, int64_t n) {
  const double ax = std::fabs(x), nu = double(n) + 0.5;
  if (ax == 0 && n % 2 != 0) return 0.0;  // an odd polynomial, exactly
  const double sign = x < 0 && n % 2 != 0 ? -1.0 : 1.0;
  if (ax > 1) {
    const double h = std::acosh(ax);
    return sign * std::sqrt(h / std::sinh(h)) * bessel_i(nu * h, 0, false);
  }
  const double t = std::acos(ax);
  return sign * (t == 0 ? 1.0 : std::sqrt(t / std::sin(t)) * bessel_j0(nu * t));
}

// Hermite (physicists' H and probabilists' He), Laguerre and Legendre polynomials by their recurrences.
template <class A>
EMBER_HOST_DEVICE A recurrence_polynomial(Polynomial family, A x, int64_t n) {
  using P = Polynomial;
  if (family == P::LaguerreL && x == A(0)) return A(1);
  if (family == P::LegendreP && std::fabs(x) == A(1)) return x > A(0) || n % 2 == 0 ? A(1) : A(-1);
  if (n == 0) return A(1);
  if (family == P::LegendreP && n > kAsymptoticDegree)  // Note [Polynomials of large degree]
    return static_cast<A>(legendre_asymptotic(static_cast<double>(x), n));
  A p = A(1), q = family == P::HermiteH ? x + x : family == P::LaguerreL ? A(1) - x : x;
  for (int64_t k = 1; k < n && std::isfinite(q); ++k) {  // q = p_k -> p_(k+1)
    const A kk = A(k);
    A r;
    switch (family) {
      case P::HermiteH: r = (x + x) * q - (kk + kk) * p; break;
      case P::HermiteHe: r = x * q - kk * p; break;
      case P::LaguerreL: r = ((kk + kk + A(1) - x) * q - kk * p) / (kk + A(1)); break;
      default: r = ((kk + kk + A(1)) * x * q - kk * p) / (kk + A(1)); break;  // Legendre P
    }
    p = q;
    q = r;
  }
  return q;
}

template <class A>
EMBER_HOST_DEVICE A orthogonal_polynomial(Polynomial family, A x, A nf) {
  using P = Polynomial;
  using K = ChebyshevKind;
  if (!std::isfinite(nf)) return nan<A>();  // no degree (Note [Polynomials of large degree])
  const A nt = std::trunc(nf);
  if (nt < A(0)) return A(0);
  const int64_t n = nt > A(9e18) ? INT64_MAX : static_cast<int64_t>(nt);
  const A shifted = x + x - A(1);  // the shifted families: p*_n(x) = p_n(2x - 1)
  switch (family) {
    case P::ChebyshevT: return chebyshev(K::T, x, n);
    case P::ChebyshevU: return chebyshev(K::U, x, n);
    case P::ChebyshevV: return chebyshev(K::V, x, n);
    case P::ChebyshevW: return chebyshev(K::W, x, n);
    case P::ShiftedChebyshevT: return chebyshev(K::T, shifted, n);
    case P::ShiftedChebyshevU: return chebyshev(K::U, shifted, n);
    case P::ShiftedChebyshevV: return chebyshev(K::V, shifted, n);
    case P::ShiftedChebyshevW: return chebyshev(K::W, shifted, n);
    default: return recurrence_polynomial(family, x, n);
  }
}

}  // namespace sf

// The special UnaryOps (UnaryOp::Lgamma .. FrexpExponent) for compute type T: float or double (the 16-bit types run
// the float instantiation, casting on load and on store). Returns false for the other ops.
template <class T, class K>
bool special_unary_ops(UnaryOp op, const K& k, const UnaryArgs& g) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  using A = T;
  auto run = [&](auto f) { k.template kernel<T, T, 1>(f); };
  switch (op) {
    // The rows of ember/ops/unary.def that name their formula.
#define EMBER_UNARY_OP(...)
#define EMBER_UNARY_CUSTOM(...)
#define EMBER_UNARY_SPECIAL(op, name, formula, ...)   \
  case UnaryOp::op:                                   \
    run([] EMBER_LAMBDA(A a) { return formula(a); }); \
    return true;
#include "ember/ops/unary.def"
#undef EMBER_UNARY_OP
#undef EMBER_UNARY_CUSTOM
#undef EMBER_UNARY_SPECIAL
    case UnaryOp::Polygamma: {
      const int n = static_cast<int>(g.a);
      run([n] EMBER_LAMBDA(A a) { return sf::polygamma(n, a); });
      return true;
    }
    case UnaryOp::FrexpMantissa:
      run([] EMBER_LAMBDA(A a) {
        int e;
        return std::isfinite(a) ? std::frexp(a, &e) : a;
      });
      return true;
    case UnaryOp::FrexpExponent:
      k.template kernel<int32_t, T, 1>([] EMBER_LAMBDA(A a) {
        int e = 0;
        if (std::isfinite(a)) std::frexp(a, &e);
        return static_cast<int32_t>(e);
      });
      return true;
    default: return false;
  }
}

// The special BinaryOps for compute type T (any dtype; each op runs for the dtypes its row's kind lets through
// (ops/binary.cpp): float and double for the floating ops, the 16-bit floats for nextafter and heaviside, integers for
// gcd, lcm and heaviside, bool for heaviside). Returns false for the other ops and dtypes.
template <class T, class K>
bool special_binary_ops(BinaryOp op, const K& k, const Scalar& alpha) {
  using A = Acc<T>;
  auto run = [&](auto f) { k.template kernel<T, T, 2>(f); };
  if (op == BinaryOp::Heaviside) {
    auto f = [] EMBER_LAMBDA(A a, A b) { return a == A(0) ? b : static_cast<A>(a > A(0)); };
    run(Same2<T, decltype(f)>{f});
    return true;
  }
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (op == BinaryOp::Gcd) {
      run([] EMBER_LAMBDA(T a, T b) { return sf::gcd(a, b); });
      return true;
    }
    if (op == BinaryOp::Lcm) {
      run([] EMBER_LAMBDA(T a, T b) { return sf::lcm(a, b); });
      return true;
    }
  }
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
    if (op == BinaryOp::Nextafter) {
      run([] EMBER_LAMBDA(T a, T b) { return sf::nextafter16(a, b); });
      return true;
    }
  }
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    switch (op) {
      // The rows of ember/ops/binary.def that name their formula.
#define EMBER_BINARY_OP(...)
#define EMBER_BINARY_CUSTOM(...)
#define EMBER_BINARY_ALIAS(...)
#define EMBER_BINARY_POLYNOMIAL(...)
#define EMBER_BINARY_SPECIAL(op, name, kind, formula, ...)    \
  case BinaryOp::op:                                          \
    run([] EMBER_LAMBDA(A a, A b) { return formula(a, b); }); \
    return true;
#include "ember/ops/binary.def"
#undef EMBER_BINARY_OP
#undef EMBER_BINARY_CUSTOM
#undef EMBER_BINARY_ALIAS
#undef EMBER_BINARY_POLYNOMIAL
#undef EMBER_BINARY_SPECIAL
      case BinaryOp::Nextafter: run([] EMBER_LAMBDA(A a, A b) { return std::nextafter(a, b); }); return true;
      case BinaryOp::OrthogonalPolynomial: {  // alpha: the family (ember::Polynomial)
        const auto family = static_cast<Polynomial>(alpha.to_int());
        run([family] EMBER_LAMBDA(A x, A n) { return sf::orthogonal_polynomial(family, x, n); });
        return true;
      }
      default: break;
    }
  }
  return false;
}

// The backends' entry points: dispatch on the compute dtype, the 16-bit floats to the float formulas (cast on load
// and on store) except for nextafter and heaviside, which work on the 16-bit values themselves.
template <class K>
bool special_unary(UnaryOp op, const K& k, ScalarType compute, const UnaryArgs& args) {
  switch (compute) {
    case ScalarType::Float64: return special_unary_ops<double>(op, k, args);
    case ScalarType::Float32:
    case ScalarType::Float16:
    case ScalarType::BFloat16: return special_unary_ops<float>(op, k, args);
    default: return false;
  }
}

template <class K>
bool special_binary(BinaryOp op, const K& k, ScalarType compute, const Scalar& alpha) {
  return dispatch_all(compute, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      if (op != BinaryOp::Nextafter && op != BinaryOp::Heaviside) return special_binary_ops<float>(op, k, alpha);
    return special_binary_ops<T>(op, k, alpha);
  });
}

}  // namespace ember::math
