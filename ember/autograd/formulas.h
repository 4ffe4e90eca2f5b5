// Recording of the elementwise op families, whose gradient formulas are one table each (elementwise_grad.cpp).
// The other op families record their formulas next to the op (Note [Recording an op]).
#pragma once

#include <functional>

#include "ember/ops/binary.h"
#include "ember/ops/ternary.h"
#include "ember/ops/unary_op.h"

namespace ember::autograd {

// out = op(a, b) was just computed out of place; records its node when needed.
void record_binary(BinaryOp op, const Operand& a, const Operand& b, const Tensor& out, const Scalar& alpha);
void record_unary(UnaryOp op, const Tensor& x, const Tensor& out, const UnaryArgs& args);
// Whether op's gradient formula reads its input (rather than its result or nothing).
bool unary_grad_reads_input(UnaryOp op);
// The in-place op on self while recording, for an op whose gradient formula reads only its result (relu_, sigmoid_,
// tanh_, ...): `write(r)` computes it in place into r, an alias of self's memory, and self takes the op's node, which
// saves self's new value (Note [In-place activations]). False, having done nothing, for other ops.
bool inplace_unary_reading_result(UnaryOp op, const char* name, const Tensor& self, const UnaryArgs& args,
                                  const std::function<void(const Tensor&)>& write);
void record_ternary(TernaryOp op, const Operand& a, const Operand& b, const Operand& c, const Tensor& out,
                    const Scalar& value);

}  // namespace ember::autograd
