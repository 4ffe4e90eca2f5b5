// Unary elementwise ops: math, activations, rounding, predicates, special functions. The ops, their names, dtype
// rules and C++ functions come from one table, ember/ops/unary.def (Note [Op tables]).
#pragma once

#include <cstdint>
#include <optional>

#include "ember/ops/operand.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

enum class UnaryOp : uint8_t {
#define EMBER_UNARY_OP(op, ...) op,
#define EMBER_UNARY_SPECIAL(op, ...) op,
#define EMBER_UNARY_CUSTOM(op, ...) op,
#include "ember/ops/unary.def"
#undef EMBER_UNARY_OP
#undef EMBER_UNARY_SPECIAL
#undef EMBER_UNARY_CUSTOM
};

// The result dtype: the input's, a floating one (integer and bool inputs give the default dtype), bool, or int32.
enum class UnaryResult : uint8_t { Same, Float, Bool, Int32 };
// The input dtypes the op accepts (the others raise TypeError... as PyTorch: RuntimeError "not implemented for").
enum class UnaryInput : uint8_t { Any, Floating, Integral };

namespace unary_flag {
inline constexpr uint8_t kSpecial = 1;       // kernel in backend/<device>/special.* (ember/backend/math/special.h)
inline constexpr uint8_t kAutocastFp32 = 2;  // CUDA autocast runs it in float32 (Note [Autocast])
}  // namespace unary_flag

struct UnaryOpInfo {
  const char* name;
  UnaryResult result;
  UnaryInput input;
  uint8_t flags;
};

// An op's row of unary.def (a switch the compiler turns into a table lookup).
constexpr UnaryOpInfo unary_info(UnaryOp op) {
  using namespace unary_flag;
  switch (op) {
#define EMBER_UNARY_OP(op, name, result, input, flags, ...) \
  case UnaryOp::op: return {#name, UnaryResult::result, UnaryInput::input, flags};
#define EMBER_UNARY_SPECIAL(op, name, ...) \
  case UnaryOp::op: return {#name, UnaryResult::Float, UnaryInput::Any, kSpecial};
#define EMBER_UNARY_CUSTOM(op, name, result, input, flags, ...) \
  case UnaryOp::op: return {#name, UnaryResult::result, UnaryInput::input, flags};
#include "ember/ops/unary.def"
#undef EMBER_UNARY_OP
#undef EMBER_UNARY_SPECIAL
#undef EMBER_UNARY_CUSTOM
  }
  return {"?", UnaryResult::Same, UnaryInput::Any, 0};
}

constexpr const char* unary_op_name(UnaryOp op) { return unary_info(op).name; }
constexpr bool is_special(UnaryOp op) { return unary_info(op).flags & unary_flag::kSpecial; }

// Parameters of the ops that take some: Clamp (lo, hi; NaN means unbounded), Round (decimals),
// Softplus (beta, threshold), Logit (eps, < 0 for none), NanToNum (nan, posinf, neginf), Hardtanh (min, max),
// LeakyRelu (slope), Elu (alpha, scale, input_scale), Threshold (threshold, value), Hardshrink and Softshrink
// (lambda), Polygamma (n).
struct UnaryArgs {
  double a = 0, b = 0, c = 0;
};

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
Tensor nan_to_num(const Tensor& x, std::optional<double> nan = {}, std::optional<double> posinf = {},
                  std::optional<double> neginf = {});
// Bounds are numbers or tensors (broadcast against x); at least one must be given. The result's dtype is the
// promotion of x with the bounds, numbers as weak types (a float bound on an integer tensor gives a float result).
// A NaN bound gives NaN; with number bounds only, an integer dtype that cannot hold a bound raises.
Tensor clamp(const Tensor& x, const std::optional<Operand>& min, const std::optional<Operand>& max);

inline Tensor operator-(const Tensor& x) { return neg(x); }

}  // namespace ember
