// CUDA ternary kernels: the shared formulas (ember/backend/math/ternary.h) over gpu_kernel; operands may be 0-d CPU
// tensors, passed by value (elementwise.cuh).
#include "ember/backend/cuda/elementwise.cuh"
#include "ember/backend/kernels/ternary.h"
#include "ember/backend/math/ternary.h"

namespace ember::cuda {

bool ternary_complex(TernaryOp op, const Runner& r, ScalarType compute);  // complex.cu

namespace {

void ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, ScalarType compute,
             const Scalar& value) {
  DeviceGuard g(out.device().index);
  std::array<const Tensor*, 3> host{};
  const StridedIter it = device_operands<3>(out, {&a, &b, &c}, host);
  if (is_complex(compute)) {
    if (!ternary_complex(op, Runner{it, host, out.device().index}, compute))
      fail<NotImplementedError>(ternary_op_name(op), ": no CUDA kernel for dtype ", compute);
    return;
  }
  dispatch_all(compute, [&](auto v) {
    math::ternary_ops<decltype(v)>(op, Runner{it, host, out.device().index}, value);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(ternary, CUDA, ternary)

}  // namespace ember::cuda
