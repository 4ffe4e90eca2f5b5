// CUDA reductions (Note [CUDA reductions] in reduce.cuh): the `reduce` and `reduce_with_index` kernels. Semantics
// are the CPU's (ember/backend/cpu/reduce.cpp): accumulators float for 16-bit floats, int64 for integer sums and
// products; Max/Min let NaN stick; an empty reduction gives the op's init (0 for sum, max, min; 1 for prod, all).
#include <cfloat>
#include <climits>
#include <cmath>
#include <type_traits>

#include <limits>

#include "ember/backend/cuda/reduce.cuh"
#include "ember/convert.h"
#include "ember/ops.h"
#include "ember/ops/reduce.h"

namespace ember::cuda {

int sm_count(int device) {
  static int cache[64] = {};
  if (device < 0 || device >= 64) device = 0;
  if (cache[device] == 0) {
    int n = 0;
    EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
    cache[device] = n > 0 ? n : 1;
  }
  return cache[device];
}

Tensor device_workspace(int64_t bytes, int device) {
  const int64_t size[1] = {std::max<int64_t>(bytes, 1)};
  return empty(IntArrayRef(size, 1), TensorOptions(ScalarType::UInt8).device(Device(DeviceType::CUDA, device)));
}

namespace {

template <class T>
using AccOf = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

// Writes v converted to dtype dt at p.
template <class A>
__device__ void store_as(ScalarType dt, char* p, A v) {
  switch (dt) {
#define EMBER_STORE_CASE(T, N, _) \
  case ScalarType::N:             \
    *reinterpret_cast<T*>(p) = convert<T>(v); \
    return;
    EMBER_FORALL_DTYPES(EMBER_STORE_CASE)
#undef EMBER_STORE_CASE
  }
}

template <class A>
__device__ A lowest() {
  if constexpr (std::is_floating_point_v<A>) return -INFINITY;
  else if constexpr (std::is_same_v<A, bool>) return false;
  else return std::numeric_limits<A>::lowest();
}
template <class A>
__device__ A highest() {
  if constexpr (std::is_floating_point_v<A>) return INFINITY;
  else if constexpr (std::is_same_v<A, bool>) return true;
  else return std::numeric_limits<A>::max();
}

// The policy of an op over accumulator A: identity (what an idle lane contributes), step (one element), merge
// (two partials, in any grouping), init (the result of an empty reduction) and store.
template <class A, ReduceOp Op>
struct Policy {
  using Acc = A;
  __device__ static A identity() {
    if constexpr (Op == ReduceOp::Prod || Op == ReduceOp::All) return A(1);
    else if constexpr (Op == ReduceOp::Max) return lowest<A>();
    else if constexpr (Op == ReduceOp::Min) return highest<A>();
    else return A(0);
  }
  __device__ static A init() {
    if constexpr (Op == ReduceOp::Prod || Op == ReduceOp::All) return A(1);
    else return A(0);
  }
  template <class T>
  __device__ static A step(A acc, T v, int64_t) {
    const AccOf<T> x = static_cast<AccOf<T>>(v);
    if constexpr (Op == ReduceOp::Sum) return acc + static_cast<A>(x);
    else if constexpr (Op == ReduceOp::NanSum) return x != x ? acc : acc + static_cast<A>(x);
    else if constexpr (Op == ReduceOp::Prod) return acc * static_cast<A>(x);
    else if constexpr (Op == ReduceOp::All) return acc && x != AccOf<T>(0);
    else if constexpr (Op == ReduceOp::Any) return acc || x != AccOf<T>(0);
    else if constexpr (Op == ReduceOp::CountNonzero) return acc + (x != AccOf<T>(0));
    else return merge(acc, static_cast<A>(x));
  }
  __device__ static A merge(A a, A b) {
    if constexpr (Op == ReduceOp::Sum || Op == ReduceOp::NanSum || Op == ReduceOp::CountNonzero) return a + b;
    else if constexpr (Op == ReduceOp::Prod) return a * b;
    else if constexpr (Op == ReduceOp::Max) return (a != a || b <= a) ? a : b;  // NaN sticks
    else if constexpr (Op == ReduceOp::Min) return (a != a || b >= a) ? a : b;
    else if constexpr (Op == ReduceOp::All) return a && b;
    else return a || b;
  }
  __device__ static void store(A v, ScalarType dt, char* out, char*) { store_as(dt, out, v); }
};

// Max/Min with the index of the first occurrence; a NaN wins (the first NaN). Lanes see interleaved elements, so
// merge compares indices rather than relying on order.
template <class A>
struct ValIdx {
  A v;
  int64_t i;
};
constexpr int64_t kNoIndex = LLONG_MAX;

template <class A, bool IsMax>
struct IndexPolicy {
  using Acc = ValIdx<A>;
  __device__ static Acc identity() { return {A(0), kNoIndex}; }
  __device__ static Acc init() { return identity(); }
  template <class T>
  __device__ static Acc step(Acc acc, T v, int64_t r) {
    return merge(acc, Acc{static_cast<A>(v), r});
  }
  __device__ static Acc merge(Acc a, Acc b) {
    if (a.i == kNoIndex) return b;
    if (b.i == kNoIndex) return a;
    const bool an = a.v != a.v, bn = b.v != b.v;
    if (an || bn) return (an && bn) ? (a.i < b.i ? a : b) : (an ? a : b);
    if (a.v == b.v) return a.i < b.i ? a : b;
    return (IsMax ? a.v > b.v : a.v < b.v) ? a : b;
  }
  __device__ static void store(Acc v, ScalarType dt, char* out, char* out2) {
    store_as(dt, out, v.v);
    *reinterpret_cast<int64_t*>(out2) = v.i;
  }
};

struct Outputs {
  char* out;
  char* out2;  // reduce_with_index's indices (int64), else null
  ScalarType dt;
  int64_t esize;
};

template <class T>
struct LoadIn {
  const T* in;
  template <class Index>
  __device__ __forceinline__ T operator()(Index off, Index, Index) const {
    return in[off];
  }
};

template <class P>
struct StoreOut {
  Outputs o;
  template <class Index>
  __device__ __forceinline__ void operator()(const ReduceGeometry& g, Index i, typename P::Acc v) const {
    char* p2 = o.out2 ? o.out2 + static_cast<int64_t>(kept_offset<Index>(g, i, g.kout2)) * 8 : nullptr;
    P::store(v, o.dt, o.out + static_cast<int64_t>(kept_offset<Index>(g, i, g.kout)) * o.esize, p2);
  }
};

// Empty reductions: every output is the op's init.
template <class P, class Index>
__global__ void reduce_init_kernel(ReduceGeometry g, StoreOut<P> store) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < g.n_out;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    store(g, static_cast<Index>(i), P::init());
}

template <class T, class P, class Index>
void run_typed(const ReduceGeometry& g, const T* in, const Outputs& o, int device) {
  if (g.n_out == 0) return;
  if (g.n_red == 0) {
    auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
    const int64_t blocks = std::min<int64_t>((g.n_out + 255) / 256, 1 << 16);
    reduce_init_kernel<P, Index><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(g, StoreOut<P>{o});
    after_launch(device);
    return;
  }
  launch_reduction<P, Index>(g, LoadIn<T>{in}, StoreOut<P>{o}, device);
}

template <class T, class P>
void run(const ReduceGeometry& g, const Tensor& in, const Outputs& o) {
  const int device = in.device().index;
  const T* p = static_cast<const T*>(in.data_ptr());
  if (g.fits32) run_typed<T, P, int32_t>(g, p, o, device);
  else run_typed<T, P, int64_t>(g, p, o, device);
}

void reduce(ReduceOp op, const Tensor& out, const Tensor& in) {
  std::vector<ReduceDim> dims;
  for (int64_t d = 0; d < in.dim(); ++d) {
    const bool red = out.sizes()[d] == 1 && in.sizes()[d] != 1;
    dims.push_back({in.sizes()[d], in.strides()[d], red ? 0 : out.strides()[d], 0, red});
  }
  const ReduceGeometry g = make_reduce_geometry(std::move(dims));
  const Outputs o{static_cast<char*>(out.data_ptr()), nullptr, out.dtype(), static_cast<int64_t>(out.element_size())};
  DeviceGuard guard(in.device().index);
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    using A = AccOf<T>;
    constexpr bool kInt = std::is_integral_v<T>;
    using SumAcc = std::conditional_t<kInt, int64_t, A>;
    switch (op) {
      case ReduceOp::Sum: return run<T, Policy<SumAcc, ReduceOp::Sum>>(g, in, o);
      case ReduceOp::NanSum:  // integers have no NaN: a plain sum
        if constexpr (kInt) return run<T, Policy<SumAcc, ReduceOp::Sum>>(g, in, o);
        else return run<T, Policy<SumAcc, ReduceOp::NanSum>>(g, in, o);
      case ReduceOp::Prod: return run<T, Policy<SumAcc, ReduceOp::Prod>>(g, in, o);
      case ReduceOp::Max: return run<T, Policy<A, ReduceOp::Max>>(g, in, o);
      case ReduceOp::Min: return run<T, Policy<A, ReduceOp::Min>>(g, in, o);
      case ReduceOp::All: return run<T, Policy<bool, ReduceOp::All>>(g, in, o);
      case ReduceOp::Any: return run<T, Policy<bool, ReduceOp::Any>>(g, in, o);
      case ReduceOp::CountNonzero: return run<T, Policy<int64_t, ReduceOp::CountNonzero>>(g, in, o);
    }
  });
}

void reduce_with_index(ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  EMBER_CHECK(op == ReduceOp::Max || op == ReduceOp::Min, "reduce_with_index: expected Max or Min");
  std::vector<ReduceDim> dims;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (d == dim) dims.push_back({in.sizes()[d], in.strides()[d], 0, 0, true});
    else dims.push_back({in.sizes()[d], in.strides()[d], values.strides()[d], indices.strides()[d], false});
  }
  ReduceGeometry g = make_reduce_geometry(std::move(dims));
  // The index is the position along `dim`: its dim must not merge with others (it cannot: the only reduced dim).
  const Outputs o{static_cast<char*>(values.data_ptr()), static_cast<char*>(indices.data_ptr()), values.dtype(),
                  static_cast<int64_t>(values.element_size())};
  DeviceGuard guard(in.device().index);
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    using A = AccOf<T>;
    if (op == ReduceOp::Max) run<T, IndexPolicy<A, true>>(g, in, o);
    else run<T, IndexPolicy<A, false>>(g, in, o);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(reduce, CUDA, reduce)
EMBER_REGISTER_KERNEL(reduce_with_index, CUDA, reduce_with_index)

}  // namespace ember::cuda
