// Fused dropout on CUDA (Note [Fused dropout]): the formulas of ember/backend/math/dropout.h and the Philox blocks of
// the CPU kernel, so that a seed gives the same mask and values on both devices.
#include <climits>
#include <cstdint>

#include "ember/backend/cuda/launch.cuh"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/nn/dropout.h"
#include "ember/backend/math/dropout.h"

namespace ember::cuda {
namespace {

constexpr int kPer = 4;  // elements per thread: two Philox blocks

// Thread t handles elements [4t, 4t + 4): out = x * (keep ? scale : 0), keep drawn from Philox blocks s.offset + 2t
// and + 2t + 1, or read from keep_in (the backward) where given; mask, where given, receives keep. out may be x.
// vec: every pointer is aligned for 4-element accesses.
template <class T>
__global__ void __launch_bounds__(kThreads)
    dropout_elements(int64_t n, const T* x, T* out, const uint8_t* keep_in, uint8_t* mask, PhiloxState s,
                     uint64_t threshold, math::Acc<T> scale, bool vec) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t base = t * kPer;
  if (base >= n) return;
  const bool full = vec && base + kPer <= n;
  bool keep[kPer];
  if (keep_in) {
    if (full) {
      const uint32_t w = *reinterpret_cast<const uint32_t*>(keep_in + base);
#pragma unroll
      for (int j = 0; j < kPer; ++j) keep[j] = (w >> (8 * j)) & 0xff;
    } else {
#pragma unroll
      for (int j = 0; j < kPer; ++j) keep[j] = base + j < n && keep_in[base + j];
    }
  } else {
#pragma unroll
    for (int h = 0; h < kPer / 2; ++h) {
      const Philox4x32 r(s.seed, s.offset + static_cast<uint64_t>(t) * (kPer / 2) + h);
      keep[2 * h] = math::dropout_keep(r.v[0], r.v[1], threshold);
      keep[2 * h + 1] = math::dropout_keep(r.v[2], r.v[3], threshold);
    }
  }
  VecOf<T, kPer> v;
  if (full) {
    v = *reinterpret_cast<const VecOf<T, kPer>*>(x + base);
  } else {
#pragma unroll
    for (int j = 0; j < kPer; ++j) v.v[j] = base + j < n ? x[base + j] : T();
  }
#pragma unroll
  for (int j = 0; j < kPer; ++j) v.v[j] = math::dropout_apply(v.v[j], keep[j], scale);
  if (full) {
    *reinterpret_cast<VecOf<T, kPer>*>(out + base) = v;
  } else {
#pragma unroll
    for (int j = 0; j < kPer; ++j)
      if (base + j < n) out[base + j] = v.v[j];
  }
  if (!mask) return;
  if (full) {
    uint32_t w = 0;
#pragma unroll
    for (int j = 0; j < kPer; ++j) w |= static_cast<uint32_t>(keep[j]) << (8 * j);
    *reinterpret_cast<uint32_t*>(mask + base) = w;
  } else {
#pragma unroll
    for (int j = 0; j < kPer; ++j)
      if (base + j < n) mask[base + j] = keep[j];
  }
}

bool aligned(const void* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

// keep_in undefined: draw from s (the forward); otherwise read it (the backward). mask may be undefined.
void run(const Tensor& out, const Tensor& x, const Tensor& keep_in, const Tensor& mask, PhiloxState s,
         uint64_t threshold, double scale) {
  const int64_t n = x.numel();
  if (n == 0) return;
  const int64_t blocks = (n + int64_t(kThreads) * kPer - 1) / (int64_t(kThreads) * kPer);
  EMBER_CHECK(blocks <= INT_MAX, "dropout: too many elements for one CUDA launch (", n, ")");
  const int device = x.device().index;
  DeviceGuard guard(device);
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  const auto* k = keep_in.defined() ? static_cast<const uint8_t*>(keep_in.data_ptr()) : nullptr;
  auto* m = mask.defined() ? static_cast<uint8_t*>(mask.data_ptr()) : nullptr;
  math::dispatch_dropout(x.dtype(), [&](auto v) {
    using T = decltype(v);
    const T* xp = static_cast<const T*>(x.data_ptr());
    T* op = static_cast<T*>(out.data_ptr());
    const bool vec = aligned(xp, kPer * sizeof(T)) && aligned(op, kPer * sizeof(T)) && aligned(k, kPer) &&
                     aligned(m, kPer);
    dropout_elements<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(n, xp, op, k, m, s, threshold,
                                                                                static_cast<math::Acc<T>>(scale), vec);
  });
  after_launch(device);
}

void dropout(const Tensor& out, const Tensor& mask, const Tensor& x, double q, double scale, PhiloxState s) {
  run(out, x, Tensor(), mask, s, math::dropout_threshold(q), scale);
}

void dropout_backward(const Tensor& out, const Tensor& g, const Tensor& mask, double scale) {
  run(out, g, mask, Tensor(), PhiloxState{0, 0}, 0, scale);
}

}  // namespace

EMBER_REGISTER_KERNEL(dropout, CUDA, dropout)
EMBER_REGISTER_KERNEL(dropout_backward, CUDA, dropout_backward)

}  // namespace ember::cuda
