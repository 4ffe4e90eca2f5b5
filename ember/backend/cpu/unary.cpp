// CPU unary kernels: one tiny functor per op over cpu_kernel (Note [Casting on load]).
#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/backend/cpu/binary.h"
#include "ember/backend/cpu/vec_math.h"
#include "ember/nn/activation.h"
#include "ember/ops/unary.h"

namespace ember::cpu {

namespace {

// Inverse error function: Giles' single-precision approximation ("Approximating the erfinv
// function", GPU Gems 4), refined by two Newton steps on erf for double accuracy.
double erfinv(double y) {
  if (y <= -1) return y == -1 ? -std::numeric_limits<double>::infinity() : std::nan("");
  if (y >= 1) return y == 1 ? std::numeric_limits<double>::infinity() : std::nan("");
  double w = -std::log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    x = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941})
      x = c + x * w;
  } else {
    w = std::sqrt(w) - 3.0;
    x = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                     1.00167406, 2.83297682})
      x = c + x * w;
  }
  x *= y;
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - y) / (2.0 / std::sqrt(M_PI) * std::exp(-x * x));
  return x;
}

template <class A>
A round_half_even(A x, double decimals) {
  if (decimals == 0) return std::nearbyint(x);
  const A p = static_cast<A>(std::pow(10.0, std::fabs(decimals)));
  return decimals > 0 ? std::nearbyint(x * p) / p : std::nearbyint(x / p) * p;
}

