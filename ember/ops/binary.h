// Binary elementwise ops: arithmetic, comparison, logical and bitwise ops and the binary special functions, with
// broadcasting and PyTorch's type promotion (Python numbers are weak: docs/dtypes.md). The ops, their names, dtype
// rules and C++ functions come from one table, ember/ops/binary.def (Note [Op tables]); the enum is in binary_op.h.
#pragma once

#include <optional>
#include <string_view>

#include "ember/ops/binary_op.h"
#include "ember/ops/operand.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

// The general entry: out-of-place when out is undefined, else writes into out (in-place when out is a). alpha
// scales b for Add and Sub; it carries the family of OrthogonalPolynomial.
Tensor binary_op(BinaryOp op, const Operand& a, const Operand& b, const Tensor& out = {}, const Scalar& alpha = 1);

// div's op for a rounding mode: nullopt (true division, op itself), "trunc" or "floor"; raises for anything else.
BinaryOp rounded(BinaryOp op, std::optional<std::string_view> rounding_mode);

// The parameter types of a row's function: an Operand where its `numbers` lets a Python number stand for the operand
// (PyTorch's Scalar overloads), else a Tensor; and its keyword parameter.
#define EMBER_BINARY_INPUT_Both const Operand&
#define EMBER_BINARY_INPUT_Other const Tensor&
#define EMBER_BINARY_INPUT_Neither const Tensor&
#define EMBER_BINARY_OTHER_Both const Operand&
#define EMBER_BINARY_OTHER_Other const Operand&
#define EMBER_BINARY_OTHER_Neither const Tensor&
#define EMBER_BINARY_KEYWORD_none
#define EMBER_BINARY_KEYWORD_alpha , const Scalar& alpha = 1
#define EMBER_BINARY_KEYWORD_rounding_mode , std::optional<std::string_view> rounding_mode = std::nullopt

// One function per row of the table: ember::add(input, other, alpha = 1), ember::div(input, other, rounding_mode),
// ember::eq(const Tensor&, const Operand&), ember::maximum(const Tensor&, const Tensor&), ember::xlogy,
// ember::special_zeta, ...
#define EMBER_BINARY_OP(op, name, kind, flags, numbers, keyword, ...) \
  Tensor name(EMBER_BINARY_INPUT_##numbers input, EMBER_BINARY_OTHER_##numbers other EMBER_BINARY_KEYWORD_##keyword);
#define EMBER_BINARY_SPECIAL(op, name, kind, formula, numbers, ...) \
  Tensor name(EMBER_BINARY_INPUT_##numbers input, EMBER_BINARY_OTHER_##numbers other);
#define EMBER_BINARY_CUSTOM(...)
#define EMBER_BINARY_ALIAS(...)
#define EMBER_BINARY_POLYNOMIAL(...)
#include "ember/ops/binary.def"
#undef EMBER_BINARY_OP
#undef EMBER_BINARY_SPECIAL
#undef EMBER_BINARY_CUSTOM
#undef EMBER_BINARY_ALIAS
#undef EMBER_BINARY_POLYNOMIAL

// The orthogonal polynomials p_n(x) of torch.special (chebyshev_polynomial_t, ..., legendre_polynomial_p): n is
// truncated to an integer, p_n = 0 for n < 0. No gradient (as PyTorch). One function per family too:
// ember::special_chebyshev_polynomial_t(x, n), ...
Tensor special_polynomial(Polynomial family, const Operand& x, const Operand& n);
#define EMBER_BINARY_OP(...)
#define EMBER_BINARY_SPECIAL(...)
#define EMBER_BINARY_CUSTOM(...)
#define EMBER_BINARY_ALIAS(...)
#define EMBER_BINARY_POLYNOMIAL(family, name, ...) Tensor special_##name(const Operand& x, const Operand& n);
#include "ember/ops/binary.def"
#undef EMBER_BINARY_OP
#undef EMBER_BINARY_SPECIAL
#undef EMBER_BINARY_CUSTOM
#undef EMBER_BINARY_ALIAS
#undef EMBER_BINARY_POLYNOMIAL

inline Tensor operator+(const Tensor& a, const Operand& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Operand& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Operand& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Operand& b) { return div(a, b); }
inline Tensor operator+(const Scalar& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Scalar& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Scalar& a, const Tensor& b) { return div(a, b); }
// Compound assignment writes into `a` (libtorch's a += b is a.add_(b)): the result must fit a's shape and dtype.
inline Tensor& operator+=(Tensor& a, const Operand& b) {
  binary_op(BinaryOp::Add, a, b, a);
  return a;
}
inline Tensor& operator-=(Tensor& a, const Operand& b) {
  binary_op(BinaryOp::Sub, a, b, a);
  return a;
}
inline Tensor& operator*=(Tensor& a, const Operand& b) {
  binary_op(BinaryOp::Mul, a, b, a);
  return a;
}
inline Tensor& operator/=(Tensor& a, const Operand& b) {
  binary_op(BinaryOp::Div, a, b, a);
  return a;
}

}  // namespace ember
