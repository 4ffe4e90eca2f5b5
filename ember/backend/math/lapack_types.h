// The element types of the LAPACK kernels (CPU LAPACK and cuSOLVER alike): float, double, Complex<float> and
// Complex<double>, their real counterparts, and the choice of the S/D/C/Z routine for one of them.
#pragma once

#include <type_traits>

#include "ember/complex.h"
#include "ember/dtype.h"

namespace ember::lapack_types {

template <class T>
struct RealOf {
  using type = T;
};
template <class T>
struct RealOf<Complex<T>> {
  using type = T;
};
// The real type of T (float for Complex<float>): singular values, eigenvalues of Hermitian matrices, rwork.
template <class T>
using Real = typename RealOf<T>::type;
template <class T>
constexpr bool kComplex = !std::is_same_v<T, Real<T>>;

// The routine for float (LAPACK's s..., cuSOLVER's S...), double (d/D), complex64 (c/C) or complex128 (z/Z).
template <class T, class S, class D, class C, class Z>
constexpr auto pick(S s, D d, C c, Z z) {
  if constexpr (std::is_same_v<T, float>)
    return s;
  else if constexpr (std::is_same_v<T, double>)
    return d;
  else if constexpr (std::is_same_v<T, Complex<float>>)
    return c;
  else
    return z;
}

// f(T{}) for float32, float64, complex64 and complex128; other() for any other dtype (it raises: the ops check
// dtypes first, so each backend words only its own message).
template <class F, class Other>
void on_lapack_type(ScalarType t, F&& f, Other&& other) {
  switch (t) {
    case ScalarType::Float32: return f(float{});
    case ScalarType::Float64: return f(double{});
    case ScalarType::ComplexFloat: return f(Complex<float>{});
    case ScalarType::ComplexDouble: return f(Complex<double>{});
    default: return other();
  }
}

}  // namespace ember::lapack_types
