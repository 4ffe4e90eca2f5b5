#include "ember/backend/cpu/binary.h"

#include <algorithm>

#include "ember/backend/cpu/vec_math.h"
#include "ember/backend/kernels/binary.h"
#include "ember/ops.h"
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

// Note [Operands across the output's order]
// An operand whose elements run across the output's order (x + x.t(), a transposed operand against a row-major one
// either way round) left the element loop gathering it one element at a time through the conversion buffers. Above a
// few thousand elements such an operand is first copied into the output's layout by the tiled transpose copy, then
// the op runs over dense memory: [256, 256] x + x.t() at one thread 56 -> 21 us (PyTorch 48). Undefined when t needs
// no copy: small, broadcast or expanded, or already running along the output's innermost dim (or the output not
// packed).
Tensor in_output_layout(const Tensor& t, const Tensor& out) {
  constexpr int64_t kMinNumel = 4096;
  if (t.numel() < kMinNumel || t.dim() < 2 || !std::ranges::equal(t.sizes(), out.sizes())) return {};
  DimVector dims;  // out's dims of size > 1, innermost first; packed strides required (no allocation per call)
  for (int64_t d = 0; d < out.dim(); ++d)
    if (out.size(d) > 1) dims.push_back(d);
  std::ranges::sort(dims, [&](int64_t x, int64_t y) { return out.stride(x) < out.stride(y); });
  int64_t expect = 1;
  for (int64_t d : dims) {
    if (out.stride(d) != expect) return {};
    expect *= out.size(d);
  }
  if (dims.empty() || t.stride(dims[0]) == 1) return {};
  for (int64_t d : dims)  // an expanded operand stays as it is: the loops read a repeated value in place
    if (t.stride(d) == 0) return {};
  Tensor r = empty_strided(out.sizes(), out.strides(), TensorOptions(t.dtype()));
  copy_(r, t);
  return r;
}

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, ScalarType compute, const Scalar& alpha) {
  const Tensor ra = in_output_layout(a, out), rb = in_output_layout(b, out);
  if (ra.defined() || rb.defined())
    return binary(op, out, ra.defined() ? ra : a, rb.defined() ? rb : b, compute, alpha);
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
