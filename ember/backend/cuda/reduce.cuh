// The CUDA reduction framework's host-side plans (plain C++, unit-tested without a GPU in tests/test_cuda_plans.cpp)
// and, for nvcc only, the block/warp reduction helpers that the fused kernels (softmax, norm, loss) share.
//
// Note [CUDA reductions]
// The input's dims (size-1 dims dropped) are sorted by input stride and merged where contiguous, then split into
// kept dims (the outputs') and reduced dims, as the CPU does (Note [Reductions]). Each output is reduced by a group
// of L "lanes" (a power of two): if the innermost input dim is reduced ("inner"), the lanes are threadIdx.x and walk
// consecutive reduced elements (coalesced), threadIdx.y picks the output; otherwise the outputs are threadIdx.x
// (consecutive outputs read consecutive memory) and the lanes threadIdx.y each walk a strided share of the reduced
// elements. The lanes' partials are combined by a tree in shared memory. When there are too few outputs to fill the
// GPU, or too many elements per thread for float accuracy (naive float sums lose O(n) ulps), the reduced range is
// cut into `splits` chunks (grid.y); each chunk's result goes to a workspace and a second kernel combines them in a
// fixed order, with a tree. No float atomics: results are identical run to run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember::cuda {

constexpr int kReduceMaxDims = 12;

// One input dim of a reduction; strides in elements. out2 is a second output's stride (reduce_with_index's indices).
struct ReduceDim {
  int64_t size, in, out, out2;
  bool reduced;
};

struct ReduceGeometry {
  int nk = 0, nr = 0;  // kept and reduced dims, inner-first
  int64_t ksize[kReduceMaxDims], kin[kReduceMaxDims], kout[kReduceMaxDims], kout2[kReduceMaxDims];
  int64_t rsize[kReduceMaxDims], rin[kReduceMaxDims];
  int64_t n_out = 1, n_red = 1;
  bool inner = false;  // the innermost input dim is reduced, or nothing is kept
  bool fits32 = true;  // every element index and offset fits in int32
};

// dims in any order (size-1 dims are dropped). Throws if more than kReduceMaxDims kept or reduced dims remain
// after merging.
inline ReduceGeometry make_reduce_geometry(std::vector<ReduceDim> dims) {
  std::erase_if(dims, [](const ReduceDim& d) { return d.size == 1; });
  const bool empty = std::ranges::any_of(dims, [](const ReduceDim& d) { return d.size == 0; });
  std::stable_sort(dims.begin(), dims.end(), [](const ReduceDim& a, const ReduceDim& b) { return a.in < b.in; });
  ReduceGeometry g;
  g.inner = !dims.empty() && dims[0].reduced;
  std::vector<ReduceDim> kept, red;
  for (const ReduceDim& d : dims) {
    auto& list = d.reduced ? red : kept;
    if (!list.empty() && !empty) {
      ReduceDim& p = list.back();
      if (d.in == p.size * p.in && d.out == p.size * p.out && d.out2 == p.size * p.out2) {
        p.size *= d.size;
        continue;
      }
    }
    list.push_back(d);
  }
  EMBER_CHECK(kept.size() <= kReduceMaxDims && red.size() <= kReduceMaxDims, "CUDA reductions support at most ",
              kReduceMaxDims, " kept and ", kReduceMaxDims, " reduced dims after merging, got ", kept.size(), " and ",
              red.size());
  if (kept.empty()) g.inner = true;
  constexpr int64_t kLim = (int64_t(1) << 31) - (int64_t(1) << 20);  // room for index + stride steps
  int64_t max_in = 0, max_out = 0;
  for (const ReduceDim& d : kept) {
    g.ksize[g.nk] = d.size, g.kin[g.nk] = d.in, g.kout[g.nk] = d.out, g.kout2[g.nk] = d.out2, ++g.nk;
    g.n_out *= d.size;
    max_in += (d.size - 1) * d.in;
    max_out += (d.size - 1) * std::max(d.out, d.out2);
    if (d.in < 0 || d.out < 0 || d.out2 < 0) g.fits32 = false;
  }
  for (const ReduceDim& d : red) {
    g.rsize[g.nr] = d.size, g.rin[g.nr] = d.in, ++g.nr;
    g.n_red *= d.size;
    max_in += (d.size - 1) * d.in;
    if (d.in < 0) g.fits32 = false;
  }
  if (max_in >= kLim || max_out >= kLim || g.n_out >= kLim || g.n_red >= kLim) g.fits32 = false;
  return g;
}

