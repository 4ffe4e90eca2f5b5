// CUDA kernels of gather and scatter by index (Note [Index kernels] in ember/backend/kernels/index.h), index_offsets,
// nonzero and repeat_index. Out-of-range indices are reported through Note [Deferred device errors] (check.h) and the
// element is skipped (a gather writes zero); the host raises the IndexError at its next wait. Pure data movement copies
// elements as unsigned integers of the element's size, as the CPU kernels do.
#include <cub/device/device_scan.cuh>

#include "ember/backend/cuda/index_plans.h"
#include "ember/backend/cuda/launch.cuh"
#include "ember/backend/cuda/scratch.cuh"
#include "ember/backend/dispatch_size.h"
#include "ember/backend/kernels/copy.h"
#include "ember/backend/kernels/index.h"
#include "ember/backend/math/scatter.h"
#include "ember/detail/convert.h"
#include "ember/determinism.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace ember::cuda {
namespace {

// index_offsets writes this for an element whose index was out of range; the kernels that take offsets skip it.
constexpr int64_t kBadOffset = INT64_MIN;

// The element offset an index selects (checked, wrapped when negative), or kBadOffset after reporting it.
struct Bounds {
  int64_t size, stride, dim;
  bool wrap;
  const char* op;
  DeviceErrorReport* err;

  Bounds() = default;
  Bounds(const IndexDim& d, const char* op_name, int device)
      : size(d.size), stride(d.stride), dim(d.dim), wrap(d.wrap), op(op_name), err(device_error_slot(device)) {}

  __device__ int64_t offset(int64_t k) const {
    if (size < 0) return k;  // already checked offsets (maybe kBadOffset)
    if (k < (wrap ? -size : 0) || k >= size) [[unlikely]] {
      report_index_error(err, op, k, dim, size);
      return kBadOffset;
    }
    return (k < 0 ? k + size : k) * stride;
  }
};

__device__ inline int64_t load_index(const char* p) { return *reinterpret_cast<const int64_t*>(p); }

const char* op_name(const char* op) { return op ? op : "index"; }

template <class T>
struct GatherFn {
  Bounds b;
  __device__ void operator()(char* const* p) const {
    const int64_t off = b.offset(load_index(p[2]));
    *reinterpret_cast<T*>(p[0]) = off == kBadOffset
                                      ? T(0)
                                      : *reinterpret_cast<const T*>(p[1] + off * static_cast<int64_t>(sizeof(T)));
  }
};

void index_gather(const Tensor& out, const Tensor& src, const Tensor& idx, const IndexDim& d, const char* op) {
  const int device = out.device().index;
  DeviceGuard g(device);
  StridedIter it = StridedIter::make({&out, &src, &idx}, out.sizes());
  const Bounds b(d, op_name(op), device);
  dispatch_size(out.element_size(), [&](auto tag) { launch_elementwise<3>(it, GatherFn<decltype(tag)>{b}); });
}

// ---- atomic read-modify-write of one element of any size (CAS on the aligned word that holds it)

template <class T, class F>
__device__ void atomic_update(T* addr, F f) {
  if constexpr (sizeof(T) == 8) {
    auto* a = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long old = *a, assumed;
    do {
      assumed = old;
      old = atomicCAS(a, assumed, bits_as<unsigned long long>(f(bits_as<T>(assumed))));
    } while (assumed != old);
  } else if constexpr (sizeof(T) == 4) {
    auto* a = reinterpret_cast<unsigned int*>(addr);
    unsigned int old = *a, assumed;
    do {
      assumed = old;
      old = atomicCAS(a, assumed, bits_as<unsigned int>(f(bits_as<T>(assumed))));
    } while (assumed != old);
  } else {
    using U = std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t>;
    const auto at = reinterpret_cast<uintptr_t>(addr);
    auto* word = reinterpret_cast<unsigned int*>(at & ~uintptr_t(3));
    const unsigned shift = static_cast<unsigned>(at & 3) * 8;
    const unsigned mask = ((1u << (8 * sizeof(T))) - 1u) << shift;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const T cur = bits_as<T>(static_cast<U>((assumed & mask) >> shift));
      const unsigned nb = static_cast<unsigned>(bits_as<U>(f(cur)));
      old = atomicCAS(word, assumed, (assumed & ~mask) | (nb << shift));
    } while (assumed != old);
  }
}

