// Type promotion (ops/promotion.cpp): torch.result_type's rules (docs/dtypes.md).
#pragma once

#include "ember/tensor.h"

namespace ember {

// torch.result_type over tensors and weak scalars: dimensioned tensors outrank 0-d tensors, which
// outrank Python numbers, each only when of a higher category (bool < integral < floating).
struct ResultTypeState {
  ScalarType dim_result = ScalarType::Bool, zero_dim_result = ScalarType::Bool, wrapped_result = ScalarType::Bool;
  bool has_dim = false, has_zero_dim = false, has_wrapped = false;
  void update(const Tensor& t);
  void update(const Scalar& s);
  ScalarType result() const;
};
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);

}  // namespace ember
