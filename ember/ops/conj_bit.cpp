// Note [The conjugate bit]
// As PyTorch's, conj() of a complex tensor is a view that shares the memory and sets a bit on the view
// (TensorImpl::is_conj): its elements are the conjugates of the memory's. Views of such a view keep the bit (make_view
// and alias copy it), conj() of it clears it, and a real tensor never has it, so real code never meets it.
//
// Where the bit is resolved: kernels read and write memory, so the one place that sees every read and write of every
// op is the kernel registry's call (KernelSlot::Call in ember/backend/kernels.h). When an argument of a kernel has the
// bit, the call runs the kernel on a resolved copy (the conjugates, in new memory) and, when that argument is the
// destination (the first tensor argument: kernels list their outputs first), writes the result back conjugated, so an
// in-place op on a conjugate view changes its base as PyTorch's does. The check is one byte load per tensor argument
// on a branch that real code never takes; this is PyTorch's conjugate fallback, placed at the narrowest point instead
// of in a dispatcher. Ops that can do better read the bit themselves: copy_ (clone, contiguous, to, resolve_conj,
// conj_physical) copies the memory and negates the imaginary parts in place (no temporary), item() conjugates
// its value, and a kernel that declares an argument `conj_bit::Operand` (ember/backend/kernels.h) gets it with the bit
// and reads it itself: the matmul kernels, whose BLAS takes a conjugate operand as a flag (Note [Conjugate operands of
// GEMM] in backend/cpu/blas.cpp). The Python side refuses .numpy() and view_as_real of a tensor with the bit (PyTorch's
// errors), and ember.save stores the bit with the tensor's geometry.
//
// What is not PyTorch's: ember has no negative bit, so .imag of a conjugate view is a new tensor holding the negated
// imaginary parts (PyTorch returns a writable view with its negative bit set); docs/dtypes.md says so.
#include "ember/ops/detail/conj_bit.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <utility>

#include "ember/backend/kernels.h"
#include "ember/backend/kernels/binary.h"
#include "ember/backend/kernels/copy.h"
#include "ember/backend/kernels/unary.h"
#include "ember/dtype.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember::conj_bit {

namespace {

constexpr int64_t kOne = 1;

// Negates the imaginary parts of t's memory in place (t has no bit and no internal overlap). A complex64 element is
// 8 bytes whose high half (little-endian) is the imaginary part: flipping its sign bit is one int64 xor with t's own
// strides, 5 to 6 times faster than negating the floats at stride 2, and the same bits as neg (NaN and -0.0 too).
void negate_imag(const Tensor& t) {
  if (t.numel() == 0) return;
  if (t.dtype() == ScalarType::ComplexFloat && std::endian::native == std::endian::little) {
    Tensor bits(
        make_intrusive<TensorImpl>(t.impl()->storage(), ScalarType::Int64, t.sizes(), t.strides(), t.storage_offset()));
    const Tensor sign = scalar_tensor(Scalar(std::numeric_limits<int64_t>::min()), ScalarType::Int64, t.device());
    binary_kernel[t.device()](BinaryOp::BitXor, bits, bits, sign, ScalarType::Int64, Scalar(1));
    return;
  }
  DimVector strides(t.strides());
  for (int64_t& s : strides) s *= 2;
  const ScalarType real = to_real(t.dtype());
  Tensor im(make_intrusive<TensorImpl>(t.impl()->storage(), real, t.sizes(), strides, t.storage_offset() * 2 + 1));
  unary_kernel[t.device()](UnaryOp::Neg, im, im, real, UnaryArgs{});
}

}  // namespace

Tensor physical(const Tensor& t) {
  if (!t.is_conj()) return t;
  return Tensor(make_intrusive<TensorImpl>(t.impl()->storage(), t.dtype(), t.sizes(), t.strides(), t.storage_offset()));
}

void copy(const Tensor& dst, const Tensor& src) {
  const Tensor d = physical(dst);
  copy_kernel[dst.device()](d, physical(src));
  // A real side has no imaginary parts to conjugate: complex -> real keeps the real parts, which conj leaves alone.
  if (is_complex(dst.dtype()) && dst.is_conj() != src.is_conj()) negate_imag(d);
}

// Kernels may rely on a tensor's place in its storage: index kernels read a restrided view (stride 0 on the indexed
// dim) at offsets beyond its extent. So the resolved copy keeps t's geometry over a conjugated copy of the memory t
// spans, or of the whole storage when t has a stride-0 dim (what such a kernel may reach).
namespace {
// The elements [lo, lo + n) of t's storage that resolved(t) copies (t is not empty).
std::pair<int64_t, int64_t> span_of(const Tensor& t) {
  const int64_t es = static_cast<int64_t>(t.element_size());
  int64_t lo = t.storage_offset(), hi = lo;
  bool broadcast = false;
  for (int64_t d = 0; d < t.dim(); ++d) {
    hi += (t.sizes()[d] - 1) * t.strides()[d];
    broadcast |= t.sizes()[d] > 1 && t.strides()[d] == 0;
  }
  if (broadcast) lo = 0, hi = std::max(hi, static_cast<int64_t>(t.impl()->storage()->nbytes()) / es - 1);
  return {lo, hi - lo + 1};
}
}  // namespace

Tensor resolved(const Tensor& t) {
  if (t.numel() == 0) return physical(t);
  const auto [lo, n] = span_of(t);
  Tensor span(
      make_intrusive<TensorImpl>(t.impl()->storage(), t.dtype(), IntArrayRef(&n, 1), IntArrayRef(&kOne, 1), lo));
  Tensor flat = empty(IntArrayRef(&n, 1), TensorOptions(t.dtype()).device(t.device()));
  copy_kernel[t.device()](flat, span);
  negate_imag(flat);
  return Tensor(
      make_intrusive<TensorImpl>(flat.impl()->storage(), t.dtype(), t.sizes(), t.strides(), t.storage_offset() - lo));
}

// `values` is what resolved(dst) gave, after the kernel wrote it: its whole memory goes back, conjugated, to the span
// it was read from (elements the kernel did not write go back as they were: negating twice is exact).
void write_back(const Tensor& dst, const Tensor& values) {
  if (dst.numel() == 0) return;
  const auto [lo, n] = span_of(dst);
  Tensor flat(make_intrusive<TensorImpl>(values.impl()->storage(), values.dtype(), IntArrayRef(&n, 1),
                                         IntArrayRef(&kOne, 1), 0));
  negate_imag(flat);
  Tensor span(
      make_intrusive<TensorImpl>(dst.impl()->storage(), dst.dtype(), IntArrayRef(&n, 1), IntArrayRef(&kOne, 1), lo));
  copy_kernel[dst.device()](span, flat);
}

}  // namespace ember::conj_bit