// Add with the native atomics where the hardware has them (16-bit floats: sm_70 / sm_80 and later).
template <class T>
__device__ void atomic_add(T* o, T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
    atomicAdd(o, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    atomicAdd(reinterpret_cast<unsigned long long*>(o), static_cast<unsigned long long>(v));  // two's complement
  } else if constexpr (std::is_same_v<T, Half>) {
    atomicAdd(reinterpret_cast<__half*>(o), __ushort_as_half(v.x));
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    atomicAdd(reinterpret_cast<__nv_bfloat16*>(o), __ushort_as_bfloat16(v.x));
  } else {
    atomic_update(o, [v](T a) { return math::scatter_combine(ScatterMode::Add, a, v); });
  }
}

template <class T>
struct ScatterCopyFn {
  Bounds b;
  __device__ void operator()(char* const* p) const {
    const int64_t off = b.offset(load_index(p[2]));
    if (off != kBadOffset)
      *reinterpret_cast<T*>(p[0] + off * static_cast<int64_t>(sizeof(T))) = *reinterpret_cast<const T*>(p[1]);
  }
};

template <class T>
struct ScatterCombineFn {
  Bounds b;
  ScatterMode mode;
  __device__ void operator()(char* const* p) const {
    const int64_t off = b.offset(load_index(p[2]));
    if (off == kBadOffset) return;
    T* o = reinterpret_cast<T*>(p[0] + off * static_cast<int64_t>(sizeof(T)));
    const T v = *reinterpret_cast<const T*>(p[1]);
    if (mode == ScatterMode::Add)
      atomic_add(o, v);
    else
      atomic_update(o, [m = mode, v](T a) { return math::scatter_combine(m, a, v); });
  }
};

// Repeated indices: Copy keeps one of the values (which one is unspecified, as in PyTorch's CUDA kernels); the
// combining modes combine all of them atomically (float sums in an unspecified order).
void index_scatter(ScatterMode mode, const Tensor& dst, const Tensor& src, const Tensor& idx, const IndexDim& d,
                   const char* op) {
  EMBER_CHECK(src.dtype() == dst.dtype(), "index_scatter: src (", src.dtype(), ") must have dst's dtype (", dst.dtype(),
              ")");
  const int device = dst.device().index;
  DeviceGuard g(device);
  StridedIter it = StridedIter::make({&dst, &src, &idx}, dst.sizes());
  const Bounds b(d, op_name(op), device);
  // Float sums and products in the atomics' order differ run to run (Note [Deterministic algorithms]).
  if ((mode == ScatterMode::Add || mode == ScatterMode::Mul) && is_floating(dst.dtype()))
    alert_not_deterministic(std::string(op ? op : "index_put_(accumulate=True)") + " on CUDA");
  if (mode == ScatterMode::Copy) {
    dispatch_size(dst.element_size(), [&](auto tag) { launch_elementwise<3>(it, ScatterCopyFn<decltype(tag)>{b}); });
    return;
  }
  dispatch_all(dst.dtype(), [&](auto tag) { launch_elementwise<3>(it, ScatterCombineFn<decltype(tag)>{b, mode}); });
}

// ---- index_offsets: offsets = offsets + sum of wrap(idx_k) * stride_k, up to three indices per pass (as the CPU)

template <int N>
struct OffsetsFn {
  Bounds b[N];
  __device__ void operator()(char* const* p) const {
    int64_t acc = load_index(p[1]);
#pragma unroll
    for (int k = 0; k < N; ++k) {
      const int64_t off = b[k].offset(load_index(p[2 + k]));
      acc = acc == kBadOffset || off == kBadOffset ? kBadOffset : acc + off;
    }
    *reinterpret_cast<int64_t*>(p[0]) = acc;
  }
};

template <int N>
void add_offsets(const Tensor& offsets, const Tensor* idx, const IndexDim* dims, const char* op, int device) {
  OffsetsFn<N> f{};
  for (int k = 0; k < N; ++k) f.b[k] = Bounds(dims[k], op, device);
  if constexpr (N == 1) {
    launch_elementwise<3>(StridedIter::make({&offsets, &offsets, &idx[0]}, offsets.sizes()), f);
  } else if constexpr (N == 2) {
    launch_elementwise<4>(StridedIter::make({&offsets, &offsets, &idx[0], &idx[1]}, offsets.sizes()), f);
  } else {
    launch_elementwise<5>(StridedIter::make({&offsets, &offsets, &idx[0], &idx[1], &idx[2]}, offsets.sizes()), f);
  }
}

