// The ternary elementwise kernel (ops/ternary.cpp): one entry for the whole family, the op's formula chosen inside
// (ember/backend/math/ternary.h).
#pragma once

#include "ember/backend/kernels.h"
#include "ember/ops/ternary_op.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

// out = op(a, b, c) over broadcast operands computed in `compute`; value scales AddCMul/AddCDiv.
EMBER_DECLARE_KERNEL(ternary, TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
                     ScalarType compute, const Scalar& value)

}  // namespace ember
