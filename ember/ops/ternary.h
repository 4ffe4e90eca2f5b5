// Ternary elementwise ops: where, lerp, addcmul, addcdiv.
#pragma once

#include "ember/backend/kernels.h"
#include "ember/ops/binary.h"
#include "ember/tensor.h"

namespace ember {

enum class TernaryOp : uint8_t { Where, Lerp, AddCMul, AddCDiv };

// out = op(a, b, c) over broadcast operands computed in `compute`; value scales AddCMul/AddCDiv.
EMBER_DECLARE_KERNEL(ternary, TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c,
                     ScalarType compute, const Scalar& value)

// condition ? x : y; x and y promote like a binary op.
Tensor where(const Tensor& condition, const Operand& x, const Operand& y);
// start + weight * (end - start)
Tensor lerp(const Tensor& start, const Tensor& end, const Operand& weight);
Tensor addcmul(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor addcdiv(const Tensor& input, const Tensor& t1, const Tensor& t2, const Scalar& value = 1);
Tensor ternary_op(TernaryOp op, const Operand& a, const Operand& b, const Operand& c, const Tensor& out = {},
                  const Scalar& value = 1);

}  // namespace ember
