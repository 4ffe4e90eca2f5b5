// Pooling on CUDA: one thread per output (max, average) or per input element (the average's backward, a gather over
// the windows that cover it: no atomics, deterministic), with the windows of pool_glue.h, which are the CPU's.
// float32 and float64 (the ops pool 16-bit floats in float32). Max pooling's gradient is a scatter_add with its
// indices (nn/functional/pooling.cpp), so it needs no kernel here.
#include <cuda_runtime.h>

#include <algorithm>

#include "ember/backend/cuda/check.h"
#include "ember/backend/cuda/pool_glue.h"
#include "ember/backend/kernels/nn/pooling.h"
#include "ember/cuda.h"

namespace ember::cuda {
namespace {

constexpr int kThreads = 256;

// Output index within a plane -> per-dim positions (dims padded to three).
__device__ __forceinline__ void unflatten(int64_t o, const int64_t* sizes, int64_t pos[3]) {
  pos[2] = o % sizes[2];
  o /= sizes[2];
  pos[1] = o % sizes[1];
  pos[0] = o / sizes[1];
}

__device__ __forceinline__ int64_t divisor(const PoolParams& p, const PoolSpan* sp) {
  return p.divisor_override ? p.divisor_override : sp[0].div * sp[1].div * sp[2].div;
}

template <class T>
__global__ void max_pool_kernel(PoolParams p, int64_t total, const T* __restrict__ x, T* __restrict__ y,
                                int64_t* __restrict__ ix) {
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t plane = t / p.out_n, o = t % p.out_n;
    int64_t pos[3];
    unflatten(o, p.out, pos);
    const PoolSpan sd = pool_span(p, 0, pos[0]), sh = pool_span(p, 1, pos[1]), sw = pool_span(p, 2, pos[2]);
    const T* xp = x + plane * p.in_n;
    T best = -INFINITY;
    int64_t at = (sd.first * p.in[1] + sh.first) * p.in[2] + sw.first;  // the CPU's index when nothing beats -inf
    for (int64_t a = 0, id = sd.first; a < sd.count; ++a, id += sd.step)
      for (int64_t b = 0, ih = sh.first; b < sh.count; ++b, ih += sh.step) {
        const int64_t row = (id * p.in[1] + ih) * p.in[2];
        for (int64_t c = 0, iw = sw.first; c < sw.count; ++c, iw += sw.step) {
          const T v = xp[row + iw];
          if (v > best || v != v) {  // NaN propagates (the last NaN's index), as on the CPU
            best = v;
            at = row + iw;
          }
        }
      }
    y[t] = best;
    if (ix) ix[t] = at;
  }
}

template <class T>
__global__ void avg_pool_kernel(PoolParams p, int64_t total, const T* __restrict__ x, T* __restrict__ y) {
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t plane = t / p.out_n, o = t % p.out_n;
    int64_t pos[3];
    unflatten(o, p.out, pos);
    const PoolSpan sp[3] = {pool_span(p, 0, pos[0]), pool_span(p, 1, pos[1]), pool_span(p, 2, pos[2])};
    const T* xp = x + plane * p.in_n;
    double sum = 0;  // in double, as the CPU kernel
    for (int64_t a = 0, id = sp[0].first; a < sp[0].count; ++a, id += sp[0].step)
      for (int64_t b = 0, ih = sp[1].first; b < sp[1].count; ++b, ih += sp[1].step) {
        const T* row = xp + (id * p.in[1] + ih) * p.in[2];
        for (int64_t c = 0, iw = sp[2].first; c < sp[2].count; ++c, iw += sp[2].step)
          sum += static_cast<double>(row[iw]);
      }
    const int64_t div = divisor(p, sp);
    y[t] = div ? static_cast<T>(sum / static_cast<double>(div)) : T(0);
  }
}