// How a reduction is launched (Note [CUDA reductions]).
struct ReducePlan {
  int bx = 1, by = 1;  // block shape; bx * by == kReduceThreads
  int lanes = 1;       // threads per output: bx when inner, by otherwise
  int64_t grid_x = 0;  // blocks over the outputs
  int64_t splits = 1;  // chunks of the reduced range (grid.y); > 1 means a second, combining kernel
  int64_t chunk = 0;   // reduced elements per split
};

constexpr int kReduceThreads = 256;
constexpr int64_t kReduceMaxGridY = 65535;

inline int64_t next_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// max_per_thread: the most elements one thread accumulates serially (bounds float error); target_blocks: enough
// blocks to fill the device (a few per SM).
inline ReducePlan plan_reduce(int64_t n_out, int64_t n_red, bool inner, int64_t target_blocks,
                              int64_t max_per_thread = 128) {
  ReducePlan p;
  const int64_t T = kReduceThreads;
  if (inner) {
    p.bx = static_cast<int>(std::clamp<int64_t>(next_pow2(n_red), 1, T));
    p.by = static_cast<int>(T / p.bx);
    p.lanes = p.bx;
  } else {
    p.bx = static_cast<int>(std::clamp<int64_t>(next_pow2(n_out), 1, T));
    p.by = static_cast<int>(T / p.bx);
    p.lanes = p.by;
  }
  const int64_t per_block = inner ? p.by : p.bx;
  p.grid_x = n_out == 0 ? 0 : (n_out + per_block - 1) / per_block;
  int64_t splits = 1;
  if (n_red > 0) {
    if (p.grid_x < target_blocks) {  // too few outputs: split the reduced range too, but not below 16 per lane
      const int64_t want = (target_blocks + p.grid_x - 1) / std::max<int64_t>(p.grid_x, 1);
      splits = std::min(want, (n_red + 16 * p.lanes - 1) / (16 * p.lanes));
    }
    splits = std::max(splits, (n_red + p.lanes * max_per_thread - 1) / (p.lanes * max_per_thread));
    splits = std::clamp<int64_t>(splits, 1, kReduceMaxGridY);
  }
  p.chunk = n_red == 0 ? 0 : (n_red + splits - 1) / splits;
  p.splits = n_red == 0 ? 1 : (n_red + p.chunk - 1) / p.chunk;
  return p;
}

// All, Any and CountNonzero read an element as an unsigned integer U of its width: the bits that decide whether it is
// nonzero are all of them, but the sign bit for floats (-0.0 is zero). Cast before shifting: for a 16-bit U, ~U(0)
// is the int -1, and -1 >> 1 is still -1 (the sign bit of float16/bfloat16 would count).
template <class U>
constexpr U nonzero_mask(bool floating) {
  return floating ? static_cast<U>(static_cast<U>(~U(0)) >> 1) : static_cast<U>(~U(0));
}

// ---- multi-tensor kernels (the optimizers): the tensors' elements are cut into chunks of at most `chunk` elements,
// one block each, and the chunks packed into launches of at most max_tensors tensors and max_chunks chunks (the
// launch's table travels by value as a kernel argument). A tensor whose chunks do not all fit continues in the next
// launch. Usually one launch covers a whole parameter group.
struct ChunkLaunch {
  std::vector<int32_t> tensors;                     // caller's indices of the tensors this launch touches
  std::vector<std::pair<int32_t, int64_t>> chunks;  // (position in `tensors`, chunk number)
};
inline std::vector<ChunkLaunch> plan_chunk_launches(const std::vector<int64_t>& numels, int64_t chunk, int max_tensors,
                                                    int max_chunks) {
  EMBER_CHECK(chunk > 0 && max_tensors > 0 && max_chunks > 0, "plan_chunk_launches: bad limits");
  std::vector<ChunkLaunch> out;
  for (size_t t = 0; t < numels.size(); ++t) {
    const int64_t n = (numels[t] + chunk - 1) / chunk;
    for (int64_t k = 0; k < n; ++k) {
      if (out.empty() || static_cast<int>(out.back().chunks.size()) == max_chunks ||
          (out.back().tensors.back() != static_cast<int32_t>(t) &&
           static_cast<int>(out.back().tensors.size()) == max_tensors))
        out.emplace_back();
      ChunkLaunch& l = out.back();
      if (l.tensors.empty() || l.tensors.back() != static_cast<int32_t>(t))
        l.tensors.push_back(static_cast<int32_t>(t));
      l.chunks.emplace_back(static_cast<int32_t>(l.tensors.size() - 1), k);
    }
  }
  return out;
}

}  // namespace ember::cuda

#if defined(__CUDACC__)
#include <cuda_runtime.h>

#include <climits>
#include <type_traits>

#include "ember/backend/cuda/check.h"
#include "ember/backend/kernels/reduce.h"
#include "ember/cuda.h"

