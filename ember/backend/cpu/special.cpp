// CPU kernels of the special functions (ember/backend/math/special.h, Note [Special function methods]). The 16-bit
// floats run the float formulas (cast on load and on store), so each formula is compiled for float and double only.
#include "ember/backend/cpu/binary.h"
#include "ember/backend/math/special.h"

namespace ember::cpu {

bool unary_special(UnaryOp op, const StridedIter& it, ScalarType compute, const UnaryArgs& args) {
  const Runner r{it};
  switch (compute) {
    case ScalarType::Float64: return math::special_unary_ops<double>(op, r, args);
    case ScalarType::Float32:
    case ScalarType::Float16:
    case ScalarType::BFloat16: return math::special_unary_ops<float>(op, r, args);
    default: return false;
  }
}

bool binary_special(BinaryOp op, const StridedIter& it, ScalarType compute) {
  const Runner r{it};
  return dispatch_all(compute, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      if (op != BinaryOp::Nextafter && op != BinaryOp::Heaviside) return math::special_binary_ops<float>(op, r);
    return math::special_binary_ops<T>(op, r);
  });
}

}  // namespace ember::cpu
