// Binary elementwise ops: arithmetic, comparison, logical and bitwise, with broadcasting and
// PyTorch's type promotion (Python numbers are weak: docs/dtypes.md).
#pragma once

#include <optional>
#include <string_view>

#include "ember/backend/kernels.h"
#include "ember/ops/operand.h"
#include "ember/tensor.h"

namespace ember {

enum class BinaryOp : uint8_t {
  Add, Sub, Mul, Div, DivTrunc, DivFloor, Remainder, Fmod, Pow, Atan2, Maximum, Minimum, Fmax, Fmin,
  Hypot, Copysign, BitAnd, BitOr, BitXor, Shl, Shr, LogicalAnd, LogicalOr, LogicalXor,
  Eq, Ne, Lt, Le, Gt, Ge,
  // special functions (ember/backend/math/special.h; declared in ember/ops/special.h)
  Logaddexp, Logaddexp2, Xlogy, Xlog1py, Heaviside, Gcd, Lcm, Nextafter, Igamma, Igammac, Zeta,
  OrthogonalPolynomial,  // p_n(x) of (x, n): the family (ember::Polynomial) travels as the kernel's alpha
};

// The special functions' ops, whose kernels are in backend/<device>/special.* (ember/backend/math/special.h).
inline bool is_special(BinaryOp op) { return op >= BinaryOp::Logaddexp; }

// out = op(a, b) over broadcast operands of one device; compute is the dtype the math runs in
// (the kernel casts operands on load and the result on store). alpha scales b for Add and Sub.
EMBER_DECLARE_KERNEL(binary, BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute,
                     const Scalar& alpha)

// The general entry: out-of-place when out is undefined, else writes into out (in-place when out is a).
Tensor binary_op(BinaryOp op, const Operand& a, const Operand& b, const Tensor& out = {}, const Scalar& alpha = 1);

Tensor add(const Operand& a, const Operand& b, const Scalar& alpha = 1);
Tensor sub(const Operand& a, const Operand& b, const Scalar& alpha = 1);
Tensor mul(const Operand& a, const Operand& b);
// rounding_mode: nullopt (true division), "trunc" or "floor".
Tensor div(const Operand& a, const Operand& b, std::optional<std::string_view> rounding_mode = std::nullopt);
Tensor floor_divide(const Operand& a, const Operand& b);
Tensor remainder(const Operand& a, const Operand& b);
Tensor fmod(const Operand& a, const Operand& b);
Tensor pow(const Operand& a, const Operand& b);
Tensor atan2(const Operand& a, const Operand& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
Tensor fmax(const Tensor& a, const Tensor& b);
Tensor fmin(const Tensor& a, const Tensor& b);
Tensor hypot(const Tensor& a, const Tensor& b);
Tensor copysign(const Operand& a, const Operand& b);
Tensor bitwise_and(const Operand& a, const Operand& b);
Tensor bitwise_or(const Operand& a, const Operand& b);
Tensor bitwise_xor(const Operand& a, const Operand& b);
Tensor bitwise_left_shift(const Operand& a, const Operand& b);
Tensor bitwise_right_shift(const Operand& a, const Operand& b);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
Tensor eq(const Operand& a, const Operand& b);
Tensor ne(const Operand& a, const Operand& b);
Tensor lt(const Operand& a, const Operand& b);
Tensor le(const Operand& a, const Operand& b);
Tensor gt(const Operand& a, const Operand& b);
Tensor ge(const Operand& a, const Operand& b);

// The name PyTorch users know for an op ("add", "bitwise_and", ...), for error messages.
const char* binary_op_name(BinaryOp op);

inline Tensor operator+(const Tensor& a, const Operand& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Operand& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Operand& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Operand& b) { return div(a, b); }
inline Tensor operator+(const Scalar& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Scalar& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Scalar& a, const Tensor& b) { return div(a, b); }

}  // namespace ember