template <class T>
void run_unary(UnaryOp op, const StridedIter& it, const UnaryArgs& g) {
  using A = Acc<T>;
  auto same = [&](auto f) { cpu_kernel<T, T, 1>(it, [f](T a) -> T { return static_cast<T>(f(A(a))); }); };
  auto pred = [&](auto f) { cpu_kernel<bool, T, 1>(it, [f](T a) -> bool { return f(A(a)); }); };
  constexpr bool fp = is_fp<T>;
  switch (op) {
    case UnaryOp::Neg: if constexpr (!std::is_same_v<T, bool>) same([](A a) { return -a; }); return;
    case UnaryOp::Abs:
      if constexpr (fp) same([](A a) { return std::fabs(a); });
      else if constexpr (std::is_signed_v<T>) same([](A a) { return a < 0 ? A(-a) : a; });
      else same([](A a) { return a; });
      return;
    case UnaryOp::Sign:
      if constexpr (std::is_same_v<T, bool>) same([](A a) { return a; });
      else same([](A a) { return static_cast<A>((A(0) < a) - (a < A(0))); });
      return;
    case UnaryOp::Square: same([](A a) { return a * a; }); return;
    case UnaryOp::Relu:
      if constexpr (std::is_same_v<T, bool>) same([](A a) { return a; });
      else same([](A a) { return a > A(0) ? a : (a != a ? a : A(0)); });
      return;
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Trunc:
    case UnaryOp::Round:
      if constexpr (fp) {
        if (op == UnaryOp::Floor) same([](A a) { return std::floor(a); });
        if (op == UnaryOp::Ceil) same([](A a) { return std::ceil(a); });
        if (op == UnaryOp::Trunc) same([](A a) { return std::trunc(a); });
        if (op == UnaryOp::Round) same([d = g.a](A a) { return round_half_even(a, d); });
      } else {
        same([](A a) { return a; });
      }
      return;
    case UnaryOp::BitNot:
      if constexpr (std::is_same_v<T, bool>) same([](A a) { return !a; });
      else if constexpr (std::is_integral_v<T>) same([](A a) { return static_cast<A>(~a); });
      return;
    case UnaryOp::Clamp: {
      const bool has_lo = !std::isnan(g.a), has_hi = !std::isnan(g.b);
      const A lo = has_lo ? static_cast<A>(g.a) : A(0), hi = has_hi ? static_cast<A>(g.b) : A(0);
      same([=](A a) {
        if constexpr (fp)
          if (a != a) return a;
        if (has_lo && a < lo) a = lo;
        if (has_hi && a > hi) a = hi;
        return a;
      });
      return;
    }
    case UnaryOp::NanToNum:
      if constexpr (fp)
        same([n = A(g.a), p = A(g.b), m = A(g.c)](A a) { return a != a ? n : a == A(INFINITY) ? p : a == A(-INFINITY) ? m : a; });
      else same([](A a) { return a; });
      return;
    default: break;
  }
  if constexpr (fp) {
    switch (op) {
      case UnaryOp::Reciprocal: return same([](A a) { return A(1) / a; });
      case UnaryOp::Sqrt: return same([](A a) { return std::sqrt(a); });
      case UnaryOp::Rsqrt: return same([](A a) { return A(1) / std::sqrt(a); });
      case UnaryOp::Exp: return same([](A a) { return std::exp(a); });
      case UnaryOp::Exp2: return same([](A a) { return std::exp2(a); });
      case UnaryOp::Expm1: return same([](A a) { return std::expm1(a); });
      case UnaryOp::Log: return same([](A a) { return std::log(a); });
      case UnaryOp::Log2: return same([](A a) { return std::log2(a); });
      case UnaryOp::Log10: return same([](A a) { return std::log10(a); });
      case UnaryOp::Log1p: return same([](A a) { return std::log1p(a); });
      case UnaryOp::Sin: return same([](A a) { return std::sin(a); });
      case UnaryOp::Cos: return same([](A a) { return std::cos(a); });
      case UnaryOp::Tan: return same([](A a) { return std::tan(a); });
      case UnaryOp::Asin: return same([](A a) { return std::asin(a); });
      case UnaryOp::Acos: return same([](A a) { return std::acos(a); });
      case UnaryOp::Atan: return same([](A a) { return std::atan(a); });
      case UnaryOp::Sinh: return same([](A a) { return std::sinh(a); });
      case UnaryOp::Cosh: return same([](A a) { return std::cosh(a); });
      case UnaryOp::Tanh: return same([](A a) { return std::tanh(a); });
      case UnaryOp::Asinh: return same([](A a) { return std::asinh(a); });
      case UnaryOp::Acosh: return same([](A a) { return std::acosh(a); });
      case UnaryOp::Atanh: return same([](A a) { return std::atanh(a); });
      case UnaryOp::Sigmoid: return same([](A a) { return A(1) / (A(1) + std::exp(-a)); });
      case UnaryOp::Logit: {
        const bool clip = g.a >= 0;
        const A eps = static_cast<A>(g.a);
        return same([=](A a) {
          if (clip) a = a < eps ? eps : (a > A(1) - eps ? A(1) - eps : a);
          return std::log(a / (A(1) - a));
        });
      }
      case UnaryOp::Gelu: return same([](A a) { return A(0.5) * a * (A(1) + std::erf(a * A(M_SQRT1_2))); });
      case UnaryOp::GeluTanh:
        return same([](A a) {
          const A k = A(M_2_SQRTPI * M_SQRT1_2);  // sqrt(2 / pi)
          return A(0.5) * a * (A(1) + std::tanh(k * (a + A(0.044715) * a * a * a)));
        });
      case UnaryOp::Silu: return same([](A a) { return a / (A(1) + std::exp(-a)); });
      case UnaryOp::Softplus: {
        const A beta = static_cast<A>(g.a), threshold = static_cast<A>(g.b);
        return same([=](A a) { return a * beta > threshold ? a : std::log1p(std::exp(a * beta)) / beta; });
      }
      case UnaryOp::Mish: return same([](A a) { return a * std::tanh(std::log1p(std::exp(a))); });
      case UnaryOp::Erf: return same([](A a) { return std::erf(a); });
      case UnaryOp::Erfc: return same([](A a) { return std::erfc(a); });
      case UnaryOp::Erfinv: return same([](A a) { return static_cast<A>(erfinv(static_cast<double>(a))); });
      case UnaryOp::Frac: return same([](A a) { return a - std::trunc(a); });
      case UnaryOp::Hardtanh:
        return same([lo = A(g.a), hi = A(g.b)](A a) { return a < lo ? lo : (a > hi ? hi : a); });
      // Piecewise-linear ops as min/max sums: a select between computed values is not if-converted by the
      // compiler under -ftrapping-math (it would branch on the sign instead of vectorizing). NaN propagates.
      case UnaryOp::LeakyRelu:
        return same([s = A(g.a)](A a) { return std::max(a, A(0)) + s * std::min(a, A(0)); });
      case UnaryOp::Elu:  // scale * (x > 0 ? x : alpha * (exp(x * input_scale) - 1))
        return same([neg = A(g.a * g.b), pos = A(g.b), in = A(g.c)](A a) {
          return a > A(0) ? a * pos : std::expm1(a * in) * neg;
        });
      case UnaryOp::Hardswish:
        return same([](A a) { return a * std::min(std::max(a + A(3), A(0)), A(6)) / A(6); });
      case UnaryOp::Hardsigmoid: return same([](A a) { return std::min(std::max(a + A(3), A(0)), A(6)) / A(6); });
      case UnaryOp::Softsign: return same([](A a) { return a / (A(1) + std::fabs(a)); });
      case UnaryOp::Tanhshrink: return same([](A a) { return a - std::tanh(a); });
      case UnaryOp::Threshold: return same([t = A(g.a), v = A(g.b)](A a) { return a <= t ? v : a; });
      case UnaryOp::LogSigmoid:  // -softplus(-x), stable for large |x|
        return same([](A a) { return std::min(a, A(0)) - std::log1p(std::exp(-std::fabs(a))); });
      case UnaryOp::Hardshrink: return same([l = A(g.a)](A a) { return a >= -l && a <= l ? A(0) : a; });
      case UnaryOp::Softshrink:
        return same([l = A(g.a)](A a) { return std::max(a - l, A(0)) + std::min(a + l, A(0)); });
      default: break;
    }
  }
  switch (op) {
    case UnaryOp::LogicalNot: return pred([](A a) { return a == A(0); });
    case UnaryOp::IsNan: return pred([](A a) { return a != a; });
    case UnaryOp::IsInf:
      if constexpr (fp) return pred([](A a) { return std::isinf(a); });
      else return pred([](A) { return false; });
    case UnaryOp::IsPosInf:
      if constexpr (fp) return pred([](A a) { return a == A(INFINITY); });
      else return pred([](A) { return false; });
    case UnaryOp::IsNegInf:
      if constexpr (fp) return pred([](A a) { return a == A(-INFINITY); });
      else return pred([](A) { return false; });
    case UnaryOp::IsFinite:
      if constexpr (fp) return pred([](A a) { return std::isfinite(a); });
      else return pred([](A) { return true; });
    case UnaryOp::SignBit:
      // The sign bit of the 16-bit types is read from their bits (std::signbit on the converted float
      // also crashes GCC 12's vectorizer).
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
        return cpu_kernel<bool, T, 1>(it, [](T a) { return (a.x >> 15) != 0; });
      else if constexpr (fp) return pred([](A a) { return std::signbit(a); });
      else if constexpr (std::is_signed_v<T>) return pred([](A a) { return a < 0; });
      else return pred([](A) { return false; });
    default:
      fail<NotImplementedError>(unary_op_name(op), ": no CPU kernel for dtype ", scalar_type_of<T>);
  }
}

