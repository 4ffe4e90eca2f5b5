// cdist and pdist on CUDA: one thread per distance, a loop over the two rows (math/distance.h's formulas, as the CPU
// kernels').
#include <climits>
#include <cmath>
#include <cstdint>

#include "ember/backend/cuda/launch.cuh"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/nn/distance.h"
#include "ember/backend/math/distance.h"

namespace ember::cuda {
namespace {

using math::DistKind;

template <DistKind K, class T>
__device__ __forceinline__ T row_distance(const T* a, const T* b, int64_t m, T p) {
  T acc = 0;
  for (int64_t i = 0; i < m; ++i) acc = math::dist_step<K>(acc, a[i], b[i], p);
  return math::dist_finish<K>(acc, p);
}

template <DistKind K, class T>
__global__ void __launch_bounds__(kThreads)
    cdist_kernel(int64_t total, int64_t rows, int64_t cols, int64_t m, const T* a, const T* b, T* out, T p) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (t >= total) return;
  const int64_t r = t / cols, j = t % cols;
  out[t] = row_distance<K>(a + r * m, b + (r / rows * cols + j) * m, m, p);
}

// Pair k of n rows is (i, j), i < j, in row-major order: i from the quadratic's root, then j.
template <DistKind K, class T>
__global__ void __launch_bounds__(kThreads) pdist_kernel(int64_t total, int64_t n, int64_t m, const T* a, T* out, T p) {
  const int64_t k = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= total) return;
  const double nd = static_cast<double>(n);
  int64_t i = n - 2 - static_cast<int64_t>(floor(sqrt(-8.0 * k + 4 * nd * (nd - 1) - 7) / 2.0 - 0.5));
  // the root rounds for large n: step i to the row whose pairs hold k
  while (i > 0 && i * n - i * (i + 1) / 2 > k) --i;
  while ((i + 1) * n - (i + 1) * (i + 2) / 2 <= k) ++i;
  const int64_t j = k - (i * n - i * (i + 1) / 2) + i + 1;
  out[k] = row_distance<K>(a + i * m, a + j * m, m, p);
}

void launch(int64_t total, const Tensor& x, const char* op, auto&& run) {
  if (total == 0) return;
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  EMBER_CHECK(blocks <= INT_MAX, op, ": too many distances for one CUDA launch (", total, ")");
  const int device = x.device().index;
  DeviceGuard guard(device);
  run(static_cast<unsigned>(blocks), static_cast<cudaStream_t>(current_stream(device).handle));
  after_launch(device);
}

void cdist_forward(const Tensor& out, const Tensor& x1, const Tensor& x2, double p) {
  const int64_t rows = x1.size(1), cols = x2.size(1), m = x1.size(2), total = out.numel();
  math::dispatch_distance(x1.dtype(), p, "cdist", [&](auto v, auto kind) {
    using T = decltype(v);
    launch(total, x1, "cdist", [&](unsigned blocks, cudaStream_t stream) {
      cdist_kernel<kind(), T><<<blocks, kThreads, 0, stream>>>(
          total, rows, cols, m, static_cast<const T*>(x1.data_ptr()), static_cast<const T*>(x2.data_ptr()),
          static_cast<T*>(out.data_ptr()), static_cast<T>(p));
    });
  });
}

void pdist_forward(const Tensor& out, const Tensor& x, double p) {
  const int64_t n = x.size(0), m = x.size(1), total = out.numel();
  math::dispatch_distance(x.dtype(), p, "pdist", [&](auto v, auto kind) {
    using T = decltype(v);
    launch(total, x, "pdist", [&](unsigned blocks, cudaStream_t stream) {
      pdist_kernel<kind(), T><<<blocks, kThreads, 0, stream>>>(total, n, m, static_cast<const T*>(x.data_ptr()),
                                                               static_cast<T*>(out.data_ptr()), static_cast<T>(p));
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(cdist_forward, CUDA, cdist_forward)
EMBER_REGISTER_KERNEL(pdist_forward, CUDA, pdist_forward)

}  // namespace ember::cuda
