// CUDA cross entropy over class indices (the `cross_entropy_logits` slot, ember/nn/loss.h; CPU reference
// ember/backend/cpu/loss.cpp): per position, lse = logsumexp over the classes (shifted by the max, or by 0 when the
// max is infinite) and nll = lse - x[target] (0 where target == ignore_index). A target outside [0, C) is reported
// through Note [Deferred device errors] and raised at the next host wait as an IndexError naming cross_entropy.
#include <climits>
#include <cmath>

#include "ember/backend/cuda/device_error.cuh"
#include "ember/backend/cuda/reduce.cuh"
#include "ember/nn/loss.h"

namespace ember::cuda {

namespace {

template <class T>
__device__ __forceinline__ T finite_or_zero(T m) {
  return isinf(m) ? T(0) : m;
}

template <class T>
struct Finish {
  T *nll, *lse;
  const int64_t* target;
  int64_t ignore_index, classes;
  DeviceErrorReport* report;
  // pos: the position; first: x at class 0 for it; stride: between classes.
  __device__ void operator()(int64_t pos, const T* first, int64_t stride, T l) const {
    lse[pos] = l;
    const int64_t t = target[pos];
    if (t == ignore_index) {
      nll[pos] = T(0);
      return;
    }
    if (t < 0 || t >= classes) {
      report_index_error(report, "cross_entropy", t, 1, classes);
      nll[pos] = T(NAN);
      return;
    }
    nll[pos] = l - first[t * stride];
  }
};

constexpr int kWarpRows = 8;
constexpr int kBlockThreads = 512;

// Rows of contiguous classes (inner == 1): a warp per row (Warp) or a block per row.
template <class T, bool Warp>
__global__ void ce_rows_kernel(const T* __restrict__ x, int64_t rows, int64_t C, Finish<T> fin) {
  __shared__ T scratch[32];
  const int64_t r = Warp ? blockIdx.x * static_cast<int64_t>(kWarpRows) + threadIdx.y : blockIdx.x;
  if (Warp && r >= rows) return;  // whole warps leave together
  const T* row = x + r * C;
  T m = -INFINITY;
  for (int64_t c = threadIdx.x; c < C; c += blockDim.x) m = NanMaxOp{}(m, row[c]);
  m = Warp ? warp_reduce(m, NanMaxOp{}) : block_reduce(m, NanMaxOp{}, scratch);
  m = finite_or_zero(m);
  T s = 0;
  for (int64_t c = threadIdx.x; c < C; c += blockDim.x) s += exp(row[c] - m);
  s = Warp ? warp_reduce(s, SumOp{}) : block_reduce(s, SumOp{}, scratch);
  if (threadIdx.x == 0) fin(r, row, 1, log(s) + m);
}

// Spatial inputs: a thread per position; consecutive threads read consecutive memory at each class.
template <class T>
__global__ void ce_strided_kernel(const T* __restrict__ x, int64_t outer, int64_t C, int64_t inner, Finish<T> fin) {
  const int64_t n = outer * inner;
  for (int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; p < n;
       p += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const T* base = x + (p / inner) * C * inner + p % inner;
    T m = -INFINITY;
    for (int64_t c = 0; c < C; ++c) m = NanMaxOp{}(m, base[c * inner]);
    m = finite_or_zero(m);
    T s = 0;
    for (int64_t c = 0; c < C; ++c) s += exp(base[c * inner] - m);
    fin(p, base, inner, log(s) + m);
  }
}

void cross_entropy_logits(const Tensor& nll, const Tensor& lse, const Tensor& x, const Tensor& target,
                          int64_t ignore_index) {
  const int64_t outer = x.size(0), C = x.size(1), inner = x.size(2);
  if (outer * inner == 0) return;
  const int device = x.device().index;
  DeviceGuard guard(device);
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  auto go = [&](auto v) {
    using T = decltype(v);
    const T* xp = static_cast<const T*>(x.data_ptr());
    const Finish<T> fin{static_cast<T*>(nll.data_ptr()), static_cast<T*>(lse.data_ptr()),
                        static_cast<const int64_t*>(target.data_ptr()), ignore_index, C, device_error_slot(device)};
    if (inner == 1 && C <= 1024) {
      const int64_t blocks = (outer + kWarpRows - 1) / kWarpRows;
      EMBER_CHECK(blocks <= INT_MAX, "cross_entropy: too many rows for one CUDA launch (", outer, ")");
      ce_rows_kernel<T, true><<<static_cast<unsigned>(blocks), dim3(32, kWarpRows), 0, stream>>>(xp, outer, C, fin);
    } else if (inner == 1) {
      EMBER_CHECK(outer <= INT_MAX, "cross_entropy: too many rows for one CUDA launch (", outer, ")");
      ce_rows_kernel<T, false><<<static_cast<unsigned>(outer), kBlockThreads, 0, stream>>>(xp, outer, C, fin);
    } else {
      const int64_t blocks = std::min<int64_t>((outer * inner + 255) / 256, int64_t(1) << 20);
      ce_strided_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(xp, outer, C, inner, fin);
    }
  };
  if (x.dtype() == ScalarType::Float64) go(double());
  else go(float());
  after_launch(device);
}

}  // namespace

EMBER_REGISTER_KERNEL(cross_entropy_logits, CUDA, cross_entropy_logits)

}  // namespace ember::cuda
