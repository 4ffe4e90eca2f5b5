// CUDA softmax and log_softmax (the `softmax` slot, ember/backend/kernels/nn/softmax.h): contiguous float32/float64
// [outer, n, inner] (the op converts 16-bit floats to float32 and back). Three passes per slice as on the CPU (max, sum
// of exp(x - max), write); log gives (x - max) - log(sum). Rows (inner == 1) are a warp each up to n = 1024 and a block
// each above; inner > 1 is a thread per column, whose threads read neighbouring memory at each step along n.
#include <cmath>

#include "ember/backend/cuda/reduce.cuh"
#include "ember/backend/kernels/nn/softmax.h"

namespace ember::cuda {

namespace {

// Writes the row's result given its max m and sum s of exp(x - m).
template <class T, bool Log>
__device__ __forceinline__ T finish(T x, T m, T s_or_inv) {
  if constexpr (Log)
    return (x - m) - s_or_inv;  // s_or_inv = log(sum)
  else
    return dexp(x - m) * s_or_inv;  // s_or_inv = 1 / sum
}

constexpr int kWarpRows = 8;  // rows (warps) per block of the warp kernel

template <class T, bool Log, class Index>
__global__ void __launch_bounds__(32 * kWarpRows)
    softmax_warp_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows, int n) {
  const int64_t row = blockIdx.x * static_cast<int64_t>(kWarpRows) + threadIdx.y;
  if (row >= rows) return;  // whole warps leave together
  const int lane = threadIdx.x;
  const T* x = in + static_cast<Index>(row) * static_cast<Index>(n);
  T* y = out + static_cast<Index>(row) * static_cast<Index>(n);
  T m = -INFINITY;
  for (int i = lane; i < n; i += 32) m = NanMaxOp{}(m, x[i]);
  m = warp_reduce(m, NanMaxOp{});
  T s = 0;
  for (int i = lane; i < n; i += 32) s += dexp(x[i] - m);
  s = warp_reduce(s, SumOp{});
  const T k = Log ? dlog(s) : T(1) / s;
  for (int i = lane; i < n; i += 32) y[i] = finish<T, Log>(x[i], m, k);
}

constexpr int kBlockThreads = 512;

template <class T, bool Log, class Index>
__global__ void __launch_bounds__(kBlockThreads)
    softmax_block_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t n) {
  __shared__ T scratch[32];
  const T* x = in + static_cast<Index>(blockIdx.x) * static_cast<Index>(n);
  T* y = out + static_cast<Index>(blockIdx.x) * static_cast<Index>(n);
  const Index len = static_cast<Index>(n);
  T m = -INFINITY;
  for (Index i = threadIdx.x; i < len; i += blockDim.x) m = NanMaxOp{}(m, x[i]);
  m = block_reduce(m, NanMaxOp{}, scratch);
  T s = 0;
  for (Index i = threadIdx.x; i < len; i += blockDim.x) s += dexp(x[i] - m);
  s = block_reduce(s, SumOp{}, scratch);
  const T k = Log ? dlog(s) : T(1) / s;
  for (Index i = threadIdx.x; i < len; i += blockDim.x) y[i] = finish<T, Log>(x[i], m, k);
}

// One thread per (outer, inner) column; consecutive threads are consecutive inner positions.
template <class T, bool Log, class Index>
__global__ void softmax_strided_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t outer, int64_t n,
                                       int64_t inner) {
  const int64_t cols = outer * inner;
  for (int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; c < cols;
       c += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const Index o = static_cast<Index>(c / inner), j = static_cast<Index>(c % inner);
    const Index st = static_cast<Index>(inner), len = static_cast<Index>(n);
    const T* x = in + o * len * st + j;
    T* y = out + o * len * st + j;
    T m = -INFINITY;
    for (Index k = 0; k < len; ++k) m = NanMaxOp{}(m, x[k * st]);
    T s = 0;
    for (Index k = 0; k < len; ++k) s += dexp(x[k * st] - m);
    const T kk = Log ? dlog(s) : T(1) / s;
    for (Index k = 0; k < len; ++k) y[k * st] = finish<T, Log>(x[k * st], m, kk);
  }
}

template <class T, bool Log, class Index>
void launch(const T* x, T* y, int64_t outer, int64_t n, int64_t inner, cudaStream_t stream) {
  if (inner == 1 && n <= 1024) {
    const int64_t blocks = (outer + kWarpRows - 1) / kWarpRows;
    EMBER_CHECK(blocks <= INT_MAX, "softmax: too many rows for one CUDA launch (", outer, ")");
    softmax_warp_kernel<T, Log, Index>
        <<<static_cast<unsigned>(blocks), dim3(32, kWarpRows), 0, stream>>>(x, y, outer, static_cast<int>(n));
  } else if (inner == 1) {
    EMBER_CHECK(outer <= INT_MAX, "softmax: too many rows for one CUDA launch (", outer, ")");
    softmax_block_kernel<T, Log, Index><<<static_cast<unsigned>(outer), kBlockThreads, 0, stream>>>(x, y, n);
  } else {
    const int64_t blocks = std::min<int64_t>((outer * inner + 255) / 256, int64_t(1) << 20);
    softmax_strided_kernel<T, Log, Index><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(x, y, outer, n, inner);
  }
}

void softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t n, int64_t inner, bool log) {
  if (outer * n * inner == 0) return;
  const int device = in.device().index;
  DeviceGuard guard(device);
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  const bool small = in.numel() < (int64_t(1) << 31) - 4096;
  auto go = [&](auto v) {
    using T = decltype(v);
    const T* x = static_cast<const T*>(in.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    if (small) {
      if (log)
        launch<T, true, int32_t>(x, y, outer, n, inner, stream);
      else
        launch<T, false, int32_t>(x, y, outer, n, inner, stream);
    } else {
      if (log)
        launch<T, true, int64_t>(x, y, outer, n, inner, stream);
      else
        launch<T, false, int64_t>(x, y, outer, n, inner, stream);
    }
  };
  if (in.dtype() == ScalarType::Float64)
    go(double());
  else
    go(float());
  after_launch(device);
}

}  // namespace

EMBER_REGISTER_KERNEL(softmax, CUDA, softmax)

}  // namespace ember::cuda
