// The kernel of the activations' fused gradients (ember/ops/detail/unary_backward.h).
#pragma once

#include "ember/backend/kernels.h"
#include "ember/ops/unary_op.h"
#include "ember/tensor.h"

namespace ember {

// grad_in = grad_out * op'(v) in one pass (Note [Fused activation backward]); all three of one shape, floating dtype
// and device, grad_in contiguous.
EMBER_DECLARE_KERNEL(unary_backward, UnaryOp op, const Tensor& grad_in, const Tensor& grad_out, const Tensor& v,
                     const UnaryArgs& args)

}  // namespace ember
