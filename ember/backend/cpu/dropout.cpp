// Fused dropout (Note [Fused dropout]): one pass draws the keep flags from Philox and writes x * (keep ? scale : 0)
// and the bool mask; the backward is the same pass with the mask read instead of drawn.
#include <algorithm>
#include <cstring>

#include "ember/backend/cpu/philox.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/nn/dropout.h"
#include "ember/backend/math/dropout.h"
#include "ember/parallel.h"

namespace ember::cpu {
namespace {

constexpr int kBlocks = 16;  // Philox blocks per batch: 32 elements, one step of the bulk generator

// keep[0 .. 2 * kBlocks) for the elements of blocks s.offset + first + [0, kBlocks): block j serves elements 2j
// (words 0, 1) and 2j + 1 (words 2, 3).
void draw_keep(PhiloxState s, uint64_t first, uint64_t threshold, uint8_t* keep) {
  uint32_t w[4 * kBlocks];
  philox_words(s, 4 * first, 4 * kBlocks, w);
  for (int e = 0; e < 2 * kBlocks; ++e) keep[e] = math::dropout_keep(w[2 * e], w[2 * e + 1], threshold);
}

// out[i] = x[i] * (keep[i] ? scale : 0) for i < n; out may be x.
template <class T>
void apply(const T* x, T* out, const uint8_t* keep, int64_t n, math::Acc<T> scale) {
  for (int64_t i = 0; i < n; ++i) out[i] = math::dropout_apply(x[i], keep[i] != 0, scale);
}

void dropout(const Tensor& out, const Tensor& mask, const Tensor& x, double q, double scale, PhiloxState s) {
  const int64_t n = x.numel();
  const uint64_t threshold = math::dropout_threshold(q);
  auto* m = mask.defined() ? static_cast<uint8_t*>(mask.data_ptr()) : nullptr;
  math::dispatch_dropout(x.dtype(), [&](auto v) {
    using T = decltype(v);
    const T* xp = static_cast<const T*>(x.data_ptr());
    T* op = static_cast<T*>(out.data_ptr());
    const auto sc = static_cast<math::Acc<T>>(scale);
    // Threads split the blocks (two elements each), so every chunk starts on an element pair.
    parallel_for(0, (n + 1) / 2, kGrainSize / 2, [&](int64_t b0, int64_t b1) {
      uint8_t keep[2 * kBlocks];
      for (int64_t b = b0; b < b1; b += kBlocks) {
        const int64_t e0 = 2 * b, len = std::min(2 * std::min<int64_t>(b + kBlocks, b1), n) - e0;
        draw_keep(s, static_cast<uint64_t>(b), threshold, keep);
        apply(xp + e0, op + e0, keep, len, sc);
        if (m) std::memcpy(m + e0, keep, static_cast<size_t>(len));
      }
    });
  });
}

void dropout_backward(const Tensor& out, const Tensor& g, const Tensor& mask, double scale) {
  const auto* m = static_cast<const uint8_t*>(mask.data_ptr());
  math::dispatch_dropout(g.dtype(), [&](auto v) {
    using T = decltype(v);
    const T* gp = static_cast<const T*>(g.data_ptr());
    T* op = static_cast<T*>(out.data_ptr());
    const auto sc = static_cast<math::Acc<T>>(scale);
    parallel_for(0, g.numel(), kGrainSize, [&](int64_t b, int64_t e) { apply(gp + b, op + b, m + b, e - b, sc); });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(dropout, CPU, dropout)
EMBER_REGISTER_KERNEL(dropout_backward, CPU, dropout_backward)

}  // namespace ember::cpu
