// CUDA bincount and histc (ember/backend/kernels/histogram.h; CPU reference ember/backend/cpu/sort.cpp). Counts are
// integer atomics, so they are exact and deterministic. bincount with float32/float64 weights adds them with floating
// atomics: the order of the additions varies from run to run, so the sums may differ in the last bits (as PyTorch's
// CUDA bincount, which documents it as nondeterministic).
#include <algorithm>
#include <climits>
#include <type_traits>

#include "ember/backend/cuda/device_error.cuh"
#include "ember/backend/cuda/reduce.cuh"
#include "ember/backend/kernels/histogram.h"
#include "ember/determinism.h"
#include "ember/ops.h"

namespace ember::cuda {

namespace {

cudaStream_t stream_of(int device) { return static_cast<cudaStream_t>(current_stream(device).handle); }

unsigned blocks_for(int64_t n) { return static_cast<unsigned>(std::min<int64_t>((n + 255) / 256, int64_t(1) << 16)); }

template <class W>
__device__ __forceinline__ void atomic_add(W* p, W v) {
  if constexpr (std::is_same_v<W, int64_t>)
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  else
    atomicAdd(p, v);
}

// weights null: counts (W is int64).
template <class I, class W>
__global__ void bincount_kernel(W* __restrict__ out, int64_t bins, const I* __restrict__ x, int64_t n, int64_t xs,
                                const W* __restrict__ w, int64_t ws, DeviceErrorReport* report) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t b = static_cast<int64_t>(x[i * xs]);
    if (b < 0 || b >= bins) {  // the op sizes out from the max and rejects negatives; never write outside it
      report_index_error(report, "bincount", b, 0, bins);
      continue;
    }
    atomic_add(out + b, w ? w[i * ws] : W(1));
  }
}

void bincount(const Tensor& out, const Tensor& in, const Tensor& weights) {
  const int device = out.device().index;
  DeviceGuard guard(device);
  if (out.numel() == 0) return;
  EMBER_CUDA_CHECK(cudaMemsetAsync(out.data_ptr(), 0, out.numel() * out.element_size(), stream_of(device)));
  const int64_t n = in.numel();
  if (n == 0) return;
  if (weights.defined() && is_floating(out.dtype()))
    alert_not_deterministic("bincount with floating-point weights on CUDA");  // Note [Deterministic algorithms]
  const int64_t xs = in.strides()[0];
  dispatch_all(in.dtype(), [&](auto v) {
    using I = decltype(v);
    if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool>) {
      dispatch_all(out.dtype(), [&](auto wv) {
        using W = decltype(wv);
        if constexpr (std::is_same_v<W, int64_t> || std::is_same_v<W, float> || std::is_same_v<W, double>) {
          const W* wp = weights.defined() ? static_cast<const W*>(weights.data_ptr()) : nullptr;
          const int64_t ws = weights.defined() ? weights.strides()[0] : 0;
          bincount_kernel<I, W><<<blocks_for(n), 256, 0, stream_of(device)>>>(
              static_cast<W*>(out.data_ptr()), out.numel(), static_cast<const I*>(in.data_ptr()), n, xs, wp, ws,
              device_error_slot(device));
          after_launch(device);
        } else {
          fail<TypeError>("bincount: unsupported output dtype ", out.dtype());
        }
      });
    } else {
      fail<TypeError>("bincount: expected an integral input, got ", in.dtype());
    }
  });
}

// The bin of x as PyTorch's histc computes it: in T's arithmetic, rounding after each operation.
template <class T>
__device__ int64_t histc_bin(AccOf<T> x, AccOf<T> lo, AccOf<T> width, int64_t bins) {
  using A = AccOf<T>;
  const A scaled = static_cast<A>(static_cast<T>(static_cast<A>(static_cast<T>(x - lo)) * static_cast<A>(bins)));
  const int64_t b = static_cast<int64_t>(static_cast<A>(static_cast<T>(scaled / width)));
  return b < 0 ? 0 : (b > bins - 1 ? bins - 1 : b);  // x == max lands in the last bin
}

template <class T>
__global__ void histc_kernel(unsigned long long* __restrict__ counts, int64_t bins, const T* __restrict__ x, int64_t n,
                             AccOf<T> lo, AccOf<T> hi, AccOf<T> width) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const AccOf<T> e = static_cast<AccOf<T>>(x[i]);
    if (e >= lo && e <= hi) atomicAdd(counts + histc_bin<T>(e, lo, width, bins), 1ull);  // NaN fails both tests
  }
}

template <class T>
__global__ void histc_store_kernel(T* __restrict__ out, const unsigned long long* __restrict__ counts, int64_t bins) {
  for (int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; b < bins;
       b += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[b] = static_cast<T>(static_cast<AccOf<T>>(static_cast<int64_t>(counts[b])));
}

void histc(const Tensor& out, const Tensor& in, double min, double max) {
  const int64_t bins = out.numel();
  if (bins == 0) return;
  const int device = out.device().index;
  DeviceGuard guard(device);
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<AccOf<T>>) {
      using A = AccOf<T>;
      const A lo = static_cast<A>(static_cast<T>(min)), hi = static_cast<A>(static_cast<T>(max));
      const A width = static_cast<A>(static_cast<T>(hi - lo));
      Tensor counts = device_workspace(bins * 8, device);
      auto* cp = static_cast<unsigned long long*>(counts.data_ptr());
      EMBER_CUDA_CHECK(cudaMemsetAsync(cp, 0, bins * 8, stream_of(device)));
      const Tensor x = contiguous(in);
      if (x.numel()) {
        histc_kernel<T><<<blocks_for(x.numel()), 256, 0, stream_of(device)>>>(
            cp, bins, static_cast<const T*>(x.data_ptr()), x.numel(), lo, hi, width);
        after_launch(device);
      }
      histc_store_kernel<T><<<blocks_for(bins), 256, 0, stream_of(device)>>>(static_cast<T*>(out.data_ptr()), cp, bins);
      after_launch(device);
    } else {
      fail<TypeError>("histc: expected a floating point input, got ", in.dtype());
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(bincount, CUDA, bincount)
EMBER_REGISTER_KERNEL(histc, CUDA, histc)

}  // namespace ember::cuda
