// ember::Complex<T>: the element type of complex64/complex128, usable on the host and in CUDA device code (std::complex
// is not). Laid out as (re, im) with the alignment of twice T, as C99's, NumPy's and PyTorch's complex types, so that
// storages are shared zero-copy and BLAS's cgemm/zgemm read them. The transcendental functions are in
// ember/backend/math/complex_math.h: only the kernels need them.
#pragma once

#include "ember/macros.h"

namespace ember {

template <class T>
struct alignas(2 * sizeof(T)) Complex {
  using value_type = T;
  T re{}, im{};

  constexpr Complex() = default;
  EMBER_HOST_DEVICE constexpr Complex(T r, T i = T(0)) : re(r), im(i) {}
  template <class U>
  EMBER_HOST_DEVICE explicit constexpr Complex(const Complex<U>& o)
      : re(static_cast<T>(o.re)), im(static_cast<T>(o.im)) {}

  EMBER_HOST_DEVICE constexpr T real() const { return re; }
  EMBER_HOST_DEVICE constexpr T imag() const { return im; }

  EMBER_HOST_DEVICE Complex& operator+=(const Complex& o) {
    re += o.re;
    im += o.im;
    return *this;
  }
  EMBER_HOST_DEVICE Complex& operator-=(const Complex& o) {
    re -= o.re;
    im -= o.im;
    return *this;
  }
  EMBER_HOST_DEVICE Complex& operator*=(const Complex& o) { return *this = *this * o; }
  EMBER_HOST_DEVICE Complex& operator/=(const Complex& o) { return *this = *this / o; }

  EMBER_HOST_DEVICE friend constexpr Complex operator+(const Complex& a, const Complex& b) {
    return {a.re + b.re, a.im + b.im};
  }
  EMBER_HOST_DEVICE friend constexpr Complex operator-(const Complex& a, const Complex& b) {
    return {a.re - b.re, a.im - b.im};
  }
  EMBER_HOST_DEVICE friend constexpr Complex operator-(const Complex& a) { return {-a.re, -a.im}; }
  EMBER_HOST_DEVICE friend constexpr Complex operator*(const Complex& a, const Complex& b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  // Smith's algorithm: scales by the larger part of the divisor, so |b|^2 neither overflows nor underflows.
  EMBER_HOST_DEVICE friend Complex operator/(const Complex& a, const Complex& b) {
    const T ar = b.re < 0 ? -b.re : b.re, ai = b.im < 0 ? -b.im : b.im;
    if (ar >= ai) {
      if (ar == 0 && ai == 0) return {a.re / ar, a.im / ai};  // division by zero: inf or NaN parts, as C's
      const T r = b.im / b.re, d = b.re + b.im * r;
      return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
    }
    const T r = b.re / b.im, d = b.im + b.re * r;
    return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
  }
  EMBER_HOST_DEVICE friend constexpr bool operator==(const Complex& a, const Complex& b) {
    return a.re == b.re && a.im == b.im;
  }
  EMBER_HOST_DEVICE friend constexpr bool operator!=(const Complex& a, const Complex& b) { return !(a == b); }
};

template <class T>
EMBER_HOST_DEVICE constexpr Complex<T> conj(const Complex<T>& z) {
  return {z.re, -z.im};
}

template <class T>
struct is_complex_type {
  static constexpr bool value = false;
};
template <class T>
struct is_complex_type<Complex<T>> {
  static constexpr bool value = true;
};
template <class T>
inline constexpr bool is_complex_v = is_complex_type<T>::value;

static_assert(sizeof(Complex<float>) == 8 && alignof(Complex<float>) == 8);
static_assert(sizeof(Complex<double>) == 16 && alignof(Complex<double>) == 16);

}  // namespace ember
