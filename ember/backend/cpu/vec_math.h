// Vectorized float32/float64 transcendental functions over contiguous arrays (Sleef, AVX2).
#pragma once

#include <cstdint>

#include "ember/ops/unary.h"

namespace ember::cpu {

// out[i] = op(in[i]) for i < n (in == out allowed); args as the scalar kernels take them. False when this build has
// no vector version of op (the caller then runs the scalar functor). Accuracy: Sleef's 1.0-ULP variants (erfc:
// 1.5 ULP).
bool vec_unary(UnaryOp op, const float* in, float* out, int64_t n, const UnaryArgs& args = {});
bool vec_unary(UnaryOp op, const double* in, double* out, int64_t n, const UnaryArgs& args = {});

}  // namespace ember::cpu
