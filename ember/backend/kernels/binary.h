// The binary elementwise kernel (ops/binary.cpp): one entry for the whole family, the op's formula chosen inside
// (ember/backend/math/binary.h and special.h).
#pragma once

#include "ember/backend/kernels.h"
#include "ember/ops/binary_op.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

// out = op(a, b) over broadcast operands of one device; compute is the dtype the math runs in (the kernel casts
// operands on load and the result on store). alpha scales b for Add and Sub; it is OrthogonalPolynomial's family.
EMBER_DECLARE_KERNEL(binary, BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute,
                     const Scalar& alpha)

}  // namespace ember
