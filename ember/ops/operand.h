// One operand of an elementwise op: a tensor or a Python number, which is a weak type in promotion (docs/dtypes.md).
#pragma once

#include <type_traits>

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

// Holds a pointer to the tensor: an Operand lives no longer than the call it is an argument of.
struct Operand {
  const Tensor* t = nullptr;
  Scalar s;
  Operand(const Tensor& x) : t(&x) {}
  Operand(const Scalar& x) : s(x) {}
  template <class N, std::enable_if_t<std::is_arithmetic_v<N>, int> = 0>
  Operand(N x) : s(x) {}
};

}  // namespace ember
