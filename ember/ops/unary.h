// Unary elementwise ops: math, activations, rounding, predicates, special functions. The ops, their names, dtype
// rules and C++ functions come from one table, ember/ops/unary.def (Note [Op tables]); the enum is in unary_op.h.
#pragma once

#include <cstdint>
#include <optional>

#include "ember/ops/operand.h"
#include "ember/ops/unary_op.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

// The general entry: out-of-place when out is undefined, else writes into out (in place when out is x).
Tensor unary_op(UnaryOp op, const Tensor& x, const Tensor& out = {}, const UnaryArgs& args = {});

// One function per op of the table without parameters: ember::exp(x), ember::special_i0e(x), ...
#define EMBER_UNARY_OP(op, name, ...) Tensor name(const Tensor& x);
#define EMBER_UNARY_SPECIAL(op, name, ...) Tensor name(const Tensor& x);
#define EMBER_UNARY_CUSTOM(...)
#include "ember/ops/unary.def"
#undef EMBER_UNARY_OP
#undef EMBER_UNARY_SPECIAL
#undef EMBER_UNARY_CUSTOM

// The ops with parameters.
Tensor round(const Tensor& x, int64_t decimals = 0);
Tensor gelu(const Tensor& x, bool tanh_approximation = false);
Tensor softplus(const Tensor& x, double beta = 1, double threshold = 20);
// logit(x) = log(x / (1 - x)), with x first clamped into [eps, 1 - eps] when eps is given.
Tensor logit(const Tensor& x, std::optional<double> eps = std::nullopt);
Tensor polygamma(int64_t n, const Tensor& x);
// `out`, when given, receives the result (x itself for nan_to_num_: in place, without a copy).
Tensor nan_to_num(const Tensor& x, std::optional<double> nan = {}, std::optional<double> posinf = {},
                  std::optional<double> neginf = {}, const Tensor& out = {});
// Bounds are numbers or tensors (broadcast against x); at least one must be given. The result's dtype is the
// promotion of x with the bounds, numbers as weak types (a float bound on an integer tensor gives a float result).
// A NaN bound gives NaN; with number bounds only, an integer dtype that cannot hold a bound raises. `out`, when
// given, receives the result (x itself for clamp_: number bounds are then applied in place, without a copy).
Tensor clamp(const Tensor& x, const std::optional<Operand>& min, const std::optional<Operand>& max,
             const Tensor& out = {});

inline Tensor operator-(const Tensor& x) { return neg(x); }

}  // namespace ember
