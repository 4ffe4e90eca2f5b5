// The pooling windows of the CUDA kernels (pool.cu), as plain functions that run on the host and the device:
// PoolGeometry padded to three dims, the span of input positions each output reads (the CPU's rules exactly:
// backend/cpu/pool.cpp), and for the average's backward the outputs whose windows may cover an input position.
// tests/test_cuda_glue.cpp checks them on the host.
#pragma once

#include <cstdint>

#include "ember/backend/kernels/nn/pooling.h"
#include "ember/macros.h"

namespace ember::cuda {

struct PoolParams {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1};
  bool adaptive = false, count_include_pad = true;
  int64_t divisor_override = 0;
  int64_t in_n = 1, out_n = 1;  // positions per plane
};

// The geometry over the last g.in.size() (1 to 3) dims, padded with leading dims of size 1.
inline PoolParams make_pool_params(const PoolGeometry& g) {
  PoolParams p;
  const size_t nsp = g.in.size(), off = 3 - nsp;
  p.adaptive = g.adaptive();
  p.count_include_pad = g.count_include_pad;
  p.divisor_override = g.divisor_override;
  for (size_t i = 0; i < nsp; ++i) {
    p.in[off + i] = g.in[i];
    p.out[off + i] = g.out[i];
    if (!p.adaptive) {
      p.k[off + i] = g.kernel[i];
      p.s[off + i] = g.stride[i];
      p.pad[off + i] = g.padding[i];
      p.dil[off + i] = g.dilation.empty() ? 1 : g.dilation[i];
    }
    p.in_n *= g.in[i];
    p.out_n *= g.out[i];
  }
  return p;
}

// The input positions output o reads along dim d: `count` positions from `first`, `step` apart; div: this dim's
// factor of an average's divisor.
struct PoolSpan {
  int64_t first, count, step, div;
};

EMBER_HOST_DEVICE PoolSpan pool_span(const PoolParams& p, int d, int64_t o) {
  const int64_t in = p.in[d];
  if (p.adaptive) {
    const int64_t out = p.out[d];
    const int64_t a = o * in / out, b = ((o + 1) * in + out - 1) / out;
    return {a, b - a, 1, b - a};
  }
  const int64_t k = p.k[d], dl = p.dil[d], pad = p.pad[d];
  const int64_t start = o * p.s[d] - pad;
  const int64_t jmin = start < 0 ? (-start + dl - 1) / dl : 0;  // the first tap inside the input
  const int64_t jmax = in - 1 - start >= 0 ? (k - 1 < (in - 1 - start) / dl ? k - 1 : (in - 1 - start) / dl) : -1;
  const int64_t count = jmax - jmin + 1 > 0 ? jmax - jmin + 1 : 0;
  // With count_include_pad the divisor counts padding but not ceil_mode's overhang.
  const int64_t end = start + k < in + pad ? start + k : in + pad;
  return {start + jmin * dl, count, dl, p.count_include_pad ? end - start : count};
}

EMBER_HOST_DEVICE bool span_contains(const PoolSpan& s, int64_t i) {
  if (i < s.first || s.count <= 0) return false;
  const int64_t r = i - s.first;
  return r % s.step == 0 && r / s.step < s.count;
}

// floor(a / b) for b > 0 and any sign of a.
EMBER_HOST_DEVICE int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Outputs [lo, hi) along dim d that may read input position i (a superset: callers check span_contains).
EMBER_HOST_DEVICE void covering_outputs(const PoolParams& p, int d, int64_t i, int64_t& lo, int64_t& hi) {
  const int64_t out = p.out[d];
  if (p.adaptive) {  // o reads i iff floor(o * in / out) <= i < ceil((o + 1) * in / out)
    lo = i * out / p.in[d];
    hi = ((i + 1) * out + p.in[d] - 1) / p.in[d];
  } else {  // o * s - pad <= i <= o * s - pad + (k - 1) * dil
    const int64_t s = p.s[d], base = i + p.pad[d];
    lo = -floor_div(-(base - (p.k[d] - 1) * p.dil[d]), s);  // ceil
    hi = floor_div(base, s) + 1;
  }
  lo = lo < 0 ? 0 : lo;
  hi = hi > out ? out : hi;
}

}  // namespace ember::cuda
