// A number not (yet) in a tensor: a Python bool, int, float or complex. As an operand it is a "weak" type:
// it takes part in promotion only by category (bool < integral < floating < complex), as in PyTorch.
#pragma once

#include <cstdint>
#include <type_traits>

#include "ember/dtype.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float, Complex };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool b) : kind_(Kind::Bool) { v_.i = b; }
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  Scalar(I i) : kind_(Kind::Int) {
    v_.i = static_cast<int64_t>(i);
  }
  Scalar(double d) : kind_(Kind::Float) { v_.d = d; }
  Scalar(float f) : Scalar(static_cast<double>(f)) {}
  Scalar(Half h) : Scalar(static_cast<double>(static_cast<float>(h))) {}
  Scalar(BFloat16 h) : Scalar(static_cast<double>(static_cast<float>(h))) {}
  Scalar(Complex<double> z) : kind_(Kind::Complex) {
    v_.d = z.re;
    im_ = z.im;
  }
  Scalar(Complex<float> z) : Scalar(Complex<double>(z)) {}

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating() const { return kind_ == Kind::Float; }
  bool is_complex() const { return kind_ == Kind::Complex; }

  // A complex number converts to a real type by its real part, as a tensor cast does.
  double to_double() const { return inexact() ? v_.d : static_cast<double>(v_.i); }
  int64_t to_int() const { return inexact() ? static_cast<int64_t>(v_.d) : v_.i; }
  bool to_bool() const { return inexact() ? v_.d != 0 || im_ != 0 : v_.i != 0; }
  Complex<double> to_complex() const { return {to_double(), im_}; }

  // The value converted to T with the same rules as a tensor cast.
  template <class T>
  T to() const {
    if constexpr (is_complex_v<T>)
      return T(to_complex());
    else if constexpr (std::is_same_v<T, bool>)
      return to_bool();
    else if constexpr (std::is_integral_v<T>)
      return static_cast<T>(to_int());
    else
      return static_cast<T>(to_double());
  }

  // The dtype a tensor made from this number gets (torch.tensor(3) is int64, torch.tensor(3.) float32).
  ScalarType default_dtype() const {
    if (kind_ == Kind::Complex) return default_complex_dtype();
    return kind_ == Kind::Bool ? ScalarType::Bool : kind_ == Kind::Int ? ScalarType::Int64 : ::ember::default_dtype();
  }

 private:
  bool inexact() const { return kind_ == Kind::Float || kind_ == Kind::Complex; }

  Kind kind_;
  union {
    int64_t i;
    double d;  // a complex number's real part
  } v_;
  double im_ = 0;
};

}  // namespace ember
