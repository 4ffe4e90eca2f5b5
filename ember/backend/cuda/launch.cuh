// Note [CUDA elementwise launcher]
// The one elementwise launcher of the CUDA backend. gpu_kernel<Out, In, N>(it, f) computes out = f(in_1..in_N)
// over a StridedIter (Note [Strided iteration]) with f taking In values and returning Out, like cpu_kernel
// (Note [Casting on load]). Three kernels serve every layout:
// - linear: the output contiguous and each input contiguous or a broadcast scalar, all of the functor's types:
//   each thread handles V consecutive elements with 16-byte vector loads and stores where the pointers allow;
// - strided: any layout; byte offsets from an OffsetCalc, in 32-bit arithmetic when every offset fits (division is
//   the cost of a strided kernel, and 32-bit division is several times cheaper), else 64; operands of other dtypes
//   than the functor's are loaded and stored through a per-dtype switch (uniform across the warp).
// An input may also be a number held on the host (a Python scalar or a 0-d CPU tensor joining a CUDA op, as
// PyTorch allows): it travels as a kernel argument, so `x * 2` costs no host-to-device copy.
// Everything is enqueued on the current stream and returns at once (the host runs ahead).
// launch_elementwise<N>(it, f) is the untyped form for kernels that compute addresses themselves (copy, random).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

#include "ember/backend/cuda/check.h"
#include "ember/backend/launch_plan.h"
#include "ember/cuda.h"
#include "ember/detail/convert.h"
#include "ember/iterator.h"

namespace ember::cuda {

constexpr int kMaxDims = 16;
constexpr int kThreads = 256;

// Complex operands meet only the complex functors (whose compute dtype is complex, or copy's from a complex source):
// the real functors' switches leave the complex cases out. complex32 is loaded and stored by the complex64 functors
// (Note [complex32] in ember/dtype.cpp).
template <class To>
__device__ __forceinline__ To load_as(const char* p, ScalarType t) {
  switch (t) {
#define EMBER_LOAD_CASE(T, name, py) \
  case ScalarType::name: return convert<To>(*reinterpret_cast<const T*>(p));
    EMBER_FORALL_DTYPES(EMBER_LOAD_CASE)
    default:
      if constexpr (is_complex_v<To>) {
        switch (t) {
          EMBER_FORALL_COMPLEX_DTYPES(EMBER_LOAD_CASE)
          case ScalarType::ComplexHalf: return convert<To>(*reinterpret_cast<const Complex<Half>*>(p));
          default: break;
        }
      }
#undef EMBER_LOAD_CASE
  }
  return To();
}

template <class From>
__device__ __forceinline__ void store_as(char* p, ScalarType t, From v) {
  switch (t) {
#define EMBER_STORE_CASE(T, name, py) \
  case ScalarType::name: *reinterpret_cast<T*>(p) = convert<T>(v); return;
    EMBER_FORALL_DTYPES(EMBER_STORE_CASE)
    default:
      if constexpr (is_complex_v<From>) {
        switch (t) {
          EMBER_FORALL_COMPLEX_DTYPES(EMBER_STORE_CASE)
          case ScalarType::ComplexHalf: *reinterpret_cast<Complex<Half>*>(p) = convert<Complex<Half>>(v); return;
          default: break;
        }
      }
#undef EMBER_STORE_CASE
  }
}

// Byte offsets of NT operands for a linear element index, dim 0 innermost.
template <int NT, class Index>
struct OffsetCalc {
  int ndim;
  Index sizes[kMaxDims];
  Index strides[kMaxDims][NT];

