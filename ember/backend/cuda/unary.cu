// CUDA unary kernels and the fused activation backward: the shared formulas (ember/backend/math/unary.h) over
// gpu_kernel.
#include "ember/backend/cuda/elementwise.cuh"
#include "ember/backend/kernels/unary.h"
#include "ember/backend/kernels/unary_backward.h"
#include "ember/backend/math/unary.h"

namespace ember::cuda {

bool unary_special(UnaryOp op, const Runner& r, ScalarType compute, const UnaryArgs& args);  // special.cu
bool unary_complex(UnaryOp op, const Runner& r, ScalarType compute);                         // complex.cu

namespace {

void unary(UnaryOp op, const Tensor& out, const Tensor& in, ScalarType compute, const UnaryArgs& args) {
  DeviceGuard g(out.device().index);
  StridedIter it = StridedIter::make({&out, &in}, out.sizes());
  if (is_complex(compute)) {
    if (!unary_complex(op, Runner{it, {}, out.device().index}, compute))
      fail<NotImplementedError>(unary_op_name(op), ": no CUDA kernel for dtype ", compute);
    return;
  }
  if (is_special(op)) {
    if (!unary_special(op, Runner{it, {}, out.device().index}, compute, args))
      fail<NotImplementedError>(unary_op_name(op), ": no CUDA kernel for dtype ", compute);
    return;
  }
  dispatch_all(compute, [&](auto v) { math::unary_ops<decltype(v)>(op, Runner{it, {}, out.device().index}, args); });
}

void unary_backward(UnaryOp op, const Tensor& grad_in, const Tensor& grad_out, const Tensor& v, const UnaryArgs& args) {
  DeviceGuard g(grad_in.device().index);
  StridedIter it = StridedIter::make({&grad_in, &grad_out, &v}, grad_in.sizes());
  const Runner k{it, {}, grad_in.device().index};
  switch (grad_in.dtype()) {
    case ScalarType::Float16: return math::unary_backward_ops<Half>(op, k, args);
    case ScalarType::BFloat16: return math::unary_backward_ops<BFloat16>(op, k, args);
    case ScalarType::Float32: return math::unary_backward_ops<float>(op, k, args);
    case ScalarType::Float64: return math::unary_backward_ops<double>(op, k, args);
    default: fail<TypeError>(unary_op_name(op), " backward: floating dtypes only, got ", type_label(grad_in.dtype()));
  }
}

}  // namespace

EMBER_REGISTER_KERNEL(unary, CUDA, unary)
EMBER_REGISTER_KERNEL(unary_backward, CUDA, unary_backward)

}  // namespace ember::cuda
