#include "ember/backend/cpu/binary.h"
#include "ember/backend/kernels/binary.h"

namespace ember::cpu {

void zero_division(const char* op) { fail<Error>("ZeroDivisionError: integer division by zero in ", op); }

namespace {
void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute, const Scalar& alpha) {
  StridedIter it = StridedIter::make({&out, &a, &b}, out.sizes());
  if (is_complex(compute)) {
    if (!binary_complex(op, it, compute, alpha))
      fail<NotImplementedError>(binary_op_name(op), ": no CPU kernel for dtype ", compute);
    return;
  }
  if (is_special(op)) {
    if (!binary_special(op, it, compute, alpha))
      fail<NotImplementedError>(binary_op_name(op), ": no CPU kernel for dtype ", compute);
    return;
  }
  if (!binary_arith(op, it, compute, alpha) && !binary_logic(op, it, compute))
    fail<NotImplementedError>(binary_op_name(op), ": no CPU kernel for dtype ", compute);
}
}  // namespace

EMBER_REGISTER_KERNEL(binary, CPU, binary)

}  // namespace ember::cpu
