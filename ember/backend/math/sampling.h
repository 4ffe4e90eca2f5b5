// Per-element formulas of the distribution samplers (exponential_, geometric_, cauchy_, log_normal_, gamma,
// poisson, binomial) and of the gamma reparameterization gradient, shared by the CPU and CUDA kernels so that a
// seed gives the same numbers on both devices (Note [Shared elementwise math]). Everything runs in double.
#pragma once

#include <cmath>
#include <cstdint>

#include "ember/backend/math/special.h"
#include "ember/detail/random_math.h"
#include "ember/generator.h"
#include "ember/macros.h"

namespace ember::rnd {

enum SampleKind : int { kExponential, kGeometric, kCauchy, kLogNormal, kGamma, kPoisson, kBinomial, kVonMises };

// Words of the op's range that one element takes (Note [Random numbers]).
EMBER_HOST_DEVICE int sample_words(int kind) { return kind == kLogNormal ? 4 : 2; }

// The words of one element (base .. base + k - 1 of the op's range).
struct ElementWords {
  PhiloxWords words;
  uint64_t base;

  EMBER_HOST_DEVICE ElementWords(PhiloxState st, uint64_t b) : words(st), base(b) {}
  EMBER_HOST_DEVICE uint32_t operator()(int k) { return words(base + static_cast<uint64_t>(k)); }
};

// Note [Rejection samplers]
// gamma, poisson, binomial and von Mises loop until a candidate is accepted, so an element cannot have a fixed
// number of words. Each element takes 2 words of the op's range like any other sampler; they are the 64-bit Philox
// key of the element's own stream, from which its loop draws as many words as it needs. The numbers therefore still
// depend only on (seed, offset, element index), not on threads or the device.
struct SubStream {
  uint64_t key;
  uint64_t next = 0;
  uint32_t cache[4] = {0, 0, 0, 0};

  EMBER_HOST_DEVICE explicit SubStream(uint64_t k) : key(k) {}
  EMBER_HOST_DEVICE uint32_t word() {
    if (next % 4 == 0) {
      Philox4x32 p(key, next / 4);
      for (int j = 0; j < 4; ++j) cache[j] = p.v[j];
    }
    return cache[next++ % 4];
  }
  EMBER_HOST_DEVICE double uniform() {  // [0, 1), 53 bits
    const uint32_t a = word();
    return uniform_f64(a, word());
  }
  EMBER_HOST_DEVICE double normal() {  // Box-Muller, as randn's float64 formula
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
};

// Marsaglia and Tsang (2000), "A simple method for generating gamma variables"; alpha < 1 is boosted to alpha + 1
// and the result scaled by U^(1/alpha).
EMBER_HOST_DEVICE double sample_gamma(double alpha, SubStream& r) {
  if (alpha == 0) return 0;
  double scale = 1;
  if (alpha < 1) {
    scale = std::pow(1.0 - r.uniform(), 1.0 / alpha);
    alpha += 1;
  }
  const double d = alpha - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = r.normal();
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const double u = 1.0 - r.uniform(), x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2 || std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return scale * d * v;
  }
}

// Poisson: Knuth's product of uniforms for small rates, Hormann's transformed rejection (PTRS, 1993) from 10 up.
EMBER_HOST_DEVICE double sample_poisson(double lam, SubStream& r) {
  if (lam == 0) return 0;
  if (std::isinf(lam)) return lam;
  if (lam < 10) {
    const double limit = std::exp(-lam);
    double prod = 1, k = 0;
    for (;;) {
      prod *= r.uniform();
      if (prod <= limit) return k;
      k += 1;
    }
  }
  const double slam = std::sqrt(lam), loglam = std::log(lam);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double log_inv_alpha = std::log(1.1239 + 1.1328 / (b - 3.4)), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = r.uniform() - 0.5, v = r.uniform();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + log_inv_alpha - std::log(a / (us * us) + b) <= -lam + k * loglam - std::lgamma(k + 1)) return k;
  }
}

// Binomial(n, p) for 0 < p <= 0.5: counts geometric waiting times while n p < 10, else Hormann's BTRS (1993).
EMBER_HOST_DEVICE double binomial_low_p(double n, double p, SubStream& r) {
  if (n * p < 10) {
    const double log_q = std::log1p(-p);
    double trials = 0, k = 0;
    for (;;) {
      const double g = std::ceil(std::log(1.0 - r.uniform()) / log_q);
      trials += g < 1 ? 1 : g;
      if (trials > n) return k;
      k += 1;
    }
  }
  const double q = 1 - p, spq = std::sqrt(n * p * q);
  const double b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p, c = n * p + 0.5, vr = 0.92 - 4.2 / b;
  const double alpha = (2.83 + 5.1 / b) * spq, lpq = std::log(p / q), m = std::floor((n + 1) * p);
  const double h = std::lgamma(m + 1) + std::lgamma(n - m + 1);
  for (;;) {
    const double u = r.uniform() - 0.5, v = r.uniform();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (k < 0 || k > n) continue;
    if (us >= 0.07 && v <= vr) return k;
    if (std::log(v * alpha / (a / (us * us) + b)) <= h - std::lgamma(k + 1) - std::lgamma(n - k + 1) + (k - m) * lpq)
      return k;
  }
}

EMBER_HOST_DEVICE double sample_binomial(double n, double p, SubStream& r) {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  return p > 0.5 ? n - binomial_low_p(n, 1 - p, r) : binomial_low_p(n, p, r);
}

