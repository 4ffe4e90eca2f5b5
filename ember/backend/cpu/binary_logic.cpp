// Comparisons, min/max, logical and bitwise ops, shifts (ember/backend/math/binary.h).
#include "ember/backend/cpu/binary.h"
#include "ember/backend/math/binary.h"

namespace ember::cpu {

bool binary_logic(BinaryOp op, const StridedIter& it, ScalarType compute) {
  return dispatch_all(compute, [&](auto v) { return math::logic_ops<decltype(v)>(op, Runner{it}); });
}

}  // namespace ember::cpu
