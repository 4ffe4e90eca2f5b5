// Unary elementwise ops: math, activations, rounding, predicates.
#pragma once

#include <optional>

#include "ember/backend/kernels.h"
#include "ember/tensor.h"

namespace ember {

enum class UnaryOp : uint8_t {
  // same dtype as the input (bool and integers included where meaningful)
  Neg, Abs, Sign, Square, Relu, Floor, Ceil, Round, Trunc, BitNot, Clamp, NanToNum,
  // floating results (integer inputs compute in the default float dtype)
  Reciprocal, Sqrt, Rsqrt, Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Sin, Cos, Tan, Asin, Acos, Atan,
  Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Sigmoid, Logit, Gelu, GeluTanh, Silu, Softplus, Mish, Erf, Erfc,
  Erfinv, Frac,
  // special functions (ember/backend/math/special.h; floating compute dtypes only)
  Lgamma, Digamma, Polygamma, I0, I0e, I1, I1e, Sinc, Deg2Rad, Rad2Deg, Erfcx, Ndtr, Ndtri, LogNdtr, Entr,
  FrexpMantissa,
  // activations with parameters (floating inputs only; see ember/nn/activation.h)
  Hardtanh, LeakyRelu, Elu, Hardswish, Hardsigmoid, Softsign, Tanhshrink, Threshold, LogSigmoid, Hardshrink,
  Softshrink,
  // bool results
  LogicalNot, IsNan, IsInf, IsPosInf, IsNegInf, IsFinite, SignBit,
  // int32 result: the exponent of frexp (run by ember::frexp only)
  FrexpExponent,
};

// Parameters of the ops that take some: Clamp (lo, hi; NaN means unbounded), Round (decimals),
// Softplus (beta, threshold), Logit (eps, < 0 for none), NanToNum (nan, posinf, neginf), Hardtanh (min, max),
// LeakyRelu (slope), Elu (alpha, scale, input_scale), Threshold (threshold, value), Hardshrink and Softshrink
// (lambda), Polygamma (n).
struct UnaryArgs {
  double a = 0, b = 0, c = 0;
};

// The special functions' ops, whose kernels are in backend/<device>/special.* (ember/backend/math/special.h).
inline bool is_special(UnaryOp op) {
  return (op >= UnaryOp::Lgamma && op <= UnaryOp::FrexpMantissa) || op == UnaryOp::FrexpExponent;
}

EMBER_DECLARE_KERNEL(unary, UnaryOp op, const Tensor& out, const Tensor& in, ScalarType compute, const UnaryArgs& args)

Tensor unary_op(UnaryOp op, const Tensor& x, const Tensor& out = {}, const UnaryArgs& args = {});
const char* unary_op_name(UnaryOp op);

Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor sign(const Tensor& x);
Tensor square(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x, int64_t decimals = 0);
Tensor trunc(const Tensor& x);
Tensor frac(const Tensor& x);
Tensor reciprocal(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor gelu(const Tensor& x, bool tanh_approximation = false);
Tensor silu(const Tensor& x);
Tensor softplus(const Tensor& x, double beta = 1, double threshold = 20);
Tensor logical_not(const Tensor& x);
Tensor isnan(const Tensor& x);
Tensor isinf(const Tensor& x);
Tensor isfinite(const Tensor& x);
Tensor nan_to_num(const Tensor& x, std::optional<double> nan = {}, std::optional<double> posinf = {},
                  std::optional<double> neginf = {});
// Scalar bounds; at least one must be given. Tensor bounds compose maximum and minimum.
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max);
Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max);

inline Tensor operator-(const Tensor& x) { return neg(x); }

}  // namespace ember