// grad_in = g * op'(v) for the fused activation backward (nn/activation.h), v the input or the result as the
// op's formula saves it; any layout and the 16-bit floats. Values at the kinks follow PyTorch's backward kernels.
// One case per op of fused_unary_backward's list (nn/activation.cpp; test_nn_activation.py runs each of them).
template <class T>
void run_unary_backward(UnaryOp op, const StridedIter& it, const UnaryArgs& args) {
  using A = Acc<T>;
  auto grad = [&](auto f) { cpu_kernel<T, T, 2>(it, [f](T g, T v) -> T { return static_cast<T>(f(A(g), A(v))); }); };
  auto sigmoid = [](A x) { return A(1) / (A(1) + std::exp(-x)); };
  switch (op) {
    case UnaryOp::Relu: return grad([](A g, A r) { return r > A(0) ? g : A(0); });
    case UnaryOp::Sigmoid: return grad([](A g, A r) { return g * (r * (A(1) - r)); });
    case UnaryOp::Tanh: return grad([](A g, A r) { return g * (A(1) - r * r); });
    case UnaryOp::Gelu:  // Phi(x) + x phi(x)
      return grad([](A g, A x) {
        const A cdf = A(0.5) * std::erfc(-x * A(M_SQRT1_2)), pdf = A(0.5 * M_2_SQRTPI * M_SQRT1_2);
        return g * (cdf + x * pdf * std::exp(A(-0.5) * x * x));
      });
    case UnaryOp::GeluTanh:  // x sigmoid(v), v = 2k (x + c x^3)
      return grad([sigmoid](A g, A x) {
        const A k2 = A(M_2_SQRTPI * M_SQRT2), c = A(0.044715), s = sigmoid(k2 * (x + c * x * x * x));
        return g * (s + x * s * (A(1) - s) * k2 * (A(1) + A(3) * c * x * x));
      });
    case UnaryOp::Silu:
      return grad([sigmoid](A g, A x) {
        const A s = sigmoid(x);
        return g * (s * (A(1) + x * (A(1) - s)));
      });
    case UnaryOp::Mish:
      return grad([sigmoid](A g, A x) {
        const A t = std::tanh(std::log1p(std::exp(x)));
        return g * (t + x * sigmoid(x) * (A(1) - t * t));
      });
    case UnaryOp::Softplus:
      return grad([sigmoid, beta = A(args.a), threshold = A(args.b)](A g, A x) {
        return x * beta > threshold ? g : g * sigmoid(x * beta);
      });
    case UnaryOp::Elu:
      return grad([pos = A(args.b), neg = A(args.a * args.b * args.c), in = A(args.c)](A g, A x) {
        return x > A(0) ? g * pos : g * (neg * std::exp(x * in));
      });
    case UnaryOp::LeakyRelu: return grad([s = A(args.a)](A g, A x) { return x > A(0) ? g : g * s; });
    case UnaryOp::Hardtanh:
      return grad([lo = A(args.a), hi = A(args.b)](A g, A x) { return x > lo && x < hi ? g : A(0); });
    case UnaryOp::Hardsigmoid: return grad([](A g, A x) { return x > A(-3) && x < A(3) ? g / A(6) : A(0); });
    case UnaryOp::Hardswish:
      return grad([](A g, A x) { return x < A(-3) ? A(0) : x <= A(3) ? g * (x / A(3) + A(0.5)) : g; });
    default: fail<NotImplementedError>(unary_op_name(op), ": no fused backward kernel");
  }
}

