// The unary elementwise kernel (ops/unary.cpp): one entry for the whole family, the op's formula chosen inside
// (ember/backend/math/unary.h and special.h).
#pragma once

#include "ember/backend/kernels.h"
#include "ember/ops/unary_op.h"
#include "ember/tensor.h"

namespace ember {

// out = op(in), out and in of one shape and device; compute is the dtype the math runs in (the kernel casts on load
// and on store).
EMBER_DECLARE_KERNEL(unary, UnaryOp op, const Tensor& out, const Tensor& in, ScalarType compute, const UnaryArgs& args)

}  // namespace ember
