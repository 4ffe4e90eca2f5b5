// The elementwise kernels of complex64/complex128 on CUDA: the ops of the CPU's (backend/cpu/complex.cpp), through
// the one launcher (Note [CUDA elementwise launcher]). The transcendental functions are libcu++'s cuda::std::complex
// ones (C99 Annex G branch cuts, as the C library's that the CPU uses). Note [Complex kernels on CUDA].
//
// Note [Complex kernels on CUDA]
// nvcc compiles three kernels per functor and dtype (linear, strided with 32- and 64-bit offsets), and a complex
// transcendental function is large. So the ops of one signature share a functor that switches on the op at run
// time (the branch is uniform across the grid, and the kernels are bound by memory): one functor for C -> C
// (arithmetic with a scalar and the unary functions), one for C, C -> C, one each for C -> bool and C, C -> bool.
// That is 6 functors x 2 dtypes instead of ~35 x 2, and keeps this file's compile time near a real one's.
#include <cuda/std/cmath>
#include <cuda/std/complex>

#include "ember/backend/cuda/elementwise.cuh"
#include "ember/backend/kernels/binary.h"
#include "ember/backend/kernels/ternary.h"
#include "ember/backend/kernels/unary.h"

namespace ember::cuda {

namespace {

namespace cstd = ::cuda::std;

template <class T>
__device__ __forceinline__ cstd::complex<T> to_std(Complex<T> z) {
  return {z.re, z.im};
}
template <class T>
__device__ __forceinline__ Complex<T> from_std(cstd::complex<T> z) {
  return {z.real(), z.imag()};
}

// The C -> C ops: op codes of UnaryOp, and AddScalar... for none (the binary functor handles scalars).
template <class T>
struct UnaryFn {
  UnaryOp op;
  __device__ Complex<T> operator()(Complex<T> a) const {
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

bool unary_same(UnaryOp op) {
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
  __device__ T operator()(Complex<T> a) const { return cstd::hypot(a.re, a.im); }
};

template <class T>
struct PredFn {
  UnaryOp op;
  __device__ bool operator()(Complex<T> a) const {
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
  __device__ Complex<T> operator()(Complex<T> a, Complex<T> b) const {
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
  __device__ bool operator()(Complex<T> a, Complex<T> b) const { return (a == b) != ne; }
};

template <class T>
struct WhereFn {
  __device__ Complex<T> operator()(Complex<T> c, Complex<T> x, Complex<T> y) const {
    return c != Complex<T>(0) ? x : y;
  }
};

template <class T>
struct Identity {
  __device__ T operator()(T x) const { return x; }
};

template <class T>
struct FillFn {
  T v;
  __device__ void operator()(char* const* p) const { *reinterpret_cast<T*>(p[0]) = v; }
};

}  // namespace

bool unary_complex(UnaryOp op, const Runner& r, ScalarType compute) {
  return dispatch_complex(compute, [&](auto v) {
    using C = decltype(v);
    using T = typename C::value_type;
    if (unary_same(op)) {
      r.kernel<C, C, 1>(UnaryFn<T>{op});
      return true;
    }
    switch (op) {
      case UnaryOp::Abs: r.kernel<T, C, 1>(AbsFn<T>{}); return true;
      case UnaryOp::IsNan:
      case UnaryOp::IsInf:
      case UnaryOp::IsFinite:
      case UnaryOp::LogicalNot: r.kernel<bool, C, 1>(PredFn<T>{op}); return true;
      default: return false;
    }
  });
}

bool binary_complex(BinaryOp op, const Runner& r, ScalarType compute, const Scalar& alpha) {
  return dispatch_complex(compute, [&](auto v) {
    using C = decltype(v);
    using T = typename C::value_type;
    ArithFn<T> f{Arith::Mul, C(1)};
    switch (op) {
      case BinaryOp::Add:
      case BinaryOp::Sub: {
        f.s = op == BinaryOp::Sub ? -alpha.to<C>() : alpha.to<C>();
        f.op = f.s == C(1) ? Arith::Add : f.s == C(-1) ? Arith::Sub : Arith::AddScaled;
        break;
      }
      case BinaryOp::Mul: f.op = Arith::Mul; break;
      case BinaryOp::Div: f.op = Arith::Div; break;
      case BinaryOp::Pow: f.op = Arith::Pow; break;
      case BinaryOp::Eq:
      case BinaryOp::Ne: r.kernel<bool, C, 2>(EqFn<T>{op == BinaryOp::Ne}); return true;
      default: return false;
    }
    r.kernel<C, C, 2>(f);
    return true;
  });
}

bool ternary_complex(TernaryOp op, const Runner& r, ScalarType compute) {
  if (op != TernaryOp::Where) return false;
  dispatch_complex(compute, [&](auto v) {
    using C = decltype(v);
    r.kernel<C, C, 3>(WhereFn<typename C::value_type>{});
  });
  return true;
}

// dst or src complex: one functor per complex dtype, the other side cast by the launcher on load or store.
void copy_complex(const Tensor& dst, const Tensor& src) {
  StridedIter it = StridedIter::make({&dst, &src}, dst.sizes());
  dispatch_complex(is_complex(dst.dtype()) ? dst.dtype() : src.dtype(), [&](auto v) {
    using C = decltype(v);
    gpu_kernel<C, C, 1>(it, Identity<C>{});
  });
}

void fill_complex(const Tensor& dst, const Scalar& value) {
  StridedIter it = StridedIter::make({&dst}, dst.sizes());
  dispatch_complex(dst.dtype(), [&](auto v) {
    using C = decltype(v);
    launch_elementwise<1>(it, FillFn<C>{value.to<C>()});
  });
}

}  // namespace ember::cuda
