// Small helpers of the indexing, sorting and spatial kernels (index.cu, sort.cu, spatial.cu): work buffers from the
// device's caching allocator, CUB calls with their temporary storage, and a flat grid-stride launcher.
#pragma once

#include <algorithm>
#include <cstring>

#include <cuda_runtime.h>

#include "ember/backend/cuda/check.h"
#include "ember/backend/cuda/device_error.cuh"
#include "ember/cuda.h"
#include "ember/ops.h"

namespace ember::cuda {

inline cudaStream_t stream_of(int device) { return static_cast<cudaStream_t>(current_stream(device).handle); }

// A work buffer of n elements on d: a tensor from the caching allocator, released (stream-ordered) when dropped.
inline Tensor scratch(Device d, ScalarType t, int64_t n) {
  return empty({{std::max<int64_t>(n, 1)}}, TensorOptions(t).device(d));
}

template <class T>
T* ptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// Runs a CUB device algorithm `f(temp, bytes)` (called twice: the size query, then the work) on d's current stream.
template <class F>
void cub_run(Device d, F&& f) {
  size_t bytes = 0;
  EMBER_CUDA_CHECK(f(nullptr, bytes));
  Tensor tmp = scratch(d, ScalarType::UInt8, static_cast<int64_t>(bytes));
  EMBER_CUDA_CHECK(f(tmp.data_ptr(), bytes));
  after_launch(d.index);
}

constexpr int kFlatThreads = 256;

template <class F>
__global__ void flat_kernel(int64_t n, F f) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    f(i);
}

// f(i) for i in [0, n) on the current stream of `device` (the caller holds a DeviceGuard).
template <class F>
void launch_flat(int device, int64_t n, F f) {
  if (n <= 0) return;
  const int64_t blocks = std::min<int64_t>((n + kFlatThreads - 1) / kFlatThreads, 1 << 16);
  flat_kernel<<<static_cast<unsigned>(blocks), kFlatThreads, 0, stream_of(device)>>>(n, f);
  after_launch(device);
}

// The bits of v as To (same size).
template <class To, class From>
__host__ __device__ inline To bits_as(From v) {
  static_assert(sizeof(To) == sizeof(From));
  To t;
  ::memcpy(&t, &v, sizeof t);
  return t;
}

// The value of one 0-d/1-element device buffer on the host (a single device-to-host copy; waits for the stream).
template <class T>
T read_scalar(const T* dev, int device) {
  T v{};
  cuda::memcpy(&v, dev, sizeof v, CopyKind::DeviceToHost, device);
  return v;
}

}  // namespace ember::cuda
