// Ternary elementwise ops: where, lerp, addcmul, addcdiv, with broadcasting and PyTorch's type promotion. The ops,
// their names and C++ functions come from one table, ember/ops/ternary.def (Note [Op tables]); the enum is in
// ternary_op.h.
#pragma once

#include "ember/ops/operand.h"
#include "ember/ops/ternary_op.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

// The general entry: out-of-place when out is undefined, else writes into out (in place when out is an operand).
// value scales AddCMul/AddCDiv.
Tensor ternary_op(TernaryOp op, const Operand& a, const Operand& b, const Operand& c, const Tensor& out = {},
                  const Scalar& value = 1);

#define EMBER_TERNARY_KEYWORD_none
#define EMBER_TERNARY_KEYWORD_value , const Scalar& value = 1

// One function per row of the table: ember::where(condition, input, other) (condition ? input : other, which promote
// like a binary op's operands), ember::lerp(input, end, weight), ember::addcmul(input, tensor1, tensor2, value = 1),
// ember::addcdiv(...).
#define EMBER_TERNARY_OP(op, name, flags, A, B, C, keyword, ...) \
  Tensor name(const A& a, const B& b, const C& c EMBER_TERNARY_KEYWORD_##keyword);
#include "ember/ops/ternary.def"
#undef EMBER_TERNARY_OP

}  // namespace ember
