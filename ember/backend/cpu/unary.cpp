// CPU unary kernels: the shared formulas (ember/backend/math/unary.h) over cpu_kernel, and Sleef vector
// functions for contiguous float32/float64.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/backend/cpu/binary.h"
#include "ember/backend/cpu/vec_math.h"
#include "ember/backend/kernels/unary.h"
#include "ember/backend/kernels/unary_backward.h"
#include "ember/backend/math/unary.h"
#include "ember/ops.h"
#include "ember/ops/unary.h"

namespace ember::cpu {

namespace {

// Elements per chunk of a vector function: kGrainSize for the ops that cost about a load and a store, a quarter of it
// for the transcendental ones (a GELU element takes about six times an add's), so that their jobs of a few tens of
// microseconds still split. GELU at two threads, alternated with kGrainSize: 16K elements 11.1 -> 6.9 us, 32K 21.7
// -> 11.6 us (one thread: 11.2, 21.7), 64K and up unchanged (an eighth of it split 64K and 128K elements into more
// chunks than pays: 5% slower there).
int64_t vector_grain(UnaryOp op) {
  switch (op) {
    case UnaryOp::Relu:
    case UnaryOp::LeakyRelu:
    case UnaryOp::Hardtanh:
    case UnaryOp::Hardsigmoid:
    case UnaryOp::Hardswish:
    case UnaryOp::Clamp:
    case UnaryOp::NanToNum:
    case UnaryOp::Floor:
    case UnaryOp::Ceil:
    case UnaryOp::Trunc:
    case UnaryOp::Round:
    case UnaryOp::Reciprocal:
    case UnaryOp::Sqrt: return kGrainSize;
    default: return kGrainSize / 4;
  }
}

// Contiguous float32/float64 data in and out: the Sleef vector functions, chunked across threads. Rows of
// contiguous elements (a slice of a wider tensor, glu's halves) take them a row at a time: 64 rows of 512 floats of a
// [64, 1024] tensor through sigmoid went element by element, 5x the time.
template <class T>
bool try_vectorized(UnaryOp op, const StridedIter& it, const UnaryArgs& args) {
  if (it.dtypes[0] != scalar_type_of<T> || it.dtypes[1] != scalar_type_of<T>) return false;
  const T* in = reinterpret_cast<const T*>(it.data[1]);
  T* out = reinterpret_cast<T*>(it.data[0]);
  if (!vec_unary(op, in, out, 0, args)) return false;  // no vector version of this op
  if (it.is_contiguous()) {
    parallel_for(0, it.numel, vector_grain(op),
                 [&](int64_t b, int64_t e) { vec_unary(op, in + b, out + b, e - b, args); });
    return true;
  }
  constexpr int64_t kMinRow = 32, kSize = sizeof(T);
  if (it.ndim == 0 || it.shape[0] < (vector_grain(op) < kGrainSize ? 8 : kMinRow)) return false;
  if (it.strides[0][0] == kSize && it.strides[1][0] == kSize) {
    for_each_run(
        it,
        [&](char** p, const int64_t*, int64_t n) {
          vec_unary(op, reinterpret_cast<const T*>(p[1]), reinterpret_cast<T*>(p[0]), n, args);
        },
        vector_grain(op));
    return true;
  }
  // A strided run (every other column, a transposed operand) of a transcendental op goes through a small buffer:
  // gathered, computed by the vector function, scattered. The element loop's scalar tanh took 5x PyTorch's time on
  // x[:, ::2]. Cheap ops keep the element loop, which is as fast.
  if (vector_grain(op) == kGrainSize) return false;
  for_each_run(
      it,
      [&](char** p, const int64_t* st, int64_t n) {
        constexpr int64_t kBlock = 256;
        T buf[kBlock];
        for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
          const int64_t m = std::min(kBlock, n - i0);
          const char* src = p[1] + i0 * st[1];
          for (int64_t j = 0; j < m; ++j) buf[j] = *reinterpret_cast<const T*>(src + j * st[1]);
          char* dst = p[0] + i0 * st[0];
          if (st[0] == kSize) {
            vec_unary(op, buf, reinterpret_cast<T*>(dst), m, args);
            continue;
          }
          vec_unary(op, buf, buf, m, args);
          for (int64_t j = 0; j < m; ++j) *reinterpret_cast<T*>(dst + j * st[0]) = buf[j];
        }
      },
      vector_grain(op));
  return true;
}

void unary(UnaryOp op, const Tensor& out, const Tensor& in, ScalarType compute, const UnaryArgs& args) {
  StridedIter it = StridedIter::make({&out, &in}, out.sizes());
  if (is_complex(compute)) {
    if (!unary_complex(op, it, compute))
      fail<NotImplementedError>(unary_op_name(op), ": no CPU kernel for dtype ", compute);
    return;
  }
  if (is_special(op)) {
    if (!unary_special(op, it, compute, args))
      fail<NotImplementedError>(unary_op_name(op), ": no CPU kernel for dtype ", compute);
    return;
  }
  if (compute == ScalarType::Float32 && try_vectorized<float>(op, it, args)) return;
  if (compute == ScalarType::Float64 && try_vectorized<double>(op, it, args)) return;
  dispatch_all(compute, [&](auto v) { math::unary_ops<decltype(v)>(op, Runner{it}, args); });
}

void unary_backward(UnaryOp op, const Tensor& grad_in, const Tensor& grad_out, const Tensor& v, const UnaryArgs& args) {
  const ScalarType t = grad_in.dtype();
  const bool vec_dtype = t == ScalarType::Float32 || t == ScalarType::Float64;
  // The gradient of a sum or mean is one number expanded: made dense first, it takes the vector path instead of the
  // element loop's scalar erf, exp, ... (gelu forward and backward after .sum(), 64K floats: 865 -> 128 us).
  if (vec_dtype && !grad_out.is_contiguous() && grad_in.is_contiguous() && v.is_contiguous() && grad_out.dtype() == t &&
      v.dtype() == t) {
    float f = 0;
    double d = 0;
    if (t == ScalarType::Float32 ? vec_unary_backward(op, &f, &f, &f, 0, args)
                                 : vec_unary_backward(op, &d, &d, &d, 0, args))
      return unary_backward(op, grad_in, contiguous(grad_out), v, args);
  }
  StridedIter it = StridedIter::make({&grad_in, &grad_out, &v}, grad_in.sizes());
  if (vec_dtype && it.is_contiguous() && it.dtypes[1] == t && it.dtypes[2] == t) {
    auto vec = [&](auto* out, auto* g, auto* x) {
      if (!vec_unary_backward(op, g, x, out, 0, args)) return false;
      parallel_for(0, it.numel, vector_grain(op),
                   [&](int64_t b, int64_t e) { vec_unary_backward(op, g + b, x + b, out + b, e - b, args); });
      return true;
    };
    const bool done = t == ScalarType::Float32
                          ? vec(reinterpret_cast<float*>(it.data[0]), reinterpret_cast<const float*>(it.data[1]),
                                reinterpret_cast<const float*>(it.data[2]))
                          : vec(reinterpret_cast<double*>(it.data[0]), reinterpret_cast<const double*>(it.data[1]),
                                reinterpret_cast<const double*>(it.data[2]));
    if (done) return;
  }
  switch (t) {
    case ScalarType::Float16: return math::unary_backward_ops<Half>(op, Runner{it}, args);
    case ScalarType::BFloat16: return math::unary_backward_ops<BFloat16>(op, Runner{it}, args);
    case ScalarType::Float32: return math::unary_backward_ops<float>(op, Runner{it}, args);
    case ScalarType::Float64: return math::unary_backward_ops<double>(op, Runner{it}, args);
    default: fail<TypeError>(unary_op_name(op), " backward: floating dtypes only, got ", type_label(t));
  }
}

}  // namespace

EMBER_REGISTER_KERNEL(unary, CPU, unary)
EMBER_REGISTER_KERNEL(unary_backward, CPU, unary_backward)

}  // namespace ember::cpu
