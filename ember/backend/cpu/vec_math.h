// Vectorized float32/float64 functions over contiguous arrays (Sleef: AVX-512 where the CPU has it, else AVX2).
#pragma once

#include <cstdint>

#include "ember/ops/binary_op.h"
#include "ember/ops/unary.h"

namespace ember::cpu {

// out[i] = op(in[i]) for i < n (in == out allowed); args as the scalar kernels take them. False when this build has
// no vector version of op (the caller then runs the scalar functor). Accuracy: Sleef's 1.0-ULP variants (erfc:
// 1.5 ULP); float32 exp is inlined (below 1 ULP) and float32 GELU is a fused erfc form (relative error < 4e-7).
bool vec_unary(UnaryOp op, const float* in, float* out, int64_t n, const UnaryArgs& args = {});
bool vec_unary(UnaryOp op, const double* in, double* out, int64_t n, const UnaryArgs& args = {});
// out[i] = g[i] * op'(v[i]) (the fused activation backward, ops/detail/unary_backward.h); false when there is no vector
// version.
bool vec_unary_backward(UnaryOp op, const float* g, const float* v, float* out, int64_t n, const UnaryArgs& args);
bool vec_unary_backward(UnaryOp op, const double* g, const double* v, double* out, int64_t n, const UnaryArgs& args);

// out[i] = op(a[i], b[i]) for i < n, a[0] (b[0]) for every a[i] (b[i]) where a_one (b_one): Note [Vector binary
// functions] in vec_math.cpp. False when this build has no vector version of op.
bool vec_binary(BinaryOp op, const float* a, bool a_one, const float* b, bool b_one, float* out, int64_t n);
bool vec_binary(BinaryOp op, const double* a, bool a_one, const double* b, bool b_one, double* out, int64_t n);

// out[i] = lerp(s[i], e[i], w[i]) as PyTorch's vector kernel computes it (|w| < 0.5 ? s + w (e - s) : e - (1 - w)
// (e - s), each as one fma), an operand read as its first value where its *_one is set. False without a vector build.
bool vec_lerp(const float* s, bool s_one, const float* e, bool e_one, const float* w, bool w_one, float* out,
              int64_t n);
bool vec_lerp(const double* s, bool s_one, const double* e, bool e_one, const double* w, bool w_one, double* out,
              int64_t n);

// y[i] = exp(x[i] - shift) for i < n (x == y allowed), returning the sum of the y[i]: softmax's exp pass and sum in
// one, 16 (8) lanes wide on AVX-512 machines. Every build has it (a scalar loop without Sleef or AVX2).
float exp_shift_sum(const float* x, float shift, float* y, int64_t n);
double exp_shift_sum(const double* x, double shift, double* y, int64_t n);

// p[i] = op(p[i]) in place: vectorized where this build has a vector version of op, else with the scalar f.
template <class T, class F>
void vec_or_scalar(UnaryOp op, T* p, int64_t n, F f) {
  if (!vec_unary(op, p, p, n))
    for (int64_t i = 0; i < n; ++i) p[i] = f(p[i]);
}

}  // namespace ember::cpu
