// Dropout's per-element formulas, compiled by the CPU and the CUDA kernels alike (Note [Shared elementwise math]), so
// that one seed gives the same mask and the same values on both devices.
//
// Note [Fused dropout]
// Element i of x is kept when u64(w0, w1) < q = 1 - p, where w0, w1 are words 2i and 2i+1 of the Philox stream:
// bernoulli's formula (docs/random.md), so dropout(x, p) keeps exactly the elements that bernoulli(1 - p) sets from
// the same generator state, on either device. One Philox block (4 words) serves two consecutive elements. The
// comparison runs on integers: u64 = y * 2^-53 with y = (w0 << 32 | w1) >> 11 < 2^53, and q * 2^53 is exact, so
// y * 2^-53 < q  <=>  y < ceil(q * 2^53) (the CPU compares 64-bit lanes without converting them to double).
// The value is x * (keep ? scale : 0) in the opmath type (float for float16 and bfloat16), as PyTorch's
// `input * mask * scale`: a dropped NaN or infinity gives NaN. The gradient g * (mask ? scale : 0) is the same
// formula with the mask read instead of drawn.
#pragma once

#include <cmath>
#include <cstdint>

#include "ember/backend/math/common.h"
#include "ember/dtype.h"
#include "ember/error.h"

namespace ember::math {

// The integer threshold of keep probability q in [0, 1]: 0 keeps nothing, 2^53 everything.
inline uint64_t dropout_threshold(double q) { return static_cast<uint64_t>(std::ceil(q * 9007199254740992.0)); }

EMBER_HOST_DEVICE bool dropout_keep(uint32_t w0, uint32_t w1, uint64_t threshold) {
  return ((static_cast<uint64_t>(w0) << 32 | w1) >> 11) < threshold;
}

template <class T>
EMBER_HOST_DEVICE T dropout_apply(T x, bool keep, Acc<T> scale) {
  return static_cast<T>(static_cast<Acc<T>>(x) * (keep ? scale : Acc<T>(0)));
}

// f(T{}) for the dtypes dropout runs in (the op has checked that t is floating).
template <class F>
void dispatch_dropout(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float32: return f(float());
    case ScalarType::Float64: return f(double());
    case ScalarType::Float16: return f(Half());
    case ScalarType::BFloat16: return f(BFloat16());
    default: fail<Error>("dropout: unsupported dtype ", t);
  }
}

}  // namespace ember::math