namespace ember::cuda {

// The number of SMs of `device` (cached).
int sm_count(int device);
// A scratch buffer of `bytes` bytes on `device`, from its caching allocator (released, stream-ordered, with the
// tensor).
Tensor device_workspace(int64_t bytes, int device);

// The accumulation type of the CPU kernels (cpu::Acc): float for 16-bit floats, else T itself.
template <class T>
using AccOf = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

// ---- the generic reduction kernel (Note [CUDA reductions]).
// P (the op): Acc, identity(), step(acc, value, reduced_index), merge(a, b).
// Load: value = load(input_offset_in_elements, output_index, reduced_index) (reads the input(s)).
// Store: store(geometry, output_index, acc) (writes the output(s)).

template <class Index>
__device__ __forceinline__ Index kept_offset(const ReduceGeometry& g, Index o, const int64_t* strides) {
  Index off = 0;
  for (int d = 0; d < g.nk; ++d) {
    const Index s = static_cast<Index>(g.ksize[d]);
    off += (o % s) * static_cast<Index>(strides[d]);
    o /= s;
  }
  return off;
}

template <class Index>
__device__ __forceinline__ Index red_offset(const ReduceGeometry& g, Index r) {
  if (g.nr == 1) return r * static_cast<Index>(g.rin[0]);
  Index off = 0;
  for (int d = 0; d < g.nr; ++d) {
    const Index s = static_cast<Index>(g.rsize[d]);
    off += (r % s) * static_cast<Index>(g.rin[d]);
    r /= s;
  }
  return off;
}

// Partial reduction of chunk blockIdx.y for the outputs of block blockIdx.x. With one split, stores the outputs;
// otherwise the partials go to ws[split * n_out + output].
template <class P, class Index, class Load, class Store>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_kernel(ReduceGeometry g, ReducePlan pl, Load load, Store store, typename P::Acc* ws) {
  using Acc = typename P::Acc;
  __shared__ __align__(16) unsigned char raw[kReduceThreads * sizeof(Acc)];
  Acc* sm = reinterpret_cast<Acc*>(raw);
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int lane = g.inner ? tx : ty;
  const int64_t out_i = blockIdx.x * static_cast<int64_t>(g.inner ? pl.by : pl.bx) + (g.inner ? ty : tx);
  Acc acc = P::identity();
  if (out_i < g.n_out) {
    const Index o = static_cast<Index>(out_i);
    const Index base = kept_offset<Index>(g, o, g.kin);
    const Index r0 = static_cast<Index>(blockIdx.y * pl.chunk);
    const Index r1 = static_cast<Index>(std::min<int64_t>(g.n_red, (blockIdx.y + int64_t(1)) * pl.chunk));
    for (Index r = r0 + lane; r < r1; r += pl.lanes) acc = P::step(acc, load(base + red_offset<Index>(g, r), o, r), r);
  }
  const int me = ty * pl.bx + tx;
  sm[me] = acc;
  __syncthreads();
  const int stride = g.inner ? 1 : pl.bx;  // between neighbouring lanes in sm
  for (int s = pl.lanes / 2; s > 0; s >>= 1) {
    if (lane < s) sm[me] = P::merge(sm[me], sm[me + s * stride]);
    __syncthreads();
  }
  if (lane == 0 && out_i < g.n_out) {
    if (pl.splits == 1)
      store(g, static_cast<Index>(out_i), sm[me]);
    else
      ws[blockIdx.y * g.n_out + out_i] = sm[me];
  }
}

// Combines the splits' partials: a warp per output (threadIdx.y), lanes over the splits, then a tree.
constexpr int kReduceFinalRows = 8;
template <class P, class Index, class Store>
__global__ void __launch_bounds__(32 * kReduceFinalRows)
    reduce_final_kernel(ReduceGeometry g, int64_t splits, const typename P::Acc* __restrict__ ws, Store store) {
  using Acc = typename P::Acc;
  __shared__ __align__(16) unsigned char raw[32 * kReduceFinalRows * sizeof(Acc)];
  Acc* sm = reinterpret_cast<Acc*>(raw);
  const int tx = threadIdx.x, ty = threadIdx.y, me = ty * 32 + tx;
  const int64_t out_i = blockIdx.x * static_cast<int64_t>(kReduceFinalRows) + ty;
  Acc acc = P::identity();
  if (out_i < g.n_out)
    for (int64_t s = tx; s < splits; s += 32) acc = P::merge(acc, ws[s * g.n_out + out_i]);
  sm[me] = acc;
  __syncthreads();
  for (int s = 16; s > 0; s >>= 1) {
    if (tx < s) sm[me] = P::merge(sm[me], sm[me + s]);
    __syncthreads();
  }
  if (tx == 0 && out_i < g.n_out) store(g, static_cast<Index>(out_i), sm[me]);
}

// Runs the reduction on the current stream of `device` (the caller holds a DeviceGuard). g.n_red must be > 0.
template <class P, class Index, class Load, class Store>
void launch_reduction(const ReduceGeometry& g, Load load, Store store, int device, int64_t max_per_thread = 128) {
  using Acc = typename P::Acc;
  if (g.n_out == 0) return;
  EMBER_CHECK(g.n_red > 0, "launch_reduction: empty reductions are the caller's");
  auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
  const ReducePlan pl = plan_reduce(g.n_out, g.n_red, g.inner, 4 * int64_t(sm_count(device)), max_per_thread);
  EMBER_CHECK(pl.grid_x <= INT_MAX, "reduction: too many outputs for one CUDA launch (", g.n_out, ")");
  const dim3 block(pl.bx, pl.by), grid(static_cast<unsigned>(pl.grid_x), static_cast<unsigned>(pl.splits));
  if (pl.splits == 1) {
    reduce_kernel<P, Index><<<grid, block, 0, stream>>>(g, pl, load, store, nullptr);
    after_launch(device);
    return;
  }
  // The workspace comes from the caching allocator, freed back to it (stream-ordered) when ws goes out of scope.
  Tensor ws = device_workspace(pl.splits * g.n_out * static_cast<int64_t>(sizeof(Acc)), device);
  Acc* wp = static_cast<Acc*>(ws.data_ptr());
  reduce_kernel<P, Index><<<grid, block, 0, stream>>>(g, pl, load, store, wp);
  after_launch(device);
  const int64_t blocks = (g.n_out + kReduceFinalRows - 1) / kReduceFinalRows;
  EMBER_CHECK(blocks <= INT_MAX, "reduction: too many outputs for one CUDA launch (", g.n_out, ")");
  reduce_final_kernel<P, Index>
      <<<static_cast<unsigned>(blocks), dim3(32, kReduceFinalRows), 0, stream>>>(g, pl.splits, wp, store);
  after_launch(device);
}

// Two sums at once (channel moments, layer norm's weight and bias gradients).
template <class A>
struct Pair {
  A a, b;
};
template <class A>
struct PairSum {
  using Acc = Pair<A>;
  __device__ static Acc identity() { return {A(0), A(0)}; }
  template <class V>
  __device__ static Acc step(Acc acc, V v, int64_t) {
    return {acc.a + static_cast<A>(v.a), acc.b + static_cast<A>(v.b)};
  }
  __device__ static Acc merge(Acc x, Acc y) { return {x.a + y.a, x.b + y.b}; }
};

// ---- math on float or double (qualified: inside namespace ember, exp and friends name the tensor ops)
#define EMBER_DEVICE_MATH(name, float_fn, double_fn) \
  template <class T>                                 \
  __device__ __forceinline__ T name(T x) {           \
    if constexpr (std::is_same_v<T, float>)          \
      return ::float_fn(x);                          \
    else                                             \
      return ::double_fn(x);                         \
  }
EMBER_DEVICE_MATH(dexp, expf, exp)
EMBER_DEVICE_MATH(dlog, logf, log)
EMBER_DEVICE_MATH(dlog1p, log1pf, log1p)
EMBER_DEVICE_MATH(dsqrt, sqrtf, sqrt)
EMBER_DEVICE_MATH(dfabs, fabsf, fabs)
#undef EMBER_DEVICE_MATH
template <class T>
__device__ __forceinline__ bool disinf(T x) {
  return x == T(INFINITY) || x == T(-INFINITY);
}
template <class T>
__device__ __forceinline__ bool disfinite(T x) {
  return x - x == T(0);  // false for infinities and NaN
}

// ---- block-wide reductions for the fused kernels: every thread of the block must call them (they synchronize);
// all threads get the result. `scratch` holds at least 32 values. The combination order is fixed.
template <class T, class F>
__device__ __forceinline__ T warp_reduce(T v, F f) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = f(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <class T, class F>
__device__ T block_reduce(T v, F f, T* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
  v = warp_reduce(v, f);
  __syncthreads();  // scratch may still be read from a previous call
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  T r = scratch[0];
  for (int w = 1; w < nwarps; ++w) r = f(r, scratch[w]);
  return r;
}

struct SumOp {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a + b;
  }
};
// max that propagates NaN (either operand NaN gives NaN).
struct NanMaxOp {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return (a != a || a > b) ? a : b;
  }
};

}  // namespace ember::cuda
#endif
