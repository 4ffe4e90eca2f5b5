// fused_unary_backward: the one-pass gradients of the activations (Note [Fused activation backward]).
#include "ember/ops/detail/unary_backward.h"

#include <algorithm>

#include "ember/backend/kernels/unary_backward.h"
#include "ember/ops.h"
#include "ember/ops/elementwise_layout.h"

namespace ember {

Tensor fused_unary_backward(UnaryOp op, const Tensor& grad_out, const Tensor& v, const UnaryArgs& args) {
  switch (op) {
    case UnaryOp::Relu:
    case UnaryOp::Sigmoid:
    case UnaryOp::Tanh:
    case UnaryOp::Gelu:
    case UnaryOp::GeluTanh:
    case UnaryOp::Silu:
    case UnaryOp::Mish:
    case UnaryOp::Softplus:
    case UnaryOp::Elu:
    case UnaryOp::LeakyRelu:
    case UnaryOp::Hardtanh:
    case UnaryOp::Hardsigmoid:
    case UnaryOp::Hardswish: break;
    default: return {};
  }
  if (!v.defined() || !grad_out.defined() || grad_out.dtype() != v.dtype() || !is_floating(v.dtype()) ||
      grad_out.device() != v.device() || !std::ranges::equal(grad_out.sizes(), v.sizes()) ||
      !unary_backward_kernel.fn[static_cast<int>(v.device().type)])
    return {};
  // laid out as its operands (a channels-last activation's gradient stays channels-last, and the kernel's walk dense)
  Tensor grad_in = empty_like_operands(v.sizes(), TensorOptions(v.dtype()).device(v.device()), {&grad_out, &v});
  if (grad_in.numel()) unary_backward_kernel[v.device()](op, grad_in, grad_out, v, args);
  return grad_in;
}

}  // namespace ember
