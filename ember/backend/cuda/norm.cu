// CUDA kernels of the normalization layers (ember/backend/kernels/nn/normalization.h; CPU reference
// ember/backend/cpu/norm.cpp): layer norm's forward and backward over the rows of [M, N] (a warp per row up to N =
// 1024, a block per row above; two-pass statistics like the CPU's), and batch norm's per-channel sums and affine maps
// over [A, C, B]. The column sums (layer norm's dw and db, the channel moments) go through the reduction framework
// (reduce.cuh), so they are deterministic.
#include <climits>
#include <cmath>

#include "ember/backend/cuda/reduce.cuh"
#include "ember/backend/kernels/nn/normalization.h"

namespace ember::cuda {

namespace {

template <class T>
const T* cptr(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}
template <class T>
T* mptr(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.data_ptr()) : nullptr;
}

cudaStream_t stream_of(int device) { return static_cast<cudaStream_t>(current_stream(device).handle); }

// The kernels run in float32 or float64 (the ops convert 16-bit floats).
template <class F>
void by_dtype(const Tensor& t, F f) {
  if (t.dtype() == ScalarType::Float64)
    f(double());
  else
    f(float());
}

bool fits32(int64_t numel) { return numel < (int64_t(1) << 31) - 4096; }

// A row of N elements is handled by a warp (Warp) or a whole block; sum() reduces over that group.
template <bool Warp>
struct Group {
  template <class T>
  __device__ static T sum(T v, T* scratch) {
    if constexpr (Warp)
      return warp_reduce(v, SumOp{});
    else
      return block_reduce(v, SumOp{}, scratch);
  }
  __device__ static int rank() { return threadIdx.x; }
  __device__ static int size() { return blockDim.x; }
  __device__ static int64_t row() {
    return Warp ? blockIdx.x * static_cast<int64_t>(blockDim.y) + threadIdx.y : static_cast<int64_t>(blockIdx.x);
  }
};

constexpr int kWarpRows = 8;
constexpr int kBlockThreads = 512;

template <class T, bool Warp, class Index>
__global__ void layer_norm_kernel(T* __restrict__ Y, T* __restrict__ mu, T* __restrict__ rs, const T* __restrict__ X,
                                  const T* __restrict__ W, const T* __restrict__ B, int64_t M, int64_t N, T eps) {
  using G = Group<Warp>;
  __shared__ T scratch[32];
  const int64_t r = G::row();
  if (Warp && r >= M) return;  // whole warps leave together (block rows only exist for r < M)
  const Index n = static_cast<Index>(N);
  const T* x = X + static_cast<Index>(r) * n;
  T* y = Y + static_cast<Index>(r) * n;
  T s = 0;
  for (Index j = G::rank(); j < n; j += G::size()) s += x[j];
  const T m = G::sum(s, scratch) / T(N);
  T q = 0;
  for (Index j = G::rank(); j < n; j += G::size()) {
    const T d = x[j] - m;
    q += d * d;
  }
  const T v = G::sum(q, scratch) / T(N);
  const T k = T(1) / dsqrt(v + eps);
  if (G::rank() == 0) mu[r] = m, rs[r] = k;
  for (Index j = G::rank(); j < n; j += G::size()) y[j] = (x[j] - m) * k * (W ? W[j] : T(1)) + (B ? B[j] : T(0));
}

// dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = g * w, per row.
template <class T, bool Warp, class Index>
__global__ void layer_norm_dx_kernel(T* __restrict__ DX, const T* __restrict__ Gr, const T* __restrict__ X,
                                     const T* __restrict__ mu, const T* __restrict__ rs, const T* __restrict__ W,
                                     int64_t M, int64_t N) {
  using G = Group<Warp>;
  __shared__ T scratch[32];
  const int64_t r = G::row();
  if (Warp && r >= M) return;
  const Index n = static_cast<Index>(N);
  const T *g = Gr + static_cast<Index>(r) * n, *x = X + static_cast<Index>(r) * n;
  T* dx = DX + static_cast<Index>(r) * n;
  const T m = mu[r], s = rs[r];
  T sa = 0, sc = 0;
  for (Index j = G::rank(); j < n; j += G::size()) {
    const T gw = g[j] * (W ? W[j] : T(1));
    sa += gw;
    sc += gw * (x[j] - m);
  }
  const T a = G::sum(sa, scratch) / T(N);
  const T c = G::sum(sc, scratch) * s / T(N);
  for (Index j = G::rank(); j < n; j += G::size()) dx[j] = s * (g[j] * (W ? W[j] : T(1)) - a - (x[j] - m) * s * c);
}

// f(index type, warp per row?, blocks, block shape) for a row kernel over [M, N] (Group<Warp>'s launch shape).
template <class F>
void for_rows(int64_t M, int64_t N, F f) {
  const bool warp = N <= 1024;
  const int64_t blocks = warp ? (M + kWarpRows - 1) / kWarpRows : M;
  EMBER_CHECK(blocks <= INT_MAX, "layer_norm: too many rows for one CUDA launch (", M, ")");
  const unsigned nb = static_cast<unsigned>(blocks);
  const dim3 wb(32, kWarpRows), bb(kBlockThreads);
  if (fits32(M * N)) {
    if (warp)
      f(int32_t(), std::true_type(), nb, wb);
    else
      f(int32_t(), std::false_type(), nb, bb);
  } else {
    if (warp)
      f(int64_t(), std::true_type(), nb, wb);
    else
      f(int64_t(), std::false_type(), nb, bb);
  }
}

void layer_norm(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& w,
                const Tensor& b, double eps) {
  const int64_t M = x.size(0), N = x.size(1);
  if (M == 0) return;
  const int device = x.device().index;
  DeviceGuard guard(device);
  by_dtype(x, [&](auto v) {
    using T = decltype(v);
    for_rows(M, N, [&](auto index, auto warp, unsigned blocks, dim3 block) {
      layer_norm_kernel<T, decltype(warp)::value, decltype(index)><<<blocks, block, 0, stream_of(device)>>>(
          mptr<T>(y), mptr<T>(mean), mptr<T>(rstd), cptr<T>(x), cptr<T>(w), cptr<T>(b), M, N, T(eps));
    });
  });
  after_launch(device);
}

// ---- column sums through the reduction framework

// Layer norm's (dw, db) terms at element off of row r: (g * xhat, g).
template <class T>
struct LoadLayerNormGrads {
  const T *g, *x, *mu, *rs;
  template <class Index>
  __device__ __forceinline__ Pair<T> operator()(Index off, Index, Index r) const {
    return {g[off] * (x[off] - mu[r]) * rs[r], g[off]};
  }
};
template <class A>
struct StorePair {
  A *a, *b;
  template <class Index>
  __device__ __forceinline__ void operator()(const ReduceGeometry&, Index i, Pair<A> v) const {
    if (a) a[i] = v.a;
    if (b) b[i] = v.b;
  }
};

void zero(const Tensor& t, int device) {
  if (t.defined() && t.numel())
    EMBER_CUDA_CHECK(cudaMemsetAsync(t.data_ptr(), 0, t.numel() * t.element_size(), stream_of(device)));
}

void layer_norm_backward(const Tensor& dx, const Tensor& dw, const Tensor& db, const Tensor& g, const Tensor& x,
                         const Tensor& mean, const Tensor& rstd, const Tensor& w) {
  const int64_t M = x.size(0), N = x.size(1);
  const int device = x.device().index;
  DeviceGuard guard(device);
  by_dtype(x, [&](auto v) {
    using T = decltype(v);
    if (dx.defined() && M > 0 && N > 0) {
      for_rows(M, N, [&](auto index, auto warp, unsigned blocks, dim3 block) {
        layer_norm_dx_kernel<T, decltype(warp)::value, decltype(index)><<<blocks, block, 0, stream_of(device)>>>(
            mptr<T>(dx), cptr<T>(g), cptr<T>(x), cptr<T>(mean), cptr<T>(rstd), cptr<T>(w), M, N);
      });
      after_launch(device);
    }
    if (!dw.defined() && !db.defined()) return;
    if (M == 0) {
      zero(dw, device);
      zero(db, device);
      return;
    }
    if (N == 0) return;
    // Columns kept (stride 1), rows reduced (stride N): the reduced index is the row.
    const ReduceGeometry geo = make_reduce_geometry({{M, N, 0, 0, true}, {N, 1, 1, 0, false}});
    const LoadLayerNormGrads<T> load{cptr<T>(g), cptr<T>(x), cptr<T>(mean), cptr<T>(rstd)};
    const StorePair<T> store{mptr<T>(dw), mptr<T>(db)};
    if (geo.fits32)
      launch_reduction<PairSum<T>, int32_t>(geo, load, store, device);
    else
      launch_reduction<PairSum<T>, int64_t>(geo, load, store, device);
  });
}

// Channel moments' terms at element off of channel c: (g, g * (x - m[c])), in T as the CPU computes them.
template <class T>
struct LoadMoments {
  const T *g, *x;
  const double* m;
  template <class Index>
  __device__ __forceinline__ Pair<T> operator()(Index off, Index c, Index) const {
    const T gv = g[off];
    return {gv, x ? gv * (x[off] - (m ? T(m[c]) : T(0))) : T(0)};
  }
};

void channel_moments(const Tensor& s1, const Tensor& s2, const Tensor& g, const Tensor& x, const Tensor& m,
                     IntArrayRef acb) {
  const int64_t A = acb[0], C = acb[1], B = acb[2];
  const int device = g.device().index;
  DeviceGuard guard(device);
  if (C == 0) return;
  if (A * B == 0) {
    zero(s1, device);
    zero(s2, device);
    return;
  }
  by_dtype(g, [&](auto v) {
    using T = decltype(v);
    const ReduceGeometry geo = make_reduce_geometry({{A, C * B, 0, 0, true}, {C, B, 1, 0, false}, {B, 1, 0, 0, true}});
    // Sums accumulate in double (the CPU sums runs in T, then adds them in double).
    const LoadMoments<T> load{cptr<T>(g), s2.defined() ? cptr<T>(x) : nullptr, cptr<double>(m)};
    const StorePair<double> store{mptr<double>(s1), mptr<double>(s2)};
    if (geo.fits32)
      launch_reduction<PairSum<double>, int32_t>(geo, load, store, device);
    else
      launch_reduction<PairSum<double>, int64_t>(geo, load, store, device);
  });
}

template <class T>
__global__ void channel_coefficients_kernel(double* __restrict__ scale, double* __restrict__ shift,
                                            double* __restrict__ invstd, const T* __restrict__ mean,
                                            const T* __restrict__ var, const T* __restrict__ w, const T* __restrict__ b,
                                            double eps, int64_t C) {
  const int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (c >= C) return;
  const double is = 1.0 / sqrt(static_cast<double>(var[c]) + eps);
  const double sc = w ? is * static_cast<double>(w[c]) : is;
  invstd[c] = is;
  scale[c] = sc;
  shift[c] = -(static_cast<double>(mean[c]) * sc) + (b ? static_cast<double>(b[c]) : 0.0);
}

void channel_coefficients(const Tensor& scale, const Tensor& shift, const Tensor& invstd, const Tensor& mean,
                          const Tensor& var, const Tensor& w, const Tensor& b, double eps) {
  const int64_t C = mean.numel();
  if (C == 0) return;
  const int device = mean.device().index;
  DeviceGuard guard(device);
  by_dtype(mean, [&](auto v) {
    using T = decltype(v);
    channel_coefficients_kernel<T><<<static_cast<unsigned>((C + 255) / 256), 256, 0, stream_of(device)>>>(
        mptr<double>(scale), mptr<double>(shift), mptr<double>(invstd), cptr<T>(mean), cptr<T>(var),
        w.defined() ? cptr<T>(w) : nullptr, b.defined() ? cptr<T>(b) : nullptr, eps, C);
  });
  after_launch(device);
}

template <class T, class Index>
__global__ void channel_affine_kernel(T* __restrict__ out, const T* __restrict__ a, const double* __restrict__ ka,
                                      const T* __restrict__ x, const double* __restrict__ kx,
                                      const double* __restrict__ k0, int64_t n, int64_t C, int64_t B) {
  const Index cn = static_cast<Index>(C), bn = static_cast<Index>(B);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const Index k = static_cast<Index>(i);
    const Index c = (k / bn) % cn;
    if (x)
      out[k] = a[k] * T(ka[c]) + x[k] * T(kx[c]) + T(k0[c]);
    else
      out[k] = a[k] * T(ka[c]) + T(k0[c]);
  }
}