  __device__ __forceinline__ void get(Index i, Index (&off)[NT]) const {
#pragma unroll
    for (int k = 0; k < NT; ++k) off[k] = 0;
#pragma unroll 4
    for (int d = 0; d < ndim; ++d) {
      const Index idx = i % sizes[d];
      i /= sizes[d];
#pragma unroll
      for (int k = 0; k < NT; ++k) off[k] += idx * strides[d][k];
    }
  }
};

// The N inputs: device pointers, or values from the host for the inputs set in host_mask.
template <class In, int N>
struct Inputs {
  const char* ptr[N];
  In value[N];
  uint32_t host_mask;
  uint32_t bcast_mask;  // linear kernel: inputs read from one address (stride 0)
};

template <class T, int V>
struct alignas(sizeof(T) * V) VecOf {
  T v[V];
};

template <class Out, class In, int N, class F, size_t... I>
__device__ __forceinline__ Out apply(const F& f, const In (&a)[N], std::index_sequence<I...>) {
  return f(a[I]...);
}

// vector: every pointer is aligned for V-element loads (otherwise each element is loaded alone).
template <int V, class Out, class In, int N, class F>
__global__ void __launch_bounds__(kThreads) linear_kernel(int64_t n, Out* out, Inputs<In, N> in, bool vector, F f) {
  const int64_t base = (static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x) * V;
  if (base >= n) return;
  const bool full = vector && base + V <= n;
  In args[V][N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    if (in.host_mask & (1u << k)) {
#pragma unroll
      for (int j = 0; j < V; ++j) args[j][k] = in.value[k];
    } else if (in.bcast_mask & (1u << k)) {
      const In x = *reinterpret_cast<const In*>(in.ptr[k]);
#pragma unroll
      for (int j = 0; j < V; ++j) args[j][k] = x;
    } else {
      const In* p = reinterpret_cast<const In*>(in.ptr[k]) + base;
      if (V > 1 && full) {
        const VecOf<In, V> x = *reinterpret_cast<const VecOf<In, V>*>(p);
#pragma unroll
        for (int j = 0; j < V; ++j) args[j][k] = x.v[j];
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j) args[j][k] = base + j < n ? p[j] : In();
      }
    }
  }
  VecOf<Out, V> r;
#pragma unroll
  for (int j = 0; j < V; ++j) r.v[j] = apply<Out>(f, args[j], std::make_index_sequence<N>());
  if (V > 1 && full) {
    *reinterpret_cast<VecOf<Out, V>*>(out + base) = r;
  } else {
#pragma unroll
    for (int j = 0; j < V; ++j)
      if (base + j < n) out[base + j] = r.v[j];
  }
}

// cast: operands of any dtype (dtypes[0] the output's), else the functor's own types. One kernel serves both, so
// that each functor costs nvcc three kernels (linear, strided with 32- and with 64-bit offsets), not five.
template <class Out, class In, int N, class F, class Index>
__global__ void __launch_bounds__(kThreads)
    strided_kernel(Index n, OffsetCalc<N + 1, Index> oc, char* out, Inputs<In, N> in,
                   std::array<ScalarType, N + 1> dtypes, bool cast, F f) {
  const Index i = static_cast<Index>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  Index off[N + 1];
  oc.get(i, off);
  In a[N];
#pragma unroll
  for (int k = 0; k < N; ++k) {
    if (in.host_mask & (1u << k))
      a[k] = in.value[k];
    else if (cast)
      a[k] = load_as<In>(in.ptr[k] + off[k + 1], dtypes[k + 1]);
    else
      a[k] = *reinterpret_cast<const In*>(in.ptr[k] + off[k + 1]);
  }
  const Out r = apply<Out>(f, a, std::make_index_sequence<N>());
  if (cast)
    store_as(out + off[0], dtypes[0], r);
  else
    *reinterpret_cast<Out*>(out + off[0]) = r;
}

// Reads a 0-d CPU tensor's value as T on the host.
template <class T>
T host_value(const Tensor& t) {
  auto read = [&](auto v) { return convert<T>(*static_cast<const decltype(v)*>(t.data_ptr())); };
  if constexpr (is_complex_v<T>)
    return dispatch_any(t.dtype(), read);
  else
    return dispatch_all(t.dtype(), read);
}

