// CUDA scans along one dim (the `scan` slot, ember/backend/kernels/scan.h; CPU reference ember/backend/cpu/scan.cpp):
// cumsum, cumprod, cummax/cummin with indices and logcumsumexp, with the CPU's running-state structs and accumulators
// (double for float32, as PyTorch's CPU; int64 for integers, wrapping on overflow). Each slice is scanned by one
// thread, in order, so results match the CPU's summation order; neighbouring threads take neighbouring slices, which is
// coalesced when the scanned dim is not the innermost one. Few long slices take a block each (scan_long_kernel).
#include <climits>
#include <cmath>
#include <type_traits>

#include "ember/backend/cuda/reduce.cuh"
#include "ember/backend/kernels/scan.h"
#include "ember/detail/convert.h"

namespace ember::cuda {

namespace {

template <class T>
using ScanAcc =
    std::conditional_t<std::is_integral_v<T>, int64_t, std::conditional_t<std::is_same_v<T, float>, double, AccOf<T>>>;

// a + b (or a * b with Mul); integer accumulators wrap like PyTorch's (through uint64: signed overflow is undefined).
template <bool Mul, class A>
__device__ A wrapped(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    const uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
    return static_cast<A>(Mul ? x * y : x + y);
  } else {
    return Mul ? a * b : a + b;
  }
}

// cumsum (Mul false) and cumprod (Mul true).
template <class T, bool Mul>
struct CumArith {
  static constexpr bool kIndex = false;
  ScanAcc<T> acc;
  __device__ void first(T x, int64_t) { acc = convert<ScanAcc<T>>(x); }
  __device__ void step(T x, int64_t) { acc = wrapped<Mul>(acc, convert<ScanAcc<T>>(x)); }
  __device__ void combine(const CumArith& later) { acc = wrapped<Mul>(acc, later.acc); }
  __device__ T value() const { return convert<T>(acc); }
  __device__ int64_t index() const { return 0; }
};

// Ties move the index to the latest position and a NaN sticks (each new NaN moves it), as in PyTorch.
template <class T, bool IsMax>
struct CumExtremum {
  static constexpr bool kIndex = true;
  AccOf<T> best;
  int64_t idx;
  __device__ void first(T x, int64_t k) {
    best = static_cast<AccOf<T>>(x);
    idx = k;
  }
  __device__ void step(T x, int64_t k) {
    const AccOf<T> v = static_cast<AccOf<T>>(x);
    if (v != v || (IsMax ? v >= best : v <= best)) {
      best = v;
      idx = k;
    }
  }
  // The state after this range then `later`'s: the same as stepping through later's elements (a NaN sticks and each
  // later NaN moves the index; otherwise later wins when its best is at least ours, at its last occurrence).
  __device__ void combine(const CumExtremum& later) {
    const bool an = best != best, bn = later.best != later.best;
    if (bn || (!an && (IsMax ? later.best >= best : later.best <= best))) *this = later;
  }
  __device__ T value() const { return static_cast<T>(best); }
  __device__ int64_t index() const { return idx; }
};

// log(exp(acc) + exp(x)) as PyTorch's _log_add_exp_helper: equal infinities stay put, NaN propagates.
template <class T>
struct LogCumSumExp {
  static constexpr bool kIndex = false;
  using A = ScanAcc<T>;
  A acc;
  __device__ void first(T x, int64_t) { acc = static_cast<A>(x); }
  __device__ void step(T x, int64_t) { add(static_cast<A>(x)); }
  __device__ void combine(const LogCumSumExp& later) { add(later.acc); }
  __device__ void add(A v) {
    const bool nan = acc != acc;
    // std::min(v, acc) and std::max(v, acc), NaN in v included
    const A lo = nan ? acc : (acc < v ? acc : v), hi = nan ? acc : (v < acc ? acc : v);
    acc = (lo != hi || disfinite(lo)) ? dlog1p(dexp(lo - hi)) + hi : v;
  }
  __device__ T value() const { return static_cast<T>(acc); }
  __device__ int64_t index() const { return 0; }
};

struct ScanGeometry {
  int nd = 0;  // the other dims, inner-first
  int64_t size[kReduceMaxDims], out[kReduceMaxDims], in[kReduceMaxDims], ind[kReduceMaxDims];
  int64_t slices = 1, n = 0, d_out = 0, d_in = 0, d_ind = 0;  // strides in elements
};

template <class S, class T>
__global__ void scan_kernel(ScanGeometry g, T* __restrict__ out, const T* __restrict__ in, int64_t* __restrict__ ind) {
  for (int64_t s = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; s < g.slices;
       s += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rem = s, oo = 0, oi = 0, ox = 0;
    for (int d = 0; d < g.nd; ++d) {
      const int64_t k = rem % g.size[d];
      rem /= g.size[d];
      oo += k * g.out[d], oi += k * g.in[d], ox += k * g.ind[d];
    }
    S st;
    for (int64_t k = 0; k < g.n; ++k) {
      const T x = in[oi + k * g.d_in];
      if (k == 0)
        st.first(x, 0);
      else
        st.step(x, k);
      out[oo + k * g.d_out] = st.value();
      if constexpr (S::kIndex) ind[ox + k * g.d_ind] = st.index();
    }
  }
}

// Few long slices: a block per slice. Each thread scans a contiguous chunk; thread 0 chains the chunks' states; then
// each thread rescans its chunk starting from the state before it and writes. Sums are grouped by chunk (a rounding
// difference from the CPU's strictly serial order at the accumulator's precision); extrema and indices are exact.
constexpr int kLongThreads = 256;
template <class S, class T>
__global__ void __launch_bounds__(kLongThreads)
    scan_long_kernel(ScanGeometry g, T* __restrict__ out, const T* __restrict__ in, int64_t* __restrict__ ind) {
  __shared__ S agg[kLongThreads];
  int64_t rem = blockIdx.x, oo = 0, oi = 0, ox = 0;
  for (int d = 0; d < g.nd; ++d) {
    const int64_t k = rem % g.size[d];
    rem /= g.size[d];
    oo += k * g.out[d], oi += k * g.in[d], ox += k * g.ind[d];
  }
  const int tid = threadIdx.x;
  const int64_t per = (g.n + kLongThreads - 1) / kLongThreads;
  const int64_t k0 = tid * per, k1 = std::min<int64_t>(g.n, k0 + per);
  S st;
  if (k0 < k1) {
    st.first(in[oi + k0 * g.d_in], k0);
    for (int64_t k = k0 + 1; k < k1; ++k) st.step(in[oi + k * g.d_in], k);
    agg[tid] = st;
  }
  __syncthreads();
  if (tid == 0)  // inclusive prefix of the chunks' states, in order
    for (int t = 1; t < kLongThreads && t * per < g.n; ++t) {
      S acc = agg[t - 1];
      acc.combine(agg[t]);
      agg[t] = acc;
    }
  __syncthreads();
  if (k0 >= k1) return;
  if (tid == 0)
    st.first(in[oi], 0);
  else {
    st = agg[tid - 1];
    st.step(in[oi + k0 * g.d_in], k0);
  }
  for (int64_t k = k0;;) {
    out[oo + k * g.d_out] = st.value();
    if constexpr (S::kIndex) ind[ox + k * g.d_ind] = st.index();
    if (++k >= k1) break;
    st.step(in[oi + k * g.d_in], k);
  }
}

template <class S, class T>
void launch(const ScanGeometry& g, const Tensor& out, const Tensor& ind, const Tensor& in, int device) {
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  if (g.n >= 1024 && g.slices <= 65535) {
    scan_long_kernel<S, T><<<static_cast<unsigned>(g.slices), kLongThreads, 0, stream>>>(
        g, static_cast<T*>(out.data_ptr()), static_cast<const T*>(in.data_ptr()),
        ind.defined() ? static_cast<int64_t*>(ind.data_ptr()) : nullptr);
    after_launch(device);
    return;
  }
  const int64_t blocks = std::min<int64_t>((g.slices + 127) / 128, int64_t(1) << 20);
  scan_kernel<S, T><<<static_cast<unsigned>(blocks), 128, 0, stream>>>(
      g, static_cast<T*>(out.data_ptr()), static_cast<const T*>(in.data_ptr()),
      ind.defined() ? static_cast<int64_t*>(ind.data_ptr()) : nullptr);
  after_launch(device);
}

void scan(ScanOp op, const Tensor& out, const Tensor& indices, const Tensor& in, int64_t dim) {
  if (in.numel() == 0) return;
  ScanGeometry g;
  if (in.dim() == 0) {
    g.n = 1;
  } else {
    g.n = in.sizes()[dim];
    g.d_out = out.strides()[dim], g.d_in = in.strides()[dim], g.d_ind = indices.defined() ? indices.strides()[dim] : 0;
    // The other dims, innermost (by the output's stride) first, so that consecutive threads write nearby slices.
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < in.dim(); ++d)
      if (d != dim && in.sizes()[d] != 1) dims.push_back(d);
    std::stable_sort(dims.begin(), dims.end(),
                     [&](int64_t a, int64_t b) { return out.strides()[a] < out.strides()[b]; });
    EMBER_CHECK(dims.size() <= static_cast<size_t>(kReduceMaxDims), "scan: CUDA scans support at most ",
                kReduceMaxDims + 1, " dims of size > 1");
    for (int64_t d : dims) {
      g.size[g.nd] = in.sizes()[d], g.out[g.nd] = out.strides()[d], g.in[g.nd] = in.strides()[d];
      g.ind[g.nd] = indices.defined() ? indices.strides()[d] : 0;
      g.slices *= in.sizes()[d];
      ++g.nd;
    }
  }
  const int device = in.device().index;
  DeviceGuard guard(device);
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    switch (op) {
      case ScanOp::Sum: return launch<CumArith<T, false>, T>(g, out, indices, in, device);
      case ScanOp::Prod: return launch<CumArith<T, true>, T>(g, out, indices, in, device);
      case ScanOp::Max: return launch<CumExtremum<T, true>, T>(g, out, indices, in, device);
      case ScanOp::Min: return launch<CumExtremum<T, false>, T>(g, out, indices, in, device);
      case ScanOp::LogSumExp:
        if constexpr (std::is_floating_point_v<AccOf<T>>)
          return launch<LogCumSumExp<T>, T>(g, out, indices, in, device);
        fail<Error>("logcumsumexp(): expected a floating point input, but got ", in.dtype());
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(scan, CUDA, scan)

}  // namespace ember::cuda
