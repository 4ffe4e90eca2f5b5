// Helpers shared by the C++ tests.
#pragma once

#include <vector>

#include "ember/ops.h"

namespace ember::testing {

// t's elements as float64, in row-major order (any layout, dtype or CPU device).
inline std::vector<double> values(const Tensor& t) {
  const Tensor c = contiguous(to(t, ScalarType::Float64));
  const double* p = c.data<double>();
  return std::vector<double>(p, p + c.numel());
}

}  // namespace ember::testing
