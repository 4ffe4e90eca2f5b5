// CUDA reductions (Note [CUDA reductions] in reduce.cuh): the `reduce` and `reduce_with_index` kernels. Semantics
// are the CPU's (ember/backend/cpu/reduce.cpp): accumulators float for 16-bit floats, int64 for integer sums and
// products; Max/Min let NaN stick; an empty reduction gives the op's init (0 for sum, max, min; 1 for prod, all).
#include <cfloat>
#include <climits>
#include <cmath>
#include <type_traits>

#include <limits>

#include "ember/backend/cuda/reduce.cuh"
#include "ember/backend/kernels/reduce.h"
#include "ember/detail/convert.h"
#include "ember/ops.h"

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

// Writes v converted to dtype dt at p.
template <class A>
__device__ void store_as(ScalarType dt, char* p, A v) {
  switch (dt) {
#define EMBER_STORE_CASE(T, N, _) \
  case ScalarType::N: *reinterpret_cast<T*>(p) = convert<T>(v); return;
    EMBER_FORALL_DTYPES(EMBER_STORE_CASE)
    default:
      if constexpr (is_complex_v<A>) {
        switch (dt) {
          EMBER_FORALL_COMPLEX_DTYPES(EMBER_STORE_CASE)
          case ScalarType::ComplexHalf: *reinterpret_cast<Complex<Half>*>(p) = convert<Complex<Half>>(v); return;
          default: break;
        }
      }
#undef EMBER_STORE_CASE
  }
}

template <class A>
__device__ A lowest() {
  if constexpr (std::is_floating_point_v<A>)
    return -INFINITY;
  else if constexpr (std::is_same_v<A, bool>)
    return false;
  else
    return std::numeric_limits<A>::lowest();
}
template <class A>
__device__ A highest() {
  if constexpr (std::is_floating_point_v<A>)
    return INFINITY;
  else if constexpr (std::is_same_v<A, bool>)
    return true;
  else
    return std::numeric_limits<A>::max();
}

