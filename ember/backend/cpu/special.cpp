// CPU kernels of the special functions (ember/backend/math/special.h, Note [Special function methods]).
#include "ember/backend/cpu/binary.h"
#include "ember/backend/math/special.h"

namespace ember::cpu {

bool unary_special(UnaryOp op, const StridedIter& it, ScalarType compute, const UnaryArgs& args) {
  return math::special_unary(op, Runner{it}, compute, args);
}

bool binary_special(BinaryOp op, const StridedIter& it, ScalarType compute, const Scalar& alpha) {
  return math::special_binary(op, Runner{it}, compute, alpha);
}

}  // namespace ember::cpu
