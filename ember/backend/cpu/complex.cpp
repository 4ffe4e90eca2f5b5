// The elementwise kernels of complex64/complex128 on the CPU: arithmetic, comparisons for equality, and the unary
// functions PyTorch defines for complex numbers. The transcendental functions are std::complex's (the C library's
// C99 Annex G branch cuts, as NumPy's and PyTorch's CPU kernels); Complex<T> has std::complex<T>'s layout.
#include <cmath>
#include <complex>
#include <numbers>

#include "ember/backend/cpu/binary.h"

namespace ember::cpu {

namespace {

template <class T>
std::complex<T> to_std(Complex<T> z) {
  return {z.re, z.im};
}
template <class T>
Complex<T> from_std(std::complex<T> z) {
  return {z.real(), z.imag()};
}

template <class T>
void unary_ops(UnaryOp op, const StridedIter& it, bool& done) {
  using C = Complex<T>;
  using S = std::complex<T>;
  auto same = [&](auto f) { cpu_kernel<C, C, 1>(it, [f](C a) { return from_std<T>(f(to_std(a))); }); };
  auto pred = [&](auto f) { cpu_kernel<bool, C, 1>(it, f); };
  done = true;
  switch (op) {
    case UnaryOp::Neg: same([](S z) { return -z; }); return;
    case UnaryOp::Abs: cpu_kernel<T, C, 1>(it, [](C a) { return std::hypot(a.re, a.im); }); return;
    case UnaryOp::Sgn: same([](S z) { return z == S(0) ? S(0) : z / std::abs(z); }); return;
    case UnaryOp::Square: same([](S z) { return z * z; }); return;
    case UnaryOp::Reciprocal: cpu_kernel<C, C, 1>(it, [](C a) { return C(1) / a; }); return;
    case UnaryOp::Sqrt: same([](S z) { return std::sqrt(z); }); return;
    case UnaryOp::Rsqrt: same([](S z) { return T(1) / std::sqrt(z); }); return;
    case UnaryOp::Exp: same([](S z) { return std::exp(z); }); return;
    case UnaryOp::Exp2: same([](S z) { return std::exp(z * std::numbers::ln2_v<T>); }); return;
    case UnaryOp::Expm1:  // exp(z) - 1 with the real part's cancellation avoided: expm1(x)cos(y) - 2 sin^2(y/2)
      same([](S z) {
        const T x = z.real(), y = z.imag(), s = std::sin(y / 2);
        return S(std::expm1(x) * std::cos(y) - 2 * s * s, std::exp(x) * std::sin(y));
      });
      return;
    case UnaryOp::Log: same([](S z) { return std::log(z); }); return;
    case UnaryOp::Log2: same([](S z) { return std::log(z) / std::numbers::ln2_v<T>; }); return;
    case UnaryOp::Log10: same([](S z) { return std::log10(z); }); return;
    case UnaryOp::Log1p: same([](S z) { return std::log(T(1) + z); }); return;
    case UnaryOp::Sin: same([](S z) { return std::sin(z); }); return;
    case UnaryOp::Cos: same([](S z) { return std::cos(z); }); return;
    case UnaryOp::Tan: same([](S z) { return std::tan(z); }); return;
    case UnaryOp::Asin: same([](S z) { return std::asin(z); }); return;
    case UnaryOp::Acos: same([](S z) { return std::acos(z); }); return;
    case UnaryOp::Atan: same([](S z) { return std::atan(z); }); return;
    case UnaryOp::Sinh: same([](S z) { return std::sinh(z); }); return;
    case UnaryOp::Cosh: same([](S z) { return std::cosh(z); }); return;
    case UnaryOp::Tanh: same([](S z) { return std::tanh(z); }); return;
    case UnaryOp::Asinh: same([](S z) { return std::asinh(z); }); return;
    case UnaryOp::Acosh: same([](S z) { return std::acosh(z); }); return;
    case UnaryOp::Atanh: same([](S z) { return std::atanh(z); }); return;
    case UnaryOp::Sigmoid: same([](S z) { return T(1) / (T(1) + std::exp(-z)); }); return;
    case UnaryOp::IsNan: pred([](C a) { return std::isnan(a.re) || std::isnan(a.im); }); return;
    case UnaryOp::IsInf: pred([](C a) { return std::isinf(a.re) || std::isinf(a.im); }); return;
    case UnaryOp::IsFinite: pred([](C a) { return std::isfinite(a.re) && std::isfinite(a.im); }); return;
    case UnaryOp::LogicalNot: pred([](C a) { return a.re == 0 && a.im == 0; }); return;
    default: done = false;
  }
}

template <class T>
bool binary_ops(BinaryOp op, const StridedIter& it, const Scalar& alpha) {
  using C = Complex<T>;
  auto same = [&](auto f) { cpu_kernel<C, C, 2>(it, f); };
  auto pred = [&](auto f) { cpu_kernel<bool, C, 2>(it, f); };
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub: {
      const C s = op == BinaryOp::Sub ? -alpha.to<C>() : alpha.to<C>();
      if (s == C(1))
        same([](C a, C b) { return a + b; });
      else if (s == C(-1))
        same([](C a, C b) { return a - b; });
      else
        same([s](C a, C b) { return a + s * b; });
      return true;
    }
    case BinaryOp::Mul: same([](C a, C b) { return a * b; }); return true;
    case BinaryOp::Div: same([](C a, C b) { return a / b; }); return true;
    case BinaryOp::Pow:
      same([](C a, C b) {
        if (b == C(2)) return a * a;
        if (b == C(0)) return C(1);  // 0 ** 0 is 1, as in Python and PyTorch
        return from_std<T>(std::pow(to_std(a), to_std(b)));
      });
      return true;
    case BinaryOp::Eq: pred([](C a, C b) { return a == b; }); return true;
    case BinaryOp::Ne: pred([](C a, C b) { return a != b; }); return true;
    default: return false;
  }
}

}  // namespace

bool unary_complex(UnaryOp op, const StridedIter& it, ScalarType compute) {
  bool done = false;
  dispatch_complex(compute, [&](auto v) { unary_ops<typename decltype(v)::value_type>(op, it, done); });
  return done;
}

bool ternary_complex(TernaryOp op, const StridedIter& it, ScalarType compute) {
  if (op != TernaryOp::Where) return false;
  dispatch_complex(compute, [&](auto v) {
    using C = decltype(v);
    cpu_kernel<C, C, 3>(it, [](C cond, C x, C y) { return cond != C(0) ? x : y; });
  });
  return true;
}

bool binary_complex(BinaryOp op, const StridedIter& it, ScalarType compute, const Scalar& alpha) {
  return dispatch_complex(compute, [&](auto v) { return binary_ops<typename decltype(v)::value_type>(op, it, alpha); });
}

}  // namespace ember::cpu
