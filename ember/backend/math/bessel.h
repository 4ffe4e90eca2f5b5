// Bessel functions of integer order and the Airy function, for every backend (Note [Shared elementwise math] in
// common.h): torch.special's bessel_j0/j1/y0/y1, modified_bessel_k0/k1 and their scaled forms,
// spherical_bessel_j0 and airy_ai.
//
// Note [Bessel function methods]
// Each is computed in double (a float32 input too, then rounded once), from standard methods:
// - J0, J1, Y0, Y1 for |x| <= 2: the power series (Y's with the digamma values psi(k + 1) = H_k - gamma). Up to
//   x = 25: Miller's backward recurrence
//   J_(k-1) = (2k/x) J_k - J_(k+1) from k ~ 1.6x + 30, normalized by 1 = J_0 + 2 (J_2 + J_4 + ...), and Neumann's
//   series Y_0 = 2/pi [(ln(x/2) + gamma) J_0 + 2 sum_(k>=1) (-1)^(k+1) J_2k / k]; Y_1 = -Y_0' term by term,
//   -2/pi [J_0 / x - (ln(x/2) + gamma) J_1 + J_1 + sum_(m>=1) (-1)^m (1/m + 1/(m+1)) J_(2m+1)]. Absolute error
//   about 1e-15 (relative near the zeros is what absolute allows). Beyond 25: Hankel's asymptotic expansion, whose
//   smallest term is about e^(-2x); the phases cos(x - pi/4) etc. come from sin x and cos x, which std:: reduces
//   exactly.
// - K0, K1 for x <= 2: their series in I0, I1 and the digamma values psi(k + 1) = H_k - gamma; up to 25 the
//   trapezoidal rule on e^x K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt, which converges geometrically in
//   the step for this analytic integrand (step 1/8: relative error 1e-15); beyond, the asymptotic expansion
//   sqrt(pi / 2x) e^-x sum a_k(nu) / x^k.
// - Ai for x > 2: sqrt(x / 3) / pi K_(1/3)(zeta), zeta = 2/3 x^(3/2), by the same integral or expansion; for
//   -10 <= x <= 2: Taylor steps of at most 1/2 along Ai'' = x Ai from Ai(0), Ai'(0), each summed to full precision
//   (the coefficients follow c_n = (x0 c_(n-2) + c_(n-3)) / (n (n - 1))); below -10: the expansion of
//   J_(1/3) + J_(-1/3), Ai(-z) = z^(-1/4) / sqrt(pi) [P cos(zeta - pi/4) - Q sin(zeta - pi/4)].
// Edge values as PyTorch's: J, Y and Ai of +-inf are NaN (not their limit 0), K(inf) = 0; Y and K of negative
// numbers are NaN, of 0 -infinity (Y) and infinity (K).
#pragma once

#include <cmath>
#include <limits>

#include "ember/backend/math/common.h"

