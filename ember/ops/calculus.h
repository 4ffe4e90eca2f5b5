// Finite differences and trapezoidal integration (ops/calculus.cpp).
#pragma once

#include "ember/tensor.h"

namespace ember {

Tensor diff(const Tensor& t, int64_t n = 1, int64_t dim = -1, const Tensor& prepend = {}, const Tensor& append = {});
// Sample spacing dx, or the sample points x (broadcast along dim).
Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim = -1);
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);

}  // namespace ember
