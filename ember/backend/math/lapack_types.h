// The element types of the LAPACK kernels (CPU LAPACK and cuSOLVER alike): float, double, Complex<float> and
// Complex<double>, their real counterparts, and the choice of the S/D/C/Z routine for one of them.
#pragma once

#include <type_traits>

#include "ember/complex.h"

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

}  // namespace ember::lapack_types