// Contiguous float32/float64 data in and out: the Sleef vector functions, chunked across threads.
template <class T>
bool try_vectorized(UnaryOp op, const StridedIter& it, const UnaryArgs& args) {
  if (!it.is_contiguous() || it.dtypes[0] != scalar_type_of<T> || it.dtypes[1] != scalar_type_of<T>) return false;
  const T* in = reinterpret_cast<const T*>(it.data[1]);
  T* out = reinterpret_cast<T*>(it.data[0]);
  if (!vec_unary(op, in, out, 0, args)) return false;  // no vector version of this op
  parallel_for(0, it.numel, kGrainSize, [&](int64_t b, int64_t e) { vec_unary(op, in + b, out + b, e - b, args); });
  return true;
}

void unary(UnaryOp op, const Tensor& out, const Tensor& in, ScalarType compute, const UnaryArgs& args) {
  StridedIter it = StridedIter::make({&out, &in}, out.sizes());
  if (compute == ScalarType::Float32 && try_vectorized<float>(op, it, args)) return;
  if (compute == ScalarType::Float64 && try_vectorized<double>(op, it, args)) return;
  dispatch_all(compute, [&](auto v) { run_unary<decltype(v)>(op, it, args); });
}

void unary_backward(UnaryOp op, const Tensor& grad_in, const Tensor& grad_out, const Tensor& v, const UnaryArgs& args) {
  StridedIter it = StridedIter::make({&grad_in, &grad_out, &v}, grad_in.sizes());
  const ScalarType t = grad_in.dtype();
  const bool vec_dtype = t == ScalarType::Float32 || t == ScalarType::Float64;
  if (vec_dtype && it.is_contiguous() && it.dtypes[1] == t && it.dtypes[2] == t) {
    auto vec = [&](auto* out, auto* g, auto* x) {
      if (!vec_unary_backward(op, g, x, out, 0, args)) return false;
      parallel_for(0, it.numel, kGrainSize,
                   [&](int64_t b, int64_t e) { vec_unary_backward(op, g + b, x + b, out + b, e - b, args); });
      return true;
    };
    const bool done = t == ScalarType::Float32
        ? vec(reinterpret_cast<float*>(it.data[0]), reinterpret_cast<const float*>(it.data[1]),
              reinterpret_cast<const float*>(it.data[2]))
        : vec(reinterpret_cast<double*>(it.data[0]), reinterpret_cast<const double*>(it.data[1]),
              reinterpret_cast<const double*>(it.data[2]));
    if (done) return;
  }
  switch (t) {
    case ScalarType::Float16: return run_unary_backward<Half>(op, it, args);
    case ScalarType::BFloat16: return run_unary_backward<BFloat16>(op, it, args);
    case ScalarType::Float32: return run_unary_backward<float>(op, it, args);
    case ScalarType::Float64: return run_unary_backward<double>(op, it, args);
    default: fail<TypeError>(unary_op_name(op), " backward: floating dtypes only, got ", type_label(t));
  }
}

}  // namespace

EMBER_REGISTER_KERNEL(unary, CPU, unary)
EMBER_REGISTER_KERNEL(unary_backward, CPU, unary_backward)

}  // namespace ember::cpu
