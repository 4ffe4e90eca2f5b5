// The binary ops' identities: the enum BinaryOp and each op's row data (name, dtype rule, flags) from the table
// ember/ops/binary.def, and the enum Polynomial of torch.special's orthogonal polynomials. The kernels' declarations
// (backend/kernels/) and the shared formulas (backend/math/) speak this vocabulary, so it sits below them (the "core"
// layer of scripts/check_layers.py); the ops' functions are in ember/ops/binary.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace ember {

enum class BinaryOp : uint8_t {
#define EMBER_BINARY_OP(op, ...) op,
#define EMBER_BINARY_SPECIAL(op, ...) op,
#define EMBER_BINARY_CUSTOM(op, ...) op,
#define EMBER_BINARY_ALIAS(...)
#define EMBER_BINARY_POLYNOMIAL(...)
#include "ember/ops/binary.def"
#undef EMBER_BINARY_OP
#undef EMBER_BINARY_SPECIAL
#undef EMBER_BINARY_CUSTOM
#undef EMBER_BINARY_ALIAS
#undef EMBER_BINARY_POLYNOMIAL
};

// The dtype rule of an op (ops/binary.cpp): the promoted dtype (Arith), a floating one (TrueDiv, FloatMath: integer
// and bool operands give the default dtype), floating operands only (FloatOnly), a bool result (Compare, Logical),
// integers and bool (Bitwise), integers (Shift, Integer), or one dtype for both operands (SameDtype).
enum class BinaryKind : uint8_t {
  Arith,
  TrueDiv,
  FloatMath,
  FloatOnly,
  Compare,
  Logical,
  Bitwise,
  Shift,
  Integer,
  SameDtype
};

namespace binary_flag {
inline constexpr uint8_t kSpecial = 1;             // kernel in backend/<device>/special.* (math/special.h)
inline constexpr uint8_t kBoolInt64 = 2;           // bool operands compute in int64 (floor_divide of bools)
inline constexpr uint8_t kAutocastFp32 = 4;        // CUDA autocast runs it in float32 (Note [Autocast])
inline constexpr uint8_t kAutocastFp32Number = 8;  // ... when the first operand is a number (2 / t)
inline constexpr uint8_t kAutocastPromote = 16;    // CUDA autocast runs it in the widest floating input dtype
}  // namespace binary_flag

// Where a Python number may stand for an operand (PyTorch's Scalar overloads): either one, the second only, neither.
enum class BinaryNumbers : uint8_t { Both, Other, Neither };

struct BinaryOpInfo {
  const char* name;
  BinaryKind kind;
  uint8_t flags;
  BinaryNumbers numbers;
};

namespace detail {
// The rows' data, filled by op (not by position: a row may move anywhere in the table). A table rather than a switch:
// binary_op() reads it on every call, and GCC calls an out-of-line switch.
inline constexpr auto kBinaryInfo = [] {
  using namespace binary_flag;
  constexpr size_t n = 0
#define EMBER_BINARY_OP(...) +1
#define EMBER_BINARY_SPECIAL(...) +1
#define EMBER_BINARY_CUSTOM(...) +1
#define EMBER_BINARY_ALIAS(...)
#define EMBER_BINARY_POLYNOMIAL(...)
#include "ember/ops/binary.def"
#undef EMBER_BINARY_OP
#undef EMBER_BINARY_SPECIAL
#undef EMBER_BINARY_CUSTOM
#undef EMBER_BINARY_ALIAS
#undef EMBER_BINARY_POLYNOMIAL
      ;
  std::array<BinaryOpInfo, n> t{};
#define EMBER_BINARY_OP(op, name, kind, flags, numbers, ...) \
  t[static_cast<size_t>(BinaryOp::op)] = {#name, BinaryKind::kind, flags, BinaryNumbers::numbers};
#define EMBER_BINARY_SPECIAL(op, name, kind, formula, numbers, ...) \
  t[static_cast<size_t>(BinaryOp::op)] = {#name, BinaryKind::kind, kSpecial, BinaryNumbers::numbers};
#define EMBER_BINARY_CUSTOM(op, name, kind, flags, numbers, ...) \
  t[static_cast<size_t>(BinaryOp::op)] = {#name, BinaryKind::kind, flags, BinaryNumbers::numbers};
#define EMBER_BINARY_ALIAS(...)
#define EMBER_BINARY_POLYNOMIAL(...)
#include "ember/ops/binary.def"
#undef EMBER_BINARY_OP
#undef EMBER_BINARY_SPECIAL
#undef EMBER_BINARY_CUSTOM
#undef EMBER_BINARY_ALIAS
#undef EMBER_BINARY_POLYNOMIAL
  return t;
}();
}  // namespace detail

// An op's row of binary.def.
constexpr const BinaryOpInfo& binary_info(BinaryOp op) { return detail::kBinaryInfo[static_cast<size_t>(op)]; }

constexpr const char* binary_op_name(BinaryOp op) { return binary_info(op).name; }
// The special functions, whose kernels are in backend/<device>/special.* (ember/backend/math/special.h).
constexpr bool is_special(BinaryOp op) { return binary_info(op).flags & binary_flag::kSpecial; }

// The orthogonal polynomials of torch.special (EMBER_BINARY_POLYNOMIAL rows), run by BinaryOp::OrthogonalPolynomial.
enum class Polynomial : uint8_t {
#define EMBER_BINARY_OP(...)
#define EMBER_BINARY_SPECIAL(...)
#define EMBER_BINARY_CUSTOM(...)
#define EMBER_BINARY_ALIAS(...)
#define EMBER_BINARY_POLYNOMIAL(family, ...) family,
#include "ember/ops/binary.def"
#undef EMBER_BINARY_OP
#undef EMBER_BINARY_SPECIAL
#undef EMBER_BINARY_CUSTOM
#undef EMBER_BINARY_ALIAS
#undef EMBER_BINARY_POLYNOMIAL
};

}  // namespace ember
