#include "ember/backend/cpu/binary.h"
#include "ember/backend/cpu/vec_math.h"
#include "ember/backend/kernels/binary.h"
#include "ember/parallel.h"

namespace ember::cpu {

void zero_division(const char* op) { fail<Error>("ZeroDivisionError: integer division by zero in ", op); }

namespace {

// float32/float64 operands of the compute type, each contiguous or one repeated value: the vector functions of Note
// [Vector binary functions] (vec_math.cpp), chunked across threads. False when op has none.
template <class T>
bool try_vectorized(BinaryOp op, const StridedIter& it) {
  std::array<bool, StridedIter::kMaxOperands> one;
  if (!flat_or_repeated<T>(it, one)) return false;
  const bool a_one = one[1], b_one = one[2];
  const auto* a = reinterpret_cast<const T*>(it.data[1]);
  const auto* b = reinterpret_cast<const T*>(it.data[2]);
  auto* out = reinterpret_cast<T*>(it.data[0]);
  if (!vec_binary(op, a, a_one, b, b_one, out, 0)) return false;
  // Each element costs a transcendental function's few tens of operations (grain as the unary ones', unary.cpp).
  parallel_for(0, it.numel, kGrainSize / 4, [&](int64_t s, int64_t e) {
    vec_binary(op, a_one ? a : a + s, a_one, b_one ? b : b + s, b_one, out + s, e - s);
  });
  return true;
}

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute, const Scalar& alpha) {
  StridedIter it = StridedIter::make({&out, &a, &b}, out.sizes());
  if (compute == ScalarType::Float32 && try_vectorized<float>(op, it)) return;
  if (compute == ScalarType::Float64 && try_vectorized<double>(op, it)) return;
  if (is_complex(compute)) {
    if (!binary_complex(op, it, compute, alpha))
      fail<NotImplementedError>(binary_op_name(op), ": no CPU kernel for dtype ", compute);
    return;
  }
  if (is_special(op)) {
    if (!binary_special(op, it, compute, alpha))
      fail<NotImplementedError>(binary_op_name(op), ": no CPU kernel for dtype ", compute);
    return;
  }
  if (!binary_arith(op, it, compute, alpha) && !binary_logic(op, it, compute))
    fail<NotImplementedError>(binary_op_name(op), ": no CPU kernel for dtype ", compute);
}
}  // namespace

EMBER_REGISTER_KERNEL(binary, CPU, binary)

}  // namespace ember::cpu