// von Mises(loc, kappa) on [-pi, pi): Best and Fisher's (1979) wrapped-Cauchy envelope. The envelope's parameter
// r = (1 + rho^2) / (2 rho), rho = (tau - sqrt(2 tau)) / (2 kappa), tau = 1 + sqrt(1 + 4 kappa^2), is computed without
// the cancellation of tau - sqrt(2 tau) at small kappa; kappa below 1e-8 is the uniform distribution.
EMBER_HOST_DEVICE double sample_von_mises(double loc, double kappa, SubStream& r) {
  constexpr double kPi = 3.141592653589793;
  double x;
  if (kappa < 1e-8) {
    x = kPi * (2 * r.uniform() - 1);
  } else {
    const double s = std::sqrt(1 + 4 * kappa * kappa), tau = 1 + s;
    const double rho = 2 * kappa * tau / ((s + 1) * (tau + std::sqrt(2 * tau)));
    const double rr = (1 + rho * rho) / (2 * rho);
    for (;;) {
      const double u1 = r.uniform(), u2 = 1.0 - r.uniform(), u3 = r.uniform();
      const double z = std::cos(kPi * u1), f = (1 + rr * z) / (rr + z), c = kappa * (rr - f);
      if (c * (2 - c) - u2 > 0 || std::log(c / u2) + 1 - c >= 0) {
        x = (u3 >= 0.5 ? 1.0 : -1.0) * std::acos(f < -1 ? -1 : f > 1 ? 1 : f);
        break;
      }
    }
  }
  double y = std::fmod(x + loc + kPi, 2 * kPi);
  if (y < 0) y += 2 * kPi;
  return y - kPi;
}

// Whether a tensor parameter lies in its sampler's domain (a, b: the element's parameters).
EMBER_HOST_DEVICE bool sample_params_ok(int kind, double a, double b) {
  if (kind == kBinomial) return a >= 0 && b >= 0 && b <= 1;
  if (kind == kVonMises) return std::isfinite(a) && b >= 0;
  return a >= 0;  // gamma's alpha, poisson's rate (NaN fails)
}

// One element. w(k): the element's k-th word; a, b: its parameters (see the sample kernel); tiny: gamma's floor.
template <class W>
EMBER_HOST_DEVICE double sample_one(int kind, double a, double b, double tiny, W w) {
  switch (kind) {
    case kExponential:  // a = lambda; -log(1 - u) / lambda, 1 - u in (0, 1]; lambda 0 gives inf
      return a == 0 ? HUGE_VAL : -std::log1p(-uniform_f64(w(0), w(1))) / a;
    case kGeometric: {  // a = p; the number of trials up to the first success, at least 1
      const double g = std::ceil(std::log1p(-uniform_f64(w(0), w(1))) / std::log1p(-a));
      return g < 1 ? 1 : g;
    }
    case kCauchy:  // a = median, b = sigma
      return a + b * std::tan(3.141592653589793 * (uniform_f64(w(0), w(1)) - 0.5));
    case kLogNormal: {  // a = mean, b = std of the underlying normal (randn's float64 numbers)
      const double u1 = 1.0 - uniform_f64(w(0), w(1)), u2 = uniform_f64(w(2), w(3));
      return std::exp(a + b * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
    }
    default: break;
  }
  SubStream r(static_cast<uint64_t>(w(0)) << 32 | w(1));
  if (kind == kGamma) {
    const double g = sample_gamma(a, r);
    return g < tiny ? tiny : g;
  }
  if (kind == kPoisson) return sample_poisson(a, r);
  if (kind == kVonMises) return sample_von_mises(a, b, r);
  return sample_binomial(a, b, r);
}

// Note [Gamma reparameterization gradient]
// For x ~ Gamma(alpha, 1) drawn by inverting its CDF P(alpha, x), dx/dalpha = -(dP/dalpha) / pdf(x). With the
// series P(alpha, x) = e^-x sum_n x^(alpha+n) / Gamma(alpha+n+1),
//   dP/dalpha / pdf(x) = (x / alpha) sum_n r_n (log x - digamma(alpha+n+1)),  r_0 = 1, r_n = r_(n-1) x / (alpha+n),
// which needs no Gamma function and converges once n passes x - alpha. For alpha >= 1e4 (where that takes many
// terms) the Wilson-Hilferty approximation x = alpha (1 - 1/(9 alpha) + z / (3 sqrt(alpha)))^3 is differentiated
// at fixed z instead (its error is of order alpha^-1.5).
EMBER_HOST_DEVICE double standard_gamma_grad_one(double alpha, double x) {
  if (!(x > 0) || !(alpha > 0)) return 0;
  if (std::isinf(x) || std::isinf(alpha)) return x / alpha;
  if (alpha < 1e4) {
    const double lx = std::log(x);
    double psi = math::sf::digamma_positive(alpha + 1), r = 1, sum = lx - psi, abs_sum = std::fabs(sum);
    for (int n = 1; n < 200000; ++n) {
      r *= x / (alpha + n);
      psi += 1 / (alpha + n);
      const double t = r * (lx - psi);
      sum += t;
      abs_sum += std::fabs(t);
      if (alpha + n > x && std::fabs(t) <= 1e-17 * abs_sum) break;
    }
    if (std::isfinite(sum)) return -(x / alpha) * sum;
  }
  const double s = std::sqrt(alpha), g0 = 1 - 1 / (9 * alpha);
  const double z = (std::cbrt(x / alpha) - g0) * 3 * s;
  const double g = g0 + z / (3 * s), dg = 1 / (9 * alpha * alpha) - z / (6 * alpha * s);
  return g * g * g + 3 * alpha * g * g * dg;
}

}  // namespace ember::rnd