// The policy of an op over accumulator A: identity (what an idle lane contributes), step (one element), merge
// (two partials, in any grouping), init (the result of an empty reduction) and store.
template <class A, ReduceOp Op>
struct Policy {
  using Acc = A;
  __device__ static A identity() {
    if constexpr (Op == ReduceOp::Prod || Op == ReduceOp::All)
      return A(1);
    else if constexpr (Op == ReduceOp::Max)
      return lowest<A>();
    else if constexpr (Op == ReduceOp::Min)
      return highest<A>();
    else
      return A(0);
  }
  __device__ static A init() {
    if constexpr (Op == ReduceOp::Prod || Op == ReduceOp::All)
      return A(1);
    else
      return A(0);
  }
  template <class T>
  __device__ static A step(A acc, T v, int64_t) {
    const AccOf<T> x = static_cast<AccOf<T>>(v);
    if constexpr (Op == ReduceOp::Sum)
      return acc + static_cast<A>(x);
    else if constexpr (Op == ReduceOp::NanSum)
      return x != x ? acc : acc + static_cast<A>(x);
    else if constexpr (Op == ReduceOp::Prod)
      return acc * static_cast<A>(x);
    else if constexpr (Op == ReduceOp::All)
      return acc && x != AccOf<T>(0);
    else if constexpr (Op == ReduceOp::Any)
      return acc || x != AccOf<T>(0);
    else if constexpr (Op == ReduceOp::CountNonzero)
      return acc + (x != AccOf<T>(0));
    else
      return merge(acc, static_cast<A>(x));
  }
  __device__ static A merge(A a, A b) {
    if constexpr (Op == ReduceOp::Sum || Op == ReduceOp::NanSum || Op == ReduceOp::CountNonzero)
      return a + b;
    else if constexpr (Op == ReduceOp::Prod)
      return a * b;
    else if constexpr (Op == ReduceOp::Max)
      return (a != a || b <= a) ? a : b;  // NaN sticks
    else if constexpr (Op == ReduceOp::Min)
      return (a != a || b >= a) ? a : b;
    else if constexpr (Op == ReduceOp::All)
      return a && b;
    else
      return a || b;
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

// All, Any and CountNonzero only ask whether an element is nonzero: read it as an unsigned integer of its width,
// with the sign bit masked off for floats (nonzero_mask: -0.0 counts as zero; NaN does not).
template <class U>
struct LoadNonzero {
  const U* in;
  U mask;
  template <class Index>
  __device__ __forceinline__ bool operator()(Index off, Index, Index) const {
    return (in[off] & mask) != 0;
  }
};

template <class P, class Load>
void run(const ReduceGeometry& g, Load load, const Outputs& o, int device) {
  auto go = [&](auto index) {
    using Index = decltype(index);
    if (g.n_out == 0) return;
    if (g.n_red == 0) {
      auto stream = static_cast<cudaStream_t>(current_stream(device).handle);
      const int64_t blocks = std::min<int64_t>((g.n_out + 255) / 256, 1 << 16);
      reduce_init_kernel<P, Index><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(g, StoreOut<P>{o});
      after_launch(device);
      return;
    }
    launch_reduction<P, Index>(g, load, StoreOut<P>{o}, device);
  };
  if (g.fits32)
    go(int32_t());
  else
    go(int64_t());
}

template <class T>
LoadIn<T> load_in(const Tensor& t) {
  return {static_cast<const T*>(t.data_ptr())};
}

template <ReduceOp Op>
void run_nonzero(const ReduceGeometry& g, const Tensor& in, const Outputs& o, int device) {
  const bool fp = is_floating(in.dtype());
  auto go = [&](auto u) {
    using U = decltype(u);
    const U mask = nonzero_mask<U>(fp);
    run<Policy<std::conditional_t<Op == ReduceOp::CountNonzero, int64_t, bool>, Op>>(
        g, LoadNonzero<U>{static_cast<const U*>(in.data_ptr()), mask}, o, device);
  };
  switch (in.element_size()) {
    case 1: return go(uint8_t());
    case 2: return go(uint16_t());
    case 4: return go(uint32_t());
    default: return go(uint64_t());
  }
}

void reduce(ReduceOp op, const Tensor& out, const Tensor& in) {
  const bool sum_like = op == ReduceOp::Sum || op == ReduceOp::NanSum || op == ReduceOp::Prod;
  // Integer sums and products accumulate in int64: read narrower integers through an int64 copy (the op already
  // passes int64 unless a narrower dtype was asked for), so that only int64 is instantiated.
  if (sum_like && is_integral(in.dtype(), true) && in.dtype() != ScalarType::Int64)
    return reduce(op == ReduceOp::NanSum ? ReduceOp::Sum : op, out, to(in, ScalarType::Int64));
  std::vector<ReduceDim> dims;
  for (int64_t d = 0; d < in.dim(); ++d) {
    const bool red = out.sizes()[d] == 1 && in.sizes()[d] != 1;
    dims.push_back({in.sizes()[d], in.strides()[d], red ? 0 : out.strides()[d], 0, red});
  }
  const ReduceGeometry g = make_reduce_geometry(std::move(dims));
  const Outputs o{static_cast<char*>(out.data_ptr()), nullptr, out.dtype(), static_cast<int64_t>(out.element_size())};
  const int device = in.device().index;
  DeviceGuard guard(device);
  switch (op) {
    case ReduceOp::All: return run_nonzero<ReduceOp::All>(g, in, o, device);
    case ReduceOp::Any: return run_nonzero<ReduceOp::Any>(g, in, o, device);
    case ReduceOp::CountNonzero: return run_nonzero<ReduceOp::CountNonzero>(g, in, o, device);
    default: break;
  }
  if (is_complex(in.dtype())) {  // sums and products (mean is a sum; the op layer sends nothing else)
    dispatch_complex(in.dtype(), [&](auto v) {
      using C = decltype(v);
      if (op == ReduceOp::Sum) return run<Policy<C, ReduceOp::Sum>>(g, load_in<C>(in), o, device);
      if (op == ReduceOp::Prod) return run<Policy<C, ReduceOp::Prod>>(g, load_in<C>(in), o, device);
      fail<NotImplementedError>("\"", reduce_op_name(op), "_cuda\" not implemented for '", type_label(in.dtype()), "'");
    });
    return;
  }
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    using A = AccOf<T>;
    if constexpr (std::is_floating_point_v<A> || std::is_same_v<T, int64_t>) {
      switch (op) {
        case ReduceOp::Sum: return run<Policy<A, ReduceOp::Sum>>(g, load_in<T>(in), o, device);
        case ReduceOp::NanSum:  // integers have no NaN: a plain sum
          if constexpr (std::is_integral_v<T>)
            return run<Policy<A, ReduceOp::Sum>>(g, load_in<T>(in), o, device);
          else
            return run<Policy<A, ReduceOp::NanSum>>(g, load_in<T>(in), o, device);
        case ReduceOp::Prod: return run<Policy<A, ReduceOp::Prod>>(g, load_in<T>(in), o, device);
        default: break;
      }
    }
    if (op == ReduceOp::Max) return run<Policy<A, ReduceOp::Max>>(g, load_in<T>(in), o, device);
    if (op == ReduceOp::Min) return run<Policy<A, ReduceOp::Min>>(g, load_in<T>(in), o, device);
    fail<Error>("reduce: unexpected op for dtype ", in.dtype());
  });
}

void reduce_with_index(ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  EMBER_CHECK(op == ReduceOp::Max || op == ReduceOp::Min, "reduce_with_index: expected Max or Min");
  std::vector<ReduceDim> dims;
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (d == dim)
      dims.push_back({in.sizes()[d], in.strides()[d], 0, 0, true});
    else
      dims.push_back({in.sizes()[d], in.strides()[d], values.strides()[d], indices.strides()[d], false});
  }
  ReduceGeometry g = make_reduce_geometry(std::move(dims));
  // The index is the position along `dim`: its dim must not merge with others (it cannot: the only reduced dim).
  const Outputs o{static_cast<char*>(values.data_ptr()), static_cast<char*>(indices.data_ptr()), values.dtype(),
                  static_cast<int64_t>(values.element_size())};
  const int device = in.device().index;
  DeviceGuard guard(device);
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    using A = AccOf<T>;
    if (op == ReduceOp::Max)
      run<IndexPolicy<A, true>>(g, load_in<T>(in), o, device);
    else
      run<IndexPolicy<A, false>>(g, load_in<T>(in), o, device);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(reduce, CUDA, reduce)
EMBER_REGISTER_KERNEL(reduce_with_index, CUDA, reduce_with_index)

}  // namespace ember::cuda
