// The ternary ops' identities: the enum TernaryOp and each op's row data (name, flags) from the table
// ember/ops/ternary.def. The kernel's declaration (backend/kernels/ternary.h) and the shared formulas
// (backend/math/ternary.h) speak this vocabulary, so it sits below them (the "core" layer of scripts/check_layers.py);
// the ops' functions are in ember/ops/ternary.h.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace ember {

enum class TernaryOp : uint8_t {
#define EMBER_TERNARY_OP(op, ...) op,
#include "ember/ops/ternary.def"
#undef EMBER_TERNARY_OP
};

namespace ternary_flag {
inline constexpr uint8_t kCondition = 1;        // the first operand is a bool condition, not promoted (where)
inline constexpr uint8_t kAutocastPromote = 2;  // CUDA autocast runs it in the widest floating input dtype
}  // namespace ternary_flag

struct TernaryOpInfo {
  const char* name;
  uint8_t flags;
};

namespace detail {
// The rows' data, filled by op (not by position: a row may move anywhere in the table).
inline constexpr auto kTernaryInfo = [] {
  using namespace ternary_flag;
  constexpr size_t n = 0
#define EMBER_TERNARY_OP(...) +1
#include "ember/ops/ternary.def"
#undef EMBER_TERNARY_OP
      ;
  std::array<TernaryOpInfo, n> t{};
#define EMBER_TERNARY_OP(op, name, flags, ...) t[static_cast<size_t>(TernaryOp::op)] = {#name, flags};
#include "ember/ops/ternary.def"
#undef EMBER_TERNARY_OP
  return t;
}();
}  // namespace detail

// An op's row of ternary.def.
constexpr const TernaryOpInfo& ternary_info(TernaryOp op) { return detail::kTernaryInfo[static_cast<size_t>(op)]; }

constexpr const char* ternary_op_name(TernaryOp op) { return ternary_info(op).name; }

}  // namespace ember
