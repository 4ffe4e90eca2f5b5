// CUDA binary kernels: the shared formulas (ember/backend/math/binary.h) over gpu_kernel. An operand may be a 0-d
// CPU tensor (a Python number, or a CPU scalar joining a CUDA op): it is passed by value (elementwise.cuh).
#include "ember/backend/cuda/elementwise.cuh"
#include "ember/backend/kernels/binary.h"
#include "ember/backend/math/binary.h"

namespace ember::cuda {

bool binary_special(BinaryOp op, const Runner& r, ScalarType compute, const Scalar& alpha);  // special.cu
bool binary_complex(BinaryOp op, const Runner& r, ScalarType compute, const Scalar& alpha);  // complex.cu

namespace {

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute, const Scalar& alpha) {
  DeviceGuard g(out.device().index);
  std::array<const Tensor*, 3> host{};
  const StridedIter it = device_operands<2>(out, {&a, &b}, host);
  const Runner r{it, host, out.device().index};
  if (is_complex(compute)) {
    if (!binary_complex(op, r, compute, alpha))
      fail<NotImplementedError>(binary_op_name(op), ": no CUDA kernel for dtype ", compute);
    return;
  }
  if (is_special(op)) {
    if (!binary_special(op, r, compute, alpha))
      fail<NotImplementedError>(binary_op_name(op), ": no CUDA kernel for dtype ", compute);
    return;
  }
  const bool done = dispatch_all(compute, [&](auto v) {
    using T = decltype(v);
    return math::arith_ops<T>(op, r, alpha) || math::logic_ops<T>(op, r);
  });
  if (!done) fail<NotImplementedError>(binary_op_name(op), ": no CUDA kernel for dtype ", compute);
}

}  // namespace

EMBER_REGISTER_KERNEL(binary, CUDA, binary)

}  // namespace ember::cuda
