// CPU ternary kernels: the shared formulas (ember/backend/math/ternary.h) over cpu_kernel.
#include "ember/backend/cpu/binary.h"
#include "ember/backend/cpu/vec_math.h"
#include "ember/backend/kernels/ternary.h"
#include "ember/backend/math/ternary.h"

namespace ember::cpu {

namespace {

// lerp of float operands of the compute type, each contiguous or one repeated value (a number weight): the vector
// kernel (vec_lerp), chunked across threads. The scalar functor's select between two computed values stays scalar
// under -ftrapping-math: 64K floats with a number weight took 41 us at one thread against PyTorch's 11.
template <class T>
bool lerp_vectorized(const StridedIter& it) {
  std::array<bool, StridedIter::kMaxOperands> one;
  if (!flat_or_repeated<T>(it, one)) return false;
  const T *s = reinterpret_cast<const T*>(it.data[1]), *e = reinterpret_cast<const T*>(it.data[2]),
          *w = reinterpret_cast<const T*>(it.data[3]);
  T* out = reinterpret_cast<T*>(it.data[0]);
  if (!vec_lerp(s, one[1], e, one[2], w, one[3], out, 0)) return false;
  parallel_for(0, it.numel, kGrainSize, [&](int64_t b, int64_t n) {
    vec_lerp(one[1] ? s : s + b, one[1], one[2] ? e : e + b, one[2], one[3] ? w : w + b, one[3], out + b, n - b);
  });
  return true;
}

void ternary(TernaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, ScalarType compute,
             const Scalar& value) {
  StridedIter it = StridedIter::make({&out, &a, &b, &c}, out.sizes());
  if (is_complex(compute)) {
    if (!ternary_complex(op, it, compute))
      fail<NotImplementedError>(ternary_op_name(op), ": no CPU kernel for dtype ", compute);
    return;
  }
  if (op == TernaryOp::Lerp && compute == ScalarType::Float32 && lerp_vectorized<float>(it)) return;
  if (op == TernaryOp::Lerp && compute == ScalarType::Float64 && lerp_vectorized<double>(it)) return;
  dispatch_all(compute, [&](auto v) { math::ternary_ops<decltype(v)>(op, Runner{it}, value); });
}

}  // namespace

EMBER_REGISTER_KERNEL(ternary, CPU, ternary)

}  // namespace ember::cpu
