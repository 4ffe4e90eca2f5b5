// The one elementwise launcher (Note [Strided iteration]): a grid-stride loop over a StridedIter's
// elements that computes each operand's byte offset, with a contiguous fast path. Kernels are tiny
// functors f(char* const* ptrs) where ptrs[0] is the output.
#pragma once

#include <cuda_runtime.h>

#include "ember/backend/cuda/check.h"
#include "ember/cuda.h"
#include "ember/iterator.h"

namespace ember::cuda {

constexpr int kMaxDims = 12;

template <int N>
struct Geometry {
  int ndim;
  int64_t sizes[kMaxDims];
  int64_t strides[kMaxDims][N];
  char* data[N];
  int64_t elsize[N];
};

template <int N, bool Contiguous, class F>
__global__ void elementwise_kernel(int64_t n, Geometry<N> g, F f) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    char* p[N];
    if constexpr (Contiguous) {
#pragma unroll
      for (int k = 0; k < N; ++k) p[k] = g.data[k] + i * g.elsize[k];
    } else {
#pragma unroll
      for (int k = 0; k < N; ++k) p[k] = g.data[k];
      int64_t rem = i;
      for (int d = 0; d < g.ndim; ++d) {
        const int64_t idx = rem % g.sizes[d];
        rem /= g.sizes[d];
#pragma unroll
        for (int k = 0; k < N; ++k) p[k] += idx * g.strides[d][k];
      }
    }
    f(p);
  }
}

template <int N, class F>
void launch_elementwise(const StridedIter& it, F f) {
  if (it.numel == 0) return;
  EMBER_CHECK(it.ndim <= kMaxDims, "CUDA elementwise kernels support at most ", kMaxDims,
              " non-mergeable dimensions, got ", it.ndim);
  Geometry<N> g{};
  g.ndim = it.ndim;
  for (int d = 0; d < it.ndim; ++d) {
    g.sizes[d] = it.shape[d];
    for (int k = 0; k < N; ++k) g.strides[d][k] = it.strides[k][d];
  }
  for (int k = 0; k < N; ++k) {
    g.data[k] = it.data[k];
    g.elsize[k] = static_cast<int64_t>(element_size(it.dtypes[k]));
  }
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((it.numel + kThreads - 1) / kThreads, 1 << 16);
  auto stream = static_cast<cudaStream_t>(current_stream().handle);  // asynchronous: the host runs ahead
  if (it.is_contiguous())
    elementwise_kernel<N, true><<<blocks, kThreads, 0, stream>>>(it.numel, g, f);
  else
    elementwise_kernel<N, false><<<blocks, kThreads, 0, stream>>>(it.numel, g, f);
  after_launch(current_device());
}

}  // namespace ember::cuda
