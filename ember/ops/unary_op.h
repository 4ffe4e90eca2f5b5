// The unary ops' identities: the enum UnaryOp and each op's row data (name, dtype rules, flags) from the table
// ember/ops/unary.def, and the parameters some ops take. The kernels' declarations (backend/kernels/) and the shared
// formulas (backend/math/) speak this vocabulary, so it sits below them (the "core" layer of scripts/check_layers.py);
// the ops' functions are in ember/ops/unary.h.
#pragma once

#include <cstdint>

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

namespace unary_detail {
using namespace unary_flag;  // the rows' flags
// The rows of unary.def in the enum's order by construction (both are generated from the same rows), so no hand-kept
// list can fall out of step; at namespace scope, so that a lookup is one load (a table local to a constexpr function
// is rebuilt on every call).
inline constexpr UnaryOpInfo kUnaryInfo[] = {
#define EMBER_UNARY_OP(op, name, result, input, flags, ...) {#name, UnaryResult::result, UnaryInput::input, flags},
#define EMBER_UNARY_SPECIAL(op, name, ...) {#name, UnaryResult::Float, UnaryInput::Any, kSpecial},
#define EMBER_UNARY_CUSTOM(op, name, result, input, flags, ...) {#name, UnaryResult::result, UnaryInput::input, flags},
#include "ember/ops/unary.def"
#undef EMBER_UNARY_OP
#undef EMBER_UNARY_SPECIAL
#undef EMBER_UNARY_CUSTOM
};
}  // namespace unary_detail

// An op's row of unary.def.
constexpr const UnaryOpInfo& unary_info(UnaryOp op) { return unary_detail::kUnaryInfo[static_cast<int>(op)]; }

constexpr const char* unary_op_name(UnaryOp op) { return unary_info(op).name; }
constexpr bool is_special(UnaryOp op) { return unary_info(op).flags & unary_flag::kSpecial; }

// Parameters of the ops that take some: Clamp (lo, hi; NaN means unbounded), Round (decimals),
// Softplus (beta, threshold), Logit (eps, < 0 for none), NanToNum (nan, posinf, neginf), Hardtanh (min, max),
// LeakyRelu (slope), Elu (alpha, scale, input_scale), Threshold (threshold, value), Hardshrink and Softshrink
// (lambda), Polygamma (n).
struct UnaryArgs {
  double a = 0, b = 0, c = 0;
};

}  // namespace ember
