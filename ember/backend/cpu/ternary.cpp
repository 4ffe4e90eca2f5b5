// CPU ternary kernels: the shared formulas (ember/backend/math/ternary.h) over cpu_kernel.
#include "ember/backend/cpu/binary.h"
#include "ember/backend/kernels/ternary.h"
#include "ember/backend/math/ternary.h"

namespace ember::cpu {

namespace {

void ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, ScalarType compute,
             const Scalar& value) {
  StridedIter it = StridedIter::make({&out, &a, &b, &c}, out.sizes());
  if (is_complex(compute)) {
    if (!ternary_complex(op, it, compute))
      fail<NotImplementedError>(ternary_op_name(op), ": no CPU kernel for dtype ", compute);
    return;
  }
  dispatch_all(compute, [&](auto v) { math::ternary_ops<decltype(v)>(op, Runner{it}, value); });
}

}  // namespace

EMBER_REGISTER_KERNEL(ternary, CPU, ternary)

}  // namespace ember::cpu