void index_offsets(const Tensor& offsets, const std::vector<Tensor>& indices, const std::vector<IndexDim>& dims,
                   const char* op) {
  const int device = offsets.device().index;
  DeviceGuard g(device);
  fill_kernel[offsets.device()](offsets, 0);
  const char* name = op_name(op);
  for (size_t k = 0; k < indices.size(); k += 3) {
    switch (std::min<size_t>(3, indices.size() - k)) {
      case 1: add_offsets<1>(offsets, &indices[k], &dims[k], name, device); break;
      case 2: add_offsets<2>(offsets, &indices[k], &dims[k], name, device); break;
      default: add_offsets<3>(offsets, &indices[k], &dims[k], name, device); break;
    }
  }
}

// ---- nonzero: flags, an inclusive scan of them (each nonzero element's row + 1), then the coordinates

template <class T>
struct NonzeroFlagFn {
  char* base;
  int64_t* flags;
  __device__ void operator()(char* const* p) const {
    flags[(p[0] - base) / static_cast<int64_t>(sizeof(T))] = convert<bool>(*reinterpret_cast<const T*>(p[0]));
  }
};

struct Coords {
  int64_t sizes[kMaxDims];
  int nd;
};

// The op sized `out` from count_nonzero (one host read of the count): rows past out's are never written.
void nonzero(const Tensor& out, const Tensor& self) {
  EMBER_CHECK(self.is_contiguous(), "nonzero kernel: expected a contiguous input");
  const int64_t n = self.numel(), nd = self.dim(), rows = out.sizes()[0];
  EMBER_CHECK(nd <= kMaxDims, "nonzero: CUDA supports at most ", kMaxDims, " dims, got ", nd);
  const int device = self.device().index;
  DeviceGuard g(device);
  Tensor pos = scratch(self.device(), ScalarType::Int64, n);
  int64_t* ps = ptr<int64_t>(pos);
  dispatch_all(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_elementwise<1>(StridedIter::make({&self}, self.sizes()),
                          NonzeroFlagFn<T>{static_cast<char*>(self.data_ptr()), ps});
  });
  cub_run(self.device(), [&](void* tmp, size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(tmp, bytes, ps, ps, n, stream_of(device));
  });
  Coords c{};
  c.nd = static_cast<int>(nd);
  for (int64_t d = 0; d < nd; ++d) c.sizes[d] = self.sizes()[d];
  int64_t* o = out.data<int64_t>();
  launch_flat(device, n, [=] __device__(int64_t i) {
    const int64_t row = nonzero_row(ps, i);
    if (row < 0 || row >= rows) return;  // a zero, or past out
    int64_t rem = i;
    for (int d = c.nd - 1; d >= 0; --d) {
      o[row * c.nd + d] = rem % c.sizes[d];
      rem /= c.sizes[d];
    }
  });
}

// ---- repeat_index: out[j] = the block i whose range [ends[i-1], ends[i]) holds j (ends: inclusive sum of repeats)

void repeat_index(const Tensor& out, const Tensor& repeats) {
  const int64_t n = repeats.numel(), total = out.numel();
  const int device = out.device().index;
  DeviceGuard g(device);
  const Tensor r = repeats.is_contiguous() ? repeats : contiguous(repeats);
  Tensor ends = scratch(out.device(), ScalarType::Int64, n);
  const int64_t* rp = r.data<int64_t>();
  int64_t* ep = ptr<int64_t>(ends);
  cub_run(out.device(), [&](void* tmp, size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(tmp, bytes, rp, ep, n, stream_of(device));
  });
  int64_t* o = out.data<int64_t>();
  launch_flat(device, total, [=] __device__(int64_t j) {
    int64_t lo = 0, hi = n;  // the first i with ends[i] > j
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (ep[mid] > j)
        hi = mid;
      else
        lo = mid + 1;
    }
    o[j] = lo < n ? lo : n - 1;  // (repeats summing to less than out's size: the op checked they do not)
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(index_gather, CUDA, index_gather)
EMBER_REGISTER_KERNEL(index_scatter, CUDA, index_scatter)
EMBER_REGISTER_KERNEL(index_offsets, CUDA, index_offsets)
EMBER_REGISTER_KERNEL(nonzero, CUDA, nonzero)
EMBER_REGISTER_KERNEL(repeat_index, CUDA, repeat_index)

}  // namespace ember::cuda
