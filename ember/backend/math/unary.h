// The unary ops' formulas, for every backend (Note [Shared elementwise math] in common.h).
#pragma once

#include <cmath>
#include <limits>

#include "ember/backend/math/common.h"
#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/ops/unary.h"

namespace ember::math {

// Inverse error function: Giles' single-precision approximation ("Approximating the erfinv
// function", GPU Gems 4), refined by two Newton steps on erf for double accuracy.
EMBER_HOST_DEVICE double erfinv(double y) {
  if (y <= -1) return y == -1 ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  if (y >= 1) return y == 1 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  double w = -std::log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    constexpr double c[] = {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                            -0.00125372503, -0.00417768164, 0.246640727,     1.50140941};
    w -= 2.5;
    x = 2.81022636e-08;
    for (double ci : c) x = ci + x * w;
  } else {
    constexpr double c[] = {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                            -0.0076224613,  0.00943887047, 1.00167406,     2.83297682};
    w = std::sqrt(w) - 3.0;
    x = -0.000200214257;
    for (double ci : c) x = ci + x * w;
  }
  x *= y;
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) / (2.0 / std::sqrt(M_PI) * std::exp(-x * x));
  return x;
}

template <class A>
EMBER_HOST_DEVICE A round_half_even(A x, double decimals) {
  if (decimals == 0) return std::nearbyint(x);
  const A p = static_cast<A>(std::pow(10.0, std::fabs(decimals)));
  return decimals > 0 ? std::nearbyint(x * p) / p : std::nearbyint(x / p) * p;
}

