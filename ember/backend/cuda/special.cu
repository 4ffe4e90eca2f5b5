// CUDA kernels of the special functions (ember/backend/math/special.h, Note [Special function methods]): each formula
// is compiled for float and double only (the 16-bit floats cast on load), nextafter and heaviside excepted.
#include "ember/backend/cuda/elementwise.cuh"
#include "ember/backend/math/special.h"

namespace ember::cuda {

bool unary_special(UnaryOp op, const Runner& r, ScalarType compute, const UnaryArgs& args) {
  return math::special_unary(op, r, compute, args);
}

bool binary_special(BinaryOp op, const Runner& r, ScalarType compute, const Scalar& alpha) {
  return math::special_binary(op, r, compute, alpha);
}

}  // namespace ember::cuda
