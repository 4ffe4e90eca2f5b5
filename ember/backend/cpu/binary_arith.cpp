// Arithmetic: + - * / (true, trunc, floor), remainder, fmod, pow, atan2, hypot, copysign (ember/backend/math/binary.h).
#include "ember/backend/cpu/binary.h"
#include "ember/backend/math/binary.h"

namespace ember::cpu {

bool binary_arith(BinaryOp op, const StridedIter& it, ScalarType compute, const Scalar& alpha) {
  return dispatch_all(compute, [&](auto v) { return math::arith_ops<decltype(v)>(op, Runner{it}, alpha); });
}

}  // namespace ember::cpu
