// The formulas of the complex elementwise kernels on CUDA (Note [Complex kernels on CUDA] in complex.cu), as
// host-and-device functors over ember::Complex<T> and libcu++'s cuda::std::complex functions. A plain C++ header (with
// the toolkit's CCCL headers on the include path), so that tests/test_cuda_complex_ops.cpp checks the formulas on the
// host against std::complex, machines without a GPU included.
#pragma once

#include <cuda/std/cmath>
#include <cuda/std/complex>

#include <cstdint>

#include "ember/complex.h"
#include "ember/macros.h"
#include "ember/ops/unary_op.h"

namespace ember::cuda::complex_ops {

namespace cstd = ::cuda::std;

template <class T>
EMBER_HOST_DEVICE cstd::complex<T> to_std(Complex<T> z) {
  return {z.re, z.im};
}
template <class T>
EMBER_HOST_DEVICE Complex<T> from_std(cstd::complex<T> z) {
  return {z.real(), z.imag()};
}

// The C -> C functions, chosen by UnaryOp (unary_same lists those it computes).
template <class T>
struct UnaryFn {
  UnaryOp op;
  EMBER_HOST_DEVICE Complex<T> operator()(Complex<T> a) const {
    using S = cstd::complex<T>;
    const S z = to_std(a);
    constexpr T ln2 = T(0.693147180559945309417232121458176568);
    switch (op) {
      case UnaryOp::Neg: return -a;
      case UnaryOp::Sgn: {
        if (a.re == T(0) && a.im == T(0)) return Complex<T>(0);
        const T r = cstd::hypot(a.re, a.im);
        return {a.re / r, a.im / r};
      }
      case UnaryOp::Square: return a * a;
      case UnaryOp::Reciprocal: return Complex<T>(1) / a;
      case UnaryOp::Sqrt: return from_std(cstd::sqrt(z));
      case UnaryOp::Rsqrt: return from_std(T(1) / cstd::sqrt(z));
      case UnaryOp::Exp: return from_std(cstd::exp(z));
      case UnaryOp::Exp2: return from_std(cstd::exp(z * ln2));
      case UnaryOp::Expm1: {  // exp(z) - 1 without the real part's cancellation: expm1(x)cos(y) - 2 sin^2(y/2)
        const T s = cstd::sin(a.im / 2);
        return {cstd::expm1(a.re) * cstd::cos(a.im) - 2 * s * s, cstd::exp(a.re) * cstd::sin(a.im)};
      }
      case UnaryOp::Log: return from_std(cstd::log(z));
      case UnaryOp::Log2: return from_std(cstd::log(z) / ln2);
      case UnaryOp::Log10: return from_std(cstd::log10(z));
      case UnaryOp::Log1p: return from_std(cstd::log(T(1) + z));
      case UnaryOp::Sin: return from_std(cstd::sin(z));
      case UnaryOp::Cos: return from_std(cstd::cos(z));
      case UnaryOp::Tan: return from_std(cstd::tan(z));
      case UnaryOp::Asin: return from_std(cstd::asin(z));
      case UnaryOp::Acos: return from_std(cstd::acos(z));
      case UnaryOp::Atan: return from_std(cstd::atan(z));
      case UnaryOp::Sinh: return from_std(cstd::sinh(z));
      case UnaryOp::Cosh: return from_std(cstd::cosh(z));
      case UnaryOp::Tanh: return from_std(cstd::tanh(z));
      case UnaryOp::Asinh: return from_std(cstd::asinh(z));
      case UnaryOp::Acosh: return from_std(cstd::acosh(z));
      case UnaryOp::Atanh: return from_std(cstd::atanh(z));
      case UnaryOp::Sigmoid: return from_std(T(1) / (T(1) + cstd::exp(-z)));
      default: return a;  // unreachable: unary_complex admits only the ops above
    }
  }
};

inline bool unary_same(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg:
    case UnaryOp::Sgn:
    case UnaryOp::Square:
    case UnaryOp::Reciprocal:
    case UnaryOp::Sqrt:
    case UnaryOp::Rsqrt:
    case UnaryOp::Exp:
    case UnaryOp::Exp2:
    case UnaryOp::Expm1:
    case UnaryOp::Log:
    case UnaryOp::Log2:
    case UnaryOp::Log10:
    case UnaryOp::Log1p:
    case UnaryOp::Sin:
    case UnaryOp::Cos:
    case UnaryOp::Tan:
    case UnaryOp::Asin:
    case UnaryOp::Acos:
    case UnaryOp::Atan:
    case UnaryOp::Sinh:
    case UnaryOp::Cosh:
    case UnaryOp::Tanh:
    case UnaryOp::Asinh:
    case UnaryOp::Acosh:
    case UnaryOp::Atanh:
    case UnaryOp::Sigmoid: return true;
    default: return false;
  }
}

template <class T>
struct AbsFn {
  EMBER_HOST_DEVICE T operator()(Complex<T> a) const { return cstd::hypot(a.re, a.im); }
};

template <class T>
struct PredFn {
  UnaryOp op;
  EMBER_HOST_DEVICE bool operator()(Complex<T> a) const {
    switch (op) {
      case UnaryOp::IsNan: return cstd::isnan(a.re) || cstd::isnan(a.im);
      case UnaryOp::IsInf: return cstd::isinf(a.re) || cstd::isinf(a.im);
      case UnaryOp::IsFinite: return cstd::isfinite(a.re) && cstd::isfinite(a.im);
      default: return a.re == T(0) && a.im == T(0);  // LogicalNot
    }
  }
};

// a + s * b (s = alpha, or -alpha for Sub), a * b, a / b, a ** b. Add and Sub with s = +-1 skip the product, which
// would turn an infinite part of b into NaN (0 * inf).
enum class Arith : uint8_t { Add, Sub, AddScaled, Mul, Div, Pow };

template <class T>
struct ArithFn {
  Arith op;
  Complex<T> s;
  EMBER_HOST_DEVICE Complex<T> operator()(Complex<T> a, Complex<T> b) const {
    switch (op) {
      case Arith::Add: return a + b;
      case Arith::Sub: return a - b;
      case Arith::AddScaled: return a + s * b;
      case Arith::Mul: return a * b;
      case Arith::Div: return a / b;
      default:
        if (b == Complex<T>(2)) return a * a;
        if (b == Complex<T>(0)) return Complex<T>(1);  // 0 ** 0 is 1, as in Python and PyTorch
        return from_std(cstd::pow(to_std(a), to_std(b)));
    }
  }
};

template <class T>
struct EqFn {
  bool ne;
  EMBER_HOST_DEVICE bool operator()(Complex<T> a, Complex<T> b) const { return (a == b) != ne; }
};

template <class T>
struct WhereFn {
  EMBER_HOST_DEVICE Complex<T> operator()(Complex<T> c, Complex<T> x, Complex<T> y) const {
    return c != Complex<T>(0) ? x : y;
  }
};

}  // namespace ember::cuda::complex_ops