// out = op(in) for compute type T (out and in of any dtype; the runner casts).
template <class T, class K>
void unary_ops(UnaryOp op, const K& k, const UnaryArgs& g) {
  using A = Acc<T>;
  auto same = [&](auto f) { k.template kernel<T, T, 1>(Same1<T, decltype(f)>{f}); };
  auto pred = [&](auto f) { k.template kernel<bool, T, 1>(Pred1<T, decltype(f)>{f}); };
  constexpr bool fp = is_fp<T>;
  switch (op) {
    case UnaryOp::Neg:
      if constexpr (!std::is_same_v<T, bool>) same([] EMBER_LAMBDA(A a) { return -a; });
      return;
    case UnaryOp::Abs:
      if constexpr (fp)
        same([] EMBER_LAMBDA(A a) { return std::fabs(a); });
      else if constexpr (std::is_signed_v<T>)
        same([] EMBER_LAMBDA(A a) { return a < 0 ? A(-a) : a; });
      else
        same([] EMBER_LAMBDA(A a) { return a; });
      return;
    case UnaryOp::Sign:
    case UnaryOp::Sgn:
      if constexpr (std::is_same_v<T, bool>)
        same([] EMBER_LAMBDA(A a) { return a; });
      else
        same([] EMBER_LAMBDA(A a) { return static_cast<A>((A(0) < a) - (a < A(0))); });
      return;
    case UnaryOp::Square: same([] EMBER_LAMBDA(A a) { return a * a; }); return;
    case UnaryOp::Cube: same([] EMBER_LAMBDA(A a) { return a * a * a; }); return;
    case UnaryOp::Relu:
      if constexpr (std::is_same_v<T, bool>)
        same([] EMBER_LAMBDA(A a) { return a; });
      else
        same([] EMBER_LAMBDA(A a) { return a > A(0) ? a : (a != a ? a : A(0)); });
      return;
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Trunc:
    case UnaryOp::Round:
      if constexpr (fp) {
        const double d = g.a;
        if (op == UnaryOp::Floor) same([] EMBER_LAMBDA(A a) { return std::floor(a); });
        if (op == UnaryOp::Ceil) same([] EMBER_LAMBDA(A a) { return std::ceil(a); });
        if (op == UnaryOp::Trunc) same([] EMBER_LAMBDA(A a) { return std::trunc(a); });
        if (op == UnaryOp::Round) same([d] EMBER_LAMBDA(A a) { return round_half_even(a, d); });
      } else {
        same([] EMBER_LAMBDA(A a) { return a; });
      }
      return;
    case UnaryOp::BitNot:
      if constexpr (std::is_same_v<T, bool>)
        same([] EMBER_LAMBDA(A a) { return !a; });
      else if constexpr (std::is_integral_v<T>)
        same([] EMBER_LAMBDA(A a) { return static_cast<A>(~a); });
      return;
    case UnaryOp::Clamp: {
      const bool has_lo = !std::isnan(g.a), has_hi = !std::isnan(g.b);
      const A lo = has_lo ? static_cast<A>(g.a) : A(0), hi = has_hi ? static_cast<A>(g.b) : A(0);
      same([has_lo, has_hi, lo, hi] EMBER_LAMBDA(A a) {
        if constexpr (fp)
          if (a != a) return a;
        if (has_lo && a < lo) a = lo;
        if (has_hi && a > hi) a = hi;
        return a;
      });
      return;
    }
    case UnaryOp::NanToNum:
      if constexpr (fp) {
        const A n = A(g.a), p = A(g.b), m = A(g.c);
        same([n, p, m] EMBER_LAMBDA(A a) { return a != a ? n : a == A(INFINITY) ? p : a == A(-INFINITY) ? m : a; });
      } else {
        same([] EMBER_LAMBDA(A a) { return a; });
      }
      return;
    default: break;
  }
  if constexpr (fp) {
    const A ga = static_cast<A>(g.a), gb = static_cast<A>(g.b), gc = static_cast<A>(g.c);
    switch (op) {
      case UnaryOp::Reciprocal: return same([] EMBER_LAMBDA(A a) { return A(1) / a; });
      case UnaryOp::Sqrt: return same([] EMBER_LAMBDA(A a) { return std::sqrt(a); });
      case UnaryOp::Rsqrt: return same([] EMBER_LAMBDA(A a) { return A(1) / std::sqrt(a); });
      case UnaryOp::Exp: return same([] EMBER_LAMBDA(A a) { return std::exp(a); });
      case UnaryOp::Exp2: return same([] EMBER_LAMBDA(A a) { return std::exp2(a); });
      case UnaryOp::Expm1: return same([] EMBER_LAMBDA(A a) { return std::expm1(a); });
      case UnaryOp::Log: return same([] EMBER_LAMBDA(A a) { return std::log(a); });
      case UnaryOp::Log2: return same([] EMBER_LAMBDA(A a) { return std::log2(a); });
      case UnaryOp::Log10: return same([] EMBER_LAMBDA(A a) { return std::log10(a); });
      case UnaryOp::Log1p: return same([] EMBER_LAMBDA(A a) { return std::log1p(a); });
      case UnaryOp::Sin: return same([] EMBER_LAMBDA(A a) { return std::sin(a); });
      case UnaryOp::Cos: return same([] EMBER_LAMBDA(A a) { return std::cos(a); });
      case UnaryOp::Tan: return same([] EMBER_LAMBDA(A a) { return std::tan(a); });
      case UnaryOp::Asin: return same([] EMBER_LAMBDA(A a) { return std::asin(a); });
      case UnaryOp::Acos: return same([] EMBER_LAMBDA(A a) { return std::acos(a); });
      case UnaryOp::Atan: return same([] EMBER_LAMBDA(A a) { return std::atan(a); });
      case UnaryOp::Sinh: return same([] EMBER_LAMBDA(A a) { return std::sinh(a); });
      case UnaryOp::Cosh: return same([] EMBER_LAMBDA(A a) { return std::cosh(a); });
      case UnaryOp::Tanh: return same([] EMBER_LAMBDA(A a) { return std::tanh(a); });
      case UnaryOp::Asinh: return same([] EMBER_LAMBDA(A a) { return std::asinh(a); });
      case UnaryOp::Acosh: return same([] EMBER_LAMBDA(A a) { return std::acosh(a); });
      case UnaryOp::Atanh: return same([] EMBER_LAMBDA(A a) { return std::atanh(a); });
      case UnaryOp::Sigmoid: return same([] EMBER_LAMBDA(A a) { return A(1) / (A(1) + std::exp(-a)); });
      case UnaryOp::Logit: {
        const bool clip = g.a >= 0;
        return same([clip, ga] EMBER_LAMBDA(A a) {
          if (clip) a = a < ga ? ga : (a > A(1) - ga ? A(1) - ga : a);
          return std::log(a / (A(1) - a));
        });
      }
      case UnaryOp::Gelu:
        return same([] EMBER_LAMBDA(A a) { return A(0.5) * a * (A(1) + std::erf(a * A(M_SQRT1_2))); });
      case UnaryOp::GeluTanh:
        return same([] EMBER_LAMBDA(A a) {
          const A k = A(M_2_SQRTPI * M_SQRT1_2);  // sqrt(2 / pi)
          return A(0.5) * a * (A(1) + std::tanh(k * (a + A(0.044715) * a * a * a)));
        });
      case UnaryOp::Silu: return same([] EMBER_LAMBDA(A a) { return a / (A(1) + std::exp(-a)); });
      case UnaryOp::Softplus:  // beta = ga, threshold = gb
        return same([ga, gb] EMBER_LAMBDA(A a) { return a * ga > gb ? a : std::log1p(std::exp(a * ga)) / ga; });
      case UnaryOp::Mish: return same([] EMBER_LAMBDA(A a) { return a * std::tanh(std::log1p(std::exp(a))); });
      case UnaryOp::Erf: return same([] EMBER_LAMBDA(A a) { return std::erf(a); });
      case UnaryOp::Erfc: return same([] EMBER_LAMBDA(A a) { return std::erfc(a); });
      case UnaryOp::Erfinv:
        return same([] EMBER_LAMBDA(A a) { return static_cast<A>(erfinv(static_cast<double>(a))); });
      case UnaryOp::Frac: return same([] EMBER_LAMBDA(A a) { return a - std::trunc(a); });
      case UnaryOp::Hardtanh: return same([ga, gb] EMBER_LAMBDA(A a) { return a < ga ? ga : (a > gb ? gb : a); });
      // Piecewise-linear ops as min/max sums: a select between computed values is not if-converted by the
      // compiler under -ftrapping-math (it would branch on the sign instead of vectorizing). NaN propagates.
      case UnaryOp::LeakyRelu:
        return same([ga] EMBER_LAMBDA(A a) { return std::max(a, A(0)) + ga * std::min(a, A(0)); });
      case UnaryOp::Elu: {  // scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1))
        const A neg = A(g.a * g.b);
        return same([gb, gc, neg] EMBER_LAMBDA(A a) { return a > A(0) ? a * gb : std::expm1(a * gc) * neg; });
      }
      case UnaryOp::Hardswish:
        return same([] EMBER_LAMBDA(A a) { return a * std::min(std::max(a + A(3), A(0)), A(6)) / A(6); });
      case UnaryOp::Hardsigmoid:
        return same([] EMBER_LAMBDA(A a) { return std::min(std::max(a + A(3), A(0)), A(6)) / A(6); });
      case UnaryOp::Softsign: return same([] EMBER_LAMBDA(A a) { return a / (A(1) + std::fabs(a)); });
      case UnaryOp::Tanhshrink: return same([] EMBER_LAMBDA(A a) { return a - std::tanh(a); });
      case UnaryOp::Threshold: return same([ga, gb] EMBER_LAMBDA(A a) { return a <= ga ? gb : a; });
      case UnaryOp::LogSigmoid:  // -softplus(-x), stable for large |x|
        return same([] EMBER_LAMBDA(A a) { return std::min(a, A(0)) - std::log1p(std::exp(-std::fabs(a))); });
      case UnaryOp::Hardshrink: return same([ga] EMBER_LAMBDA(A a) { return a >= -ga && a <= ga ? A(0) : a; });
      case UnaryOp::Softshrink:
        return same([ga] EMBER_LAMBDA(A a) { return std::max(a - ga, A(0)) + std::min(a + ga, A(0)); });
      default: break;
    }
  }
  switch (op) {
    case UnaryOp::LogicalNot: return pred([] EMBER_LAMBDA(A a) { return a == A(0); });
    case UnaryOp::IsNan: return pred([] EMBER_LAMBDA(A a) { return a != a; });
    case UnaryOp::IsInf:
      if constexpr (fp)
        return pred([] EMBER_LAMBDA(A a) { return std::isinf(a); });
      else
        return pred([] EMBER_LAMBDA(A) { return false; });
    case UnaryOp::IsPosInf:
      if constexpr (fp)
        return pred([] EMBER_LAMBDA(A a) { return a == A(INFINITY); });
      else
        return pred([] EMBER_LAMBDA(A) { return false; });
    case UnaryOp::IsNegInf:
      if constexpr (fp)
        return pred([] EMBER_LAMBDA(A a) { return a == A(-INFINITY); });
      else
        return pred([] EMBER_LAMBDA(A) { return false; });
    case UnaryOp::IsFinite:
      if constexpr (fp)
        return pred([] EMBER_LAMBDA(A a) { return std::isfinite(a); });
      else
        return pred([] EMBER_LAMBDA(A) { return true; });
    case UnaryOp::SignBit:
      // The sign bit of the 16-bit types is read from their bits (std::signbit on the converted float
      // also crashes GCC 12's vectorizer).
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
        return k.template kernel<bool, T, 1>([] EMBER_LAMBDA(T a) { return (a.x >> 15) != 0; });
      else if constexpr (fp)
        return pred([] EMBER_LAMBDA(A a) { return std::signbit(a); });
      else if constexpr (std::is_signed_v<T>)
        return pred([] EMBER_LAMBDA(A a) { return a < 0; });
      else
        return pred([] EMBER_LAMBDA(A) { return false; });
    default: fail<NotImplementedError>(unary_op_name(op), ": no ", K::kDevice, " kernel for dtype ", scalar_type_of<T>);
  }
}