// `it` holds the output and the device inputs in order; host[k], when set, is input k's 0-d CPU tensor (which
// then has no operand in `it`).
template <class Out, class In, int N, class F>
void gpu_kernel(const StridedIter& it, F f, const std::array<const Tensor*, N>& host = {}) {
  if (it.numel == 0) return;
  constexpr int kVec = static_cast<int>(16 / std::max(sizeof(In), sizeof(Out)));
  // Describe the N inputs in the layout of the kernels: operand slots of `it` pushed past the host inputs.
  Inputs<In, N> in{};
  std::array<ScalarType, N + 1> dtypes{};
  std::array<ScalarType, N + 1> want{};
  StridedIter g;  // it with one operand per input (a host input gets stride 0 and no pointer)
  g.ntensors = N + 1;
  g.ndim = it.ndim;
  g.shape = it.shape;
  g.numel = it.numel;
  g.data[0] = it.data[0];
  g.strides[0] = it.strides[0];
  g.dtypes[0] = dtypes[0] = it.dtypes[0];
  want[0] = scalar_type_of<Out>;
  for (int k = 0, src = 1; k < N; ++k) {
    want[k + 1] = scalar_type_of<In>;
    if (host[k]) {
      in.host_mask |= 1u << k;
      in.value[k] = host_value<In>(*host[k]);
      g.strides[k + 1] = DimVector(it.ndim, 0);
      g.dtypes[k + 1] = dtypes[k + 1] = scalar_type_of<In>;
      continue;
    }
    g.data[k + 1] = it.data[src];
    g.strides[k + 1] = it.strides[src];
    g.dtypes[k + 1] = dtypes[k + 1] = it.dtypes[src];
    in.ptr[k] = it.data[src];
    ++src;
  }
  const LaunchPlan plan = plan_launch(g, want.data(), kVec);
  const int device = current_device();
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  if (plan.kind == LaunchPlan::Linear) {
    for (int k = 0; k < N; ++k)
      if (!(in.host_mask & (1u << k)) && (g.ndim == 0 || g.strides[k + 1][0] == 0)) in.bcast_mask |= 1u << k;
    Out* out = reinterpret_cast<Out*>(it.data[0]);
    const int64_t blocks = (it.numel + int64_t(kThreads) * kVec - 1) / (int64_t(kThreads) * kVec);
    linear_kernel<kVec, Out, In, N>
        <<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(it.numel, out, in, plan.vec > 1, f);
  } else {
    EMBER_CHECK(g.ndim <= kMaxDims, "CUDA elementwise kernels support at most ", kMaxDims,
                " non-mergeable dimensions, got ", g.ndim);
    const unsigned blocks = static_cast<unsigned>((it.numel + kThreads - 1) / kThreads);
    auto launch = [&](auto index) {
      using Index = decltype(index);
      OffsetCalc<N + 1, Index> oc{};
      oc.ndim = g.ndim;
      for (int d = 0; d < g.ndim; ++d) {
        oc.sizes[d] = static_cast<Index>(g.shape[d]);
        for (int k = 0; k <= N; ++k) oc.strides[d][k] = static_cast<Index>(g.strides[k][d]);
      }
      const Index n = static_cast<Index>(it.numel);
      strided_kernel<Out, In, N>
          <<<blocks, kThreads, 0, stream>>>(n, oc, it.data[0], in, dtypes, plan.kind == LaunchPlan::Cast, f);
    };
    if (plan.index32)
      launch(uint32_t());
    else
      launch(int64_t());
  }
  after_launch(device);
}

// ---- the untyped form: f(char* const* p) with p[k] the address of operand k's element.

template <int N, class Index, class F>
__global__ void __launch_bounds__(kThreads)
    untyped_kernel(Index n, OffsetCalc<N, Index> oc, std::array<char*, N> data, F f) {
  const Index i = static_cast<Index>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  Index off[N];
  oc.get(i, off);
  char* p[N];
#pragma unroll
  for (int k = 0; k < N; ++k) p[k] = data[k] + off[k];
  f(p);
}

template <int N, class F>
void launch_elementwise(const StridedIter& it, F f) {
  if (it.numel == 0) return;
  EMBER_CHECK(it.ndim <= kMaxDims, "CUDA elementwise kernels support at most ", kMaxDims,
              " non-mergeable dimensions, got ", it.ndim);
  std::array<ScalarType, N> want{};
  for (int k = 0; k < N; ++k) want[k] = it.dtypes[k];
  const LaunchPlan plan = plan_launch(it, want.data(), 1);
  const int device = current_device();
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  const unsigned blocks = static_cast<unsigned>((it.numel + kThreads - 1) / kThreads);
  auto launch = [&](auto index) {
    using Index = decltype(index);
    OffsetCalc<N, Index> oc{};
    oc.ndim = it.ndim;
    for (int d = 0; d < it.ndim; ++d) {
      oc.sizes[d] = static_cast<Index>(it.shape[d]);
      for (int k = 0; k < N; ++k) oc.strides[d][k] = static_cast<Index>(it.strides[k][d]);
    }
    std::array<char*, N> data;
    for (int k = 0; k < N; ++k) data[k] = it.data[k];
    untyped_kernel<N, Index><<<blocks, kThreads, 0, stream>>>(static_cast<Index>(it.numel), oc, data, f);
  };
  if (plan.index32)
    launch(uint32_t());
  else
    launch(int64_t());
  after_launch(device);
}

}  // namespace ember::cuda
