// The fused gradients of the activations, for the unary family's backward formulas (autograd/elementwise_grad.cpp).
#pragma once

#include "ember/ops/unary.h"
#include "ember/tensor.h"

namespace ember {

// Note [Fused activation backward]
// The gradients of relu, sigmoid, tanh, gelu (both forms), silu, mish, softplus, elu (selu, celu), leaky_relu,
// hardtanh, hardsigmoid and hardswish run as one kernel pass over (grad_out, v), v the input or the result as the
// op's formula saves it, instead of the several ops of their composed formulas (autograd/elementwise_grad.cpp).
// The kernel is not differentiable, so it serves only backward passes that are not recorded (create_graph off);
// with create_graph the composition runs and gives the second derivatives. Undefined when it does not apply (another
// op, dtypes or shapes that differ, or no kernel for the device): the caller then composes.
Tensor fused_unary_backward(UnaryOp op, const Tensor& grad_out, const Tensor& v, const UnaryArgs& args);

}  // namespace ember