namespace ember::math::sf {

namespace bessel_detail {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kEulerGamma = 0.57721566490153286061;
constexpr double kPi = 3.14159265358979323846;
constexpr double kSqrtHalf = 0.70710678118654752440;

// J_nu (which = 0) or Y_nu (which = 1), nu = 0 or 1, by the power series, 0 <= x <= 2:
// J_nu = sum t_k, t_k = (-x^2/4)^k / (k! (k + nu)!) (x/2)^nu;
// Y_0 = 2/pi [ln(x/2) J_0 - sum psi(k+1) t_k], Y_1 = -2/(pi x) + 2/pi ln(x/2) J_1 - 1/pi sum (psi(k+1) + psi(k+2)) t_k.
EMBER_HOST_DEVICE double jy_series(double x, int nu, int which) {
  const double q = -x * x / 4;
  double t = nu == 0 ? 1.0 : x / 2, j = t, psi = -kEulerGamma, s = nu == 0 ? psi * t : (2 * psi + 1) * t;
  for (int k = 1; k < 60; ++k) {
    t *= q / (k * (k + nu));
    psi += 1.0 / k;  // psi(k + 1)
    j += t;
    s += (nu == 0 ? psi : 2 * psi + 1.0 / (k + 1)) * t;
    if (std::fabs(t) <= kEps * 1e-2 * std::fabs(j)) break;
  }
  if (which == 0) return j;
  const double l = std::log(x / 2);
  return nu == 0 ? 2 / kPi * (l * j - s) : -2 / (kPi * x) + 2 / kPi * l * j - s / kPi;
}

struct JY {
  double j0, j1, y0, y1;
};

// Miller's backward recurrence and Neumann's series (Note [Bessel function methods]); 0 < x <= 25.
EMBER_HOST_DEVICE JY miller(double x) {
  const int m = 2 * static_cast<int>((1.6 * x + 30) / 2);
  double next = 0.0, cur = 1e-30;  // J_(k+1), J_k unnormalized, at k = m
  double norm = 0.0, s0 = 0.0, s1 = 0.0, j1 = 0.0;
  for (int k = m; k >= 1; --k) {
    // cur holds J_k: its terms in the normalization and the two Neumann sums
    if (k % 2 == 0) {
      const int h = k / 2;
      norm += 2 * cur;
      s0 += (h % 2 ? cur : -cur) / h;
    } else if (k >= 3) {
      const int h = (k - 1) / 2;  // J_(2h+1)
      s1 += (h % 2 ? -cur : cur) * (1.0 / h + 1.0 / (h + 1));
    } else {
      j1 = cur;
    }
    const double prev = (2.0 * k / x) * cur - next;
    next = cur;
    cur = prev;
    if (std::fabs(cur) > 1e150) {  // rescale everything accumulated so far
      cur *= 1e-150, next *= 1e-150, norm *= 1e-150, s0 *= 1e-150, s1 *= 1e-150, j1 *= 1e-150;
    }
  }
  norm += cur;  // J_0
  const double j0n = cur / norm, j1n = j1 / norm, l = std::log(x / 2) + kEulerGamma;
  const double y0 = 2 / kPi * (l * j0n + 2 * s0 / norm);
  const double y1 = -2 / kPi * (j0n / x - l * j1n + j1n + s1 / norm);
  return {j0n, j1n, y0, y1};
}

// Hankel's expansion: J_nu and Y_nu for nu = 0, 1 and x > 25 (jy[0] = J, jy[1] = Y); a_k(nu) =
// prod_(j <= k) (4 nu^2 - (2j - 1)^2) / (k! 8^k), alternating between P (even k) and Q (odd k).
EMBER_HOST_DEVICE void hankel(double x, int nu, double* jy) {
  const double mu = 4.0 * nu * nu;
  double p = 0, q = 0, a = 1, last = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 100; ++k) {
    const double t = a / std::pow(x, k);
    if (std::fabs(t) > last) break;  // the asymptotic series starts to diverge
    const double signed_t = (k / 2) % 2 ? -t : t;
    (k % 2 ? q : p) += signed_t;
    last = std::fabs(t);
    if (last < kEps * 1e-3) break;
    a *= (mu - (2.0 * k + 1) * (2.0 * k + 1)) / (8.0 * (k + 1));
  }
  const double s = std::sin(x), c = std::cos(x);
  // cos and sin of x - pi/4 (nu = 0) or x - 3 pi/4 (nu = 1)
  const double cc = nu == 0 ? (c + s) * kSqrtHalf : (s - c) * kSqrtHalf;
  const double ss = nu == 0 ? (s - c) * kSqrtHalf : -(s + c) * kSqrtHalf;
  const double f = std::sqrt(2 / (kPi * x));
  jy[0] = f * (p * cc - q * ss);
  jy[1] = f * (p * ss + q * cc);
}

// e^x K_nu(x) for x > 2 and any real order nu: the trapezoidal rule (x <= 25) or the asymptotic expansion.
EMBER_HOST_DEVICE double k_scaled_large(double x, double nu) {
  if (x > 25) {
    const double mu = 4 * nu * nu;
    double a = 1, sum = 1, last = std::numeric_limits<double>::infinity();
    for (int k = 1; k < 100; ++k) {
      a *= (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (8.0 * k);
      const double t = a / std::pow(x, k);
      if (std::fabs(t) > last || std::fabs(t) < kEps * 1e-3) break;
      sum += t;
      last = std::fabs(t);
    }
    return std::sqrt(kPi / (2 * x)) * sum;
  }
  constexpr double h = 0.125;
  double sum = 0.5;  // the t = 0 end, half weighted
  for (int k = 1; k < 1000; ++k) {
    const double t = k * h, v = std::exp(-x * (std::cosh(t) - 1)) * std::cosh(nu * t);
    sum += v;
    if (v < kEps * 1e-3 * sum) break;
  }
  return h * sum;
}

// K0 and K1 by their series, 0 < x <= 2: K0 = -ln(x/2) I0 + sum psi(k+1) q^k / k!^2,
// K1 = 1/x + ln(x/2) I1 - x/4 sum (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!), q = x^2 / 4.
EMBER_HOST_DEVICE void k_series(double x, double* k01) {
  const double q = x * x / 4, l = std::log(x / 2);
  double t0 = 1, t1 = 1, i0 = 1, i1 = 1, psi = -kEulerGamma, s0 = psi, s1 = 2 * psi + 1;
  for (int k = 1; k < 60; ++k) {
    t0 *= q / (static_cast<double>(k) * k);
    t1 *= q / (static_cast<double>(k) * (k + 1));
    psi += 1.0 / k;  // psi(k + 1)
    i0 += t0, i1 += t1;
    s0 += psi * t0;
    s1 += (2 * psi + 1.0 / (k + 1)) * t1;
    if (t0 < kEps * 1e-2 * i0 && t1 < kEps * 1e-2 * i1) break;
  }
  k01[0] = -l * i0 + s0;
  k01[1] = 1 / x + l * (x / 2 * i1) - x / 4 * s1;
}

// e^x K_nu(x), nu = 0 or 1.
EMBER_HOST_DEVICE double k_scaled(double x, int nu) {
  if (!(x >= 0)) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return std::numeric_limits<double>::infinity();
  if (x <= 2) {
    double k01[2];
    k_series(x, k01);
    return k01[nu] * std::exp(x);
  }
  if (x == std::numeric_limits<double>::infinity()) return 0;
  return k_scaled_large(x, nu);
}

EMBER_HOST_DEVICE double k_plain(double x, int nu) {
  if (!(x > 2)) {
    if (!(x >= 0)) return std::numeric_limits<double>::quiet_NaN();
    if (x == 0) return std::numeric_limits<double>::infinity();
    double k01[2];
    k_series(x, k01);
    return k01[nu];
  }
  const double e = std::exp(-x / 2);  // in two halves: no underflow before the product
  return e * k_scaled_large(x, nu) * e;
}

// J_nu (which = 0) or Y_nu (which = 1), nu = 0 or 1, for x >= 0.
EMBER_HOST_DEVICE double jy_nonnegative(double x, int nu, int which) {
  if (which == 1 && x == 0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(x)) return std::numeric_limits<double>::quiet_NaN();  // as PyTorch (and scipy), not the limit 0
  if (x <= 2) return jy_series(x, nu, which);
  if (x <= 25) {
    const JY r = miller(x);
    return which == 0 ? (nu == 0 ? r.j0 : r.j1) : (nu == 0 ? r.y0 : r.y1);
  }
  double v[2];
  hankel(x, nu, v);
  return v[which];
}

// J0 is even and J1 odd; Y of a negative number is NaN.
EMBER_HOST_DEVICE double jy(double x, int nu, int which) {
  if (!(x < 0)) return jy_nonnegative(x, nu, which);  // NaN too: it propagates
  if (which == 1) return std::numeric_limits<double>::quiet_NaN();
  const double v = jy_nonnegative(-x, nu, 0);
  return nu == 0 ? v : -v;
}

// One Taylor step of Ai'' = x Ai from x0 to x0 + h: (y, yp) becomes (Ai(x0 + h), Ai'(x0 + h)).
EMBER_HOST_DEVICE void airy_step(double x0, double h, double& y, double& yp) {
  double c3 = y, c2 = yp, c1 = x0 * y / 2;  // c_(n-3), c_(n-2), c_(n-1) as n runs from 3
  double val = y + yp * h + c1 * h * h, der = yp + 2 * c1 * h, hn = h * h;
  int small = 0;
  for (int n = 3; n < 200; ++n) {
    const double cn = (x0 * c2 + c3) / (static_cast<double>(n - 1) * n);
    const double hn1 = hn;
    hn *= h;
    val += cn * hn;
    der += n * cn * hn1;
    c3 = c2, c2 = c1, c1 = cn;
    if (std::fabs(cn * hn1) * n < kEps * 1e-2 * (std::fabs(val) + std::fabs(der))) {
      if (++small == 2) break;
    } else {
      small = 0;
    }
  }
  y = val, yp = der;
}

EMBER_HOST_DEVICE double airy_ai(double x) {
  if (std::isnan(x)) return x;
  if (x > 2) {
    if (x == std::numeric_limits<double>::infinity()) return std::numeric_limits<double>::quiet_NaN();  // PyTorch's
    const double zeta = 2.0 / 3.0 * x * std::sqrt(x);
    const double e = std::exp(-zeta / 2);
    return std::sqrt(x / 3) / kPi * (e * k_scaled_large(zeta, 1.0 / 3.0) * e);
  }
  if (x < -10) {
    if (x == -std::numeric_limits<double>::infinity()) return std::numeric_limits<double>::quiet_NaN();
    const double z = -x, zeta = 2.0 / 3.0 * z * std::sqrt(z);
    double v[2];
    // J_(1/3) and J_(-1/3) share P and Q (a_k depends on nu^2): Hankel's sums for nu^2 = 1/9
    double p = 0, q = 0, a = 1, last = std::numeric_limits<double>::infinity();
    for (int k = 0; k < 100; ++k) {
      const double t = a / std::pow(zeta, k);
      if (std::fabs(t) > last) break;
      const double signed_t = (k / 2) % 2 ? -t : t;
      (k % 2 ? q : p) += signed_t;
      last = std::fabs(t);
      if (last < kEps * 1e-3) break;
      a *= (4.0 / 9.0 - (2.0 * k + 1) * (2.0 * k + 1)) / (8.0 * (k + 1));
    }
    const double s = std::sin(zeta), c = std::cos(zeta);
    v[0] = (c + s) * kSqrtHalf;  // cos(zeta - pi/4)
    v[1] = (s - c) * kSqrtHalf;  // sin(zeta - pi/4)
    return std::pow(z, -0.25) / std::sqrt(kPi) * (p * v[0] - q * v[1]);
  }
  double y = 0.35502805388781723926, yp = -0.25881940379280679840, x0 = 0;  // Ai(0), Ai'(0)
  while (x0 != x) {
    const double h = x < x0 ? std::fmax(x - x0, -0.5) : std::fmin(x - x0, 0.5);
    airy_step(x0, h, y, yp);
    x0 = std::fabs(x - (x0 + h)) < 1e-15 ? x : x0 + h;
  }
  return y;
}

}  // namespace bessel_detail

template <class A>
EMBER_HOST_DEVICE A bessel_j0(A x) {
  return static_cast<A>(bessel_detail::jy(static_cast<double>(x), 0, 0));
}
template <class A>
EMBER_HOST_DEVICE A bessel_j1(A x) {
  return static_cast<A>(bessel_detail::jy(static_cast<double>(x), 1, 0));
}
template <class A>
EMBER_HOST_DEVICE A bessel_y0(A x) {
  return static_cast<A>(bessel_detail::jy(static_cast<double>(x), 0, 1));
}
template <class A>
EMBER_HOST_DEVICE A bessel_y1(A x) {
  return static_cast<A>(bessel_detail::jy(static_cast<double>(x), 1, 1));
}
template <class A>
EMBER_HOST_DEVICE A modified_bessel_k0(A x) {
  return static_cast<A>(bessel_detail::k_plain(static_cast<double>(x), 0));
}
template <class A>
EMBER_HOST_DEVICE A modified_bessel_k1(A x) {
  return static_cast<A>(bessel_detail::k_plain(static_cast<double>(x), 1));
}
template <class A>
EMBER_HOST_DEVICE A scaled_modified_bessel_k0(A x) {
  return static_cast<A>(bessel_detail::k_scaled(static_cast<double>(x), 0));
}
template <class A>
EMBER_HOST_DEVICE A scaled_modified_bessel_k1(A x) {
  return static_cast<A>(bessel_detail::k_scaled(static_cast<double>(x), 1));
}
template <class A>
EMBER_HOST_DEVICE A spherical_bessel_j0(A x) {
  const double d = static_cast<double>(x);
  if (std::isinf(d)) return A(0);
  if (std::fabs(d) < 1e-4) return static_cast<A>(1 - d * d / 6);  // the next term, x^4/120, is below 1e-18
  return static_cast<A>(std::sin(d) / d);
}
template <class A>
EMBER_HOST_DEVICE A airy_ai(A x) {
  return static_cast<A>(bessel_detail::airy_ai(static_cast<double>(x)));
}

}  // namespace ember::math::sf