// grad_input[i] = sum over the outputs o whose window reads i of grad_out[o] / divisor(o).
template <class T>
__global__ void avg_pool_backward_kernel(PoolParams p, int64_t total, const T* __restrict__ gy, T* __restrict__ gx) {
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t plane = t / p.in_n, i = t % p.in_n;
    int64_t pos[3];
    unflatten(i, p.in, pos);
    int64_t lo[3], hi[3];
    for (int d = 0; d < 3; ++d) covering_outputs(p, d, pos[d], lo[d], hi[d]);
    const T* gp = gy + plane * p.out_n;
    double sum = 0;
    for (int64_t od = lo[0]; od < hi[0]; ++od) {
      PoolSpan sp[3];
      sp[0] = pool_span(p, 0, od);
      if (!span_contains(sp[0], pos[0])) continue;
      for (int64_t oh = lo[1]; oh < hi[1]; ++oh) {
        sp[1] = pool_span(p, 1, oh);
        if (!span_contains(sp[1], pos[1])) continue;
        for (int64_t ow = lo[2]; ow < hi[2]; ++ow) {
          sp[2] = pool_span(p, 2, ow);
          if (!span_contains(sp[2], pos[2])) continue;
          const int64_t div = divisor(p, sp);
          if (div) sum += static_cast<double>(gp[(od * p.out[1] + oh) * p.out[2] + ow]) / static_cast<double>(div);
        }
      }
    }
    gx[t] = static_cast<T>(sum);
  }
}

// Where and how wide a kernel runs: the device and current stream of `t`, one thread per element of `total`.
struct Launch {
  int dev;
  cudaStream_t stream;
  int64_t blocks;
};

// f(T{}, launch, total) for T = float or double by `in`'s dtype, with `total` = out.numel() threads (none when 0).
template <class F>
void launch(const char* op, const Tensor& in, const Tensor& out, F&& f) {
  EMBER_CHECK_T(NotImplementedError, in.dtype() == ScalarType::Float32 || in.dtype() == ScalarType::Float64, op,
                ": the CUDA kernel supports float32 and float64, not ", in.dtype(),
                " (the pooling ops compute 16-bit floats in float32)");
  const int64_t total = out.numel();
  if (total == 0) return;
  const int dev = out.device().index >= 0 ? out.device().index : current_device();
  DeviceGuard guard(dev);
  const Launch l{dev, static_cast<cudaStream_t>(current_stream(dev).handle),
                 std::min<int64_t>((total + kThreads - 1) / kThreads, int64_t(1) << 20)};
  if (in.dtype() == ScalarType::Float32)
    f(float{}, l, total);
  else
    f(double{}, l, total);
  after_launch(dev);
}

void max_pool_cuda(const Tensor& out, const Tensor& indices, const Tensor& input, const PoolGeometry& g) {
  const PoolParams p = make_pool_params(g);
  int64_t* ix = indices.defined() ? indices.data<int64_t>() : nullptr;
  launch("max_pool", input, out, [&](auto t, const Launch& l, int64_t total) {
    using T = decltype(t);
    max_pool_kernel<T><<<l.blocks, kThreads, 0, l.stream>>>(p, total, input.data<T>(), out.data<T>(), ix);
  });
}

void avg_pool_cuda(const Tensor& out, const Tensor& input, const PoolGeometry& g) {
  const PoolParams p = make_pool_params(g);
  launch("avg_pool", input, out, [&](auto t, const Launch& l, int64_t total) {
    using T = decltype(t);
    avg_pool_kernel<T><<<l.blocks, kThreads, 0, l.stream>>>(p, total, input.data<T>(), out.data<T>());
  });
}

void avg_pool_backward_cuda(const Tensor& grad_input, const Tensor& grad_out, const PoolGeometry& g) {
  const PoolParams p = make_pool_params(g);
  launch("avg_pool_backward", grad_out, grad_input, [&](auto t, const Launch& l, int64_t total) {
    using T = decltype(t);
    avg_pool_backward_kernel<T>
        <<<l.blocks, kThreads, 0, l.stream>>>(p, total, grad_out.data<T>(), grad_input.data<T>());
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(max_pool, CUDA, max_pool_cuda)
EMBER_REGISTER_KERNEL(avg_pool, CUDA, avg_pool_cuda)
EMBER_REGISTER_KERNEL(avg_pool_backward, CUDA, avg_pool_backward_cuda)

}  // namespace ember::cuda