void channel_affine(const Tensor& out, const Tensor& a, const Tensor& ka, const Tensor& x, const Tensor& kx,
                    const Tensor& k0, IntArrayRef acb) {
  const int64_t n = acb[0] * acb[1] * acb[2];
  if (n == 0) return;
  const int device = a.device().index;
  DeviceGuard guard(device);
  by_dtype(a, [&](auto v) {
    using T = decltype(v);
    const int64_t blocks = std::min<int64_t>((n + 255) / 256, int64_t(1) << 20);
    auto go = [&](auto index) {
      channel_affine_kernel<T, decltype(index)><<<static_cast<unsigned>(blocks), 256, 0, stream_of(device)>>>(
          mptr<T>(out), cptr<T>(a), cptr<double>(ka), cptr<T>(x), x.defined() ? cptr<double>(kx) : nullptr,
          cptr<double>(k0), n, acb[1], acb[2]);
    };
    if (fits32(n))
      go(int32_t());
    else
      go(int64_t());
  });
  after_launch(device);
}

}  // namespace

EMBER_REGISTER_KERNEL(layer_norm, CUDA, layer_norm)
EMBER_REGISTER_KERNEL(layer_norm_backward, CUDA, layer_norm_backward)
EMBER_REGISTER_KERNEL(channel_moments, CUDA, channel_moments)
EMBER_REGISTER_KERNEL(channel_coefficients, CUDA, channel_coefficients)
EMBER_REGISTER_KERNEL(channel_affine, CUDA, channel_affine)

}  // namespace ember::cuda
