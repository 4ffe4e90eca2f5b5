// Complex tensors' views and helpers (ops/complex.cpp): real and imag parts as views, view_as_real/view_as_complex,
// building a complex tensor from parts (complex, polar), conjugation. docs/dtypes.md, "Complex numbers".
#pragma once

#include "ember/tensor.h"

namespace ember {

// A complex tensor's memory as a real tensor with a last dimension of 2 (re, im): a view.
Tensor view_as_real(const Tensor& t);
// The inverse: a real (float16/32/64) tensor whose last dimension is 2 with stride 1, read as complex; a view.
Tensor view_as_complex(const Tensor& t);
// The real and imaginary parts of a complex tensor, as writable views; real() of a real tensor is the tensor.
Tensor real(const Tensor& t);
Tensor imag(const Tensor& t);
// real + i imag, elementwise (broadcast); both float16, float32 or float64 of one dtype.
Tensor complex(const Tensor& real, const Tensor& imag);
// abs * (cos(angle) + i sin(angle)).
Tensor polar(const Tensor& abs, const Tensor& angle);
// The complex conjugate, as a new tensor (a real tensor is returned as it is); conj_physical_ conjugates in place.
Tensor conj_physical(const Tensor& t);
const Tensor& conj_physical_(const Tensor& t);
// The complex conjugate as a lazy view: a view with the conjugate bit flipped (Note [The conjugate bit] in
// ops/conj_bit.cpp); a real tensor is returned as it is.
Tensor conj(const Tensor& t);
// t with its conjugate bit materialized: a new tensor when t has the bit, t itself otherwise.
Tensor resolve_conj(const Tensor& t);
// The argument of each element (atan2(imag, real)); for real tensors 0 or pi (NaN for NaN).
Tensor angle(const Tensor& t);
// Whether each element has a zero imaginary part (all true for real tensors).
Tensor isreal(const Tensor& t);

}  // namespace ember