// grad_in = g * op'(v) for the fused activation backward (nn/activation.h), v the input or the result as the
// op's formula saves it; any layout and the 16-bit floats. Values at the kinks follow PyTorch's backward kernels.
// One case per op of fused_unary_backward's list (nn/activation.cpp; test_nn_activation.py runs each of them).
template <class A>
EMBER_HOST_DEVICE A sigmoid(A x) {
  return A(1) / (A(1) + std::exp(-x));
}

template <class T, class K>
void unary_backward_ops(UnaryOp op, const K& k, const UnaryArgs& args) {
  using A = Acc<T>;
  auto grad = [&](auto f) { k.template kernel<T, T, 2>(Same2<T, decltype(f)>{f}); };
  const A ga = A(args.a), gb = A(args.b), gc = A(args.c);
  switch (op) {
    case UnaryOp::Relu: return grad([] EMBER_LAMBDA(A g, A r) { return r > A(0) ? g : A(0); });
    case UnaryOp::Sigmoid: return grad([] EMBER_LAMBDA(A g, A r) { return g * (r * (A(1) - r)); });
    case UnaryOp::Tanh: return grad([] EMBER_LAMBDA(A g, A r) { return g * (A(1) - r * r); });
    case UnaryOp::Gelu:  // Phi(x) + x phi(x)
      return grad([] EMBER_LAMBDA(A g, A x) {
        const A cdf = A(0.5) * std::erfc(-x * A(M_SQRT1_2)), pdf = A(0.5 * M_2_SQRTPI * M_SQRT1_2);
        return g * (cdf + x * pdf * std::exp(A(-0.5) * x * x));
      });
    case UnaryOp::GeluTanh:  // x sigmoid(v), v = 2k (x + c x^3)
      return grad([] EMBER_LAMBDA(A g, A x) {
        const A k2 = A(M_2_SQRTPI * M_SQRT2), c = A(0.044715), s = sigmoid(k2 * (x + c * x * x * x));
        return g * (s + x * s * (A(1) - s) * k2 * (A(1) + A(3) * c * x * x));
      });
    case UnaryOp::Silu:
      return grad([] EMBER_LAMBDA(A g, A x) {
        const A s = sigmoid(x);
        return g * (s * (A(1) + x * (A(1) - s)));
      });
    case UnaryOp::Mish:
      return grad([] EMBER_LAMBDA(A g, A x) {
        const A t = std::tanh(std::log1p(std::exp(x)));
        return g * (t + x * sigmoid(x) * (A(1) - t * t));
      });
    case UnaryOp::Softplus:  // beta = ga, threshold = gb
      return grad([ga, gb] EMBER_LAMBDA(A g, A x) { return x * ga > gb ? g : g * sigmoid(x * ga); });
    case UnaryOp::Elu: {  // alpha = ga, scale = gb, input_scale = gc
      const A neg = A(args.a * args.b * args.c);
      return grad([gb, gc, neg] EMBER_LAMBDA(A g, A x) { return x > A(0) ? g * gb : g * (neg * std::exp(x * gc)); });
    }
    case UnaryOp::LeakyRelu: return grad([ga] EMBER_LAMBDA(A g, A x) { return x > A(0) ? g : g * ga; });
    case UnaryOp::Hardtanh: return grad([ga, gb] EMBER_LAMBDA(A g, A x) { return x > ga && x < gb ? g : A(0); });
    case UnaryOp::Hardsigmoid:
      return grad([] EMBER_LAMBDA(A g, A x) { return x > A(-3) && x < A(3) ? g / A(6) : A(0); });
    case UnaryOp::Hardswish:
      return grad([] EMBER_LAMBDA(A g, A x) { return x < A(-3) ? A(0) : x <= A(3) ? g * (x / A(3) + A(0.5)) : g; });
    default: fail<NotImplementedError>(unary_op_name(op), ": no fused backward kernel");
  }
}

}  // namespace ember::math
