// CUDA sorting and selection (the CPU's semantics, ember/backend/cpu/sort.cpp): every slice is sorted with CUB's
// stable radix sort on keys that encode the CPU's order, see Note [Sort keys]; topk and the selections read the
// sorted slices. unique_runs finds runs with a scan and reads their count back once (its output size).
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "ember/backend/cuda/index_plans.h"
#include "ember/backend/cuda/launch.cuh"
#include "ember/backend/cuda/scratch.cuh"
#include "ember/backend/kernels/copy.h"
#include "ember/backend/kernels/sort.h"
#include "ember/detail/convert.h"
#include "ember/ops/detail/util.h"

namespace ember::cuda {
namespace {

template <class T>
__device__ bool value_is_nan(T v) {
  if constexpr (is_float_type<T>) {
    const Acc<T> a = convert<Acc<T>>(v);
    return a != a;
  } else {
    return false;
  }
}

// Equality of the CPU's runs (unique, mode): Acc<T> values, NaN equal to nothing.
template <class T>
__device__ bool same_value(T a, T b) {
  return convert<Acc<T>>(a) == convert<Acc<T>>(b);
}

// Every slice of `in` along dim, sorted: x holds the slices as contiguous rows of n (in itself when it is laid out
// so), order[j] is the element of x at sorted position j % n of row j / n.
struct SortedRows {
  Tensor x, order;
  int64_t rows = 0, n = 0;
};

// in's sizes and strides with `dim` moved last, and `last` as its size.
std::pair<DimVector, DimVector> moved_geometry(const Tensor& t, int64_t dim, int64_t last) {
  DimVector sizes, strides;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (d != dim) {
      sizes.push_back(t.sizes()[d]);
      strides.push_back(t.strides()[d]);
    }
  sizes.push_back(last);
  strides.push_back(t.strides()[dim]);
  return {sizes, strides};
}

Tensor moved_view(const Tensor& t, int64_t dim) {
  auto [sizes, strides] = moved_geometry(t, dim, t.sizes()[dim]);
  return make_view(t, sizes, strides, t.storage_offset());
}

template <class U>
void radix_sort_pairs(Device dev, const U* kin, U* kout, const int64_t* vin, int64_t* vout, int64_t count,
                      int end_bit) {
  cub_run(dev, [&](void* tmp, size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(tmp, bytes, kin, kout, vin, vout, count, 0, end_bit, stream_of(dev.index));
  });
}

// First pass: all elements by key (ties by their index in x, i.e. by row, then position).
template <class T>
void sort_by_key(const SortedRows& s, bool descending, int64_t* order_in, int64_t* order_out) {
  using U = KeyOf<T>;
  const Device dev = s.x.device();
  const int64_t total = s.rows * s.n;
  Tensor keys_in = scratch(dev, ScalarType::UInt8, total * static_cast<int64_t>(sizeof(U)));
  Tensor keys_out = scratch(dev, ScalarType::UInt8, total * static_cast<int64_t>(sizeof(U)));
  U* ki = ptr<U>(keys_in);
  const T* x = static_cast<const T*>(s.x.data_ptr());
  const U flip = descending ? static_cast<U>(~U(0)) : U(0);
  launch_flat(dev.index, total, [=] __device__(int64_t i) {
    ki[i] = static_cast<U>(radix_key(x[i]) ^ flip);
    order_in[i] = i;
  });
  radix_sort_pairs<U>(dev, ki, ptr<U>(keys_out), order_in, order_out, total, 8 * sizeof(U));
}

// Second pass: a stable sort by row keeps each row's elements in the first pass's order.
template <class R>
void sort_by_row(const SortedRows& s, int row_bits, const int64_t* order_in, int64_t* order_out) {
  const Device dev = s.x.device();
  const int64_t total = s.rows * s.n, n = s.n;
  Tensor rk_in = scratch(dev, ScalarType::UInt8, total * static_cast<int64_t>(sizeof(R)));
  Tensor rk_out = scratch(dev, ScalarType::UInt8, total * static_cast<int64_t>(sizeof(R)));
  R* rk = ptr<R>(rk_in);
  launch_flat(dev.index, total, [=] __device__(int64_t j) { rk[j] = static_cast<R>(order_in[j] / n); });
  radix_sort_pairs<R>(dev, rk, ptr<R>(rk_out), order_in, order_out, total, row_bits);
}

SortedRows sort_rows(const Tensor& in, int64_t dim, bool descending) {
  const Device dev = in.device();
  SortedRows s;
  s.n = in.sizes()[dim];
  s.rows = s.n ? in.numel() / s.n : 0;
  const int64_t total = s.rows * s.n;
  const Tensor mv = moved_view(in, dim);
  if (mv.is_contiguous()) {
    s.x = mv;
  } else {
    s.x = empty(mv.sizes(), TensorOptions(in.dtype()).device(dev));
    copy_kernel[dev](s.x, mv);
  }
  const SortPlan plan = plan_sort(s.rows, s.n);
  Tensor order_a = scratch(dev, ScalarType::Int64, total), order_b = scratch(dev, ScalarType::Int64, total);
  int64_t* oa = ptr<int64_t>(order_a);
  int64_t* ob = ptr<int64_t>(order_b);
  dispatch_all(in.dtype(), [&](auto tag) { sort_by_key<decltype(tag)>(s, descending, oa, ob); });
  if (plan.row_bits == 0) {  // one row: sorted by the first pass
    s.order = order_b;
    return s;
  }
  if (plan.row_bits <= 32)
    sort_by_row<uint32_t>(s, plan.row_bits, ob, oa);
  else
    sort_by_row<uint64_t>(s, plan.row_bits, ob, oa);
  s.order = order_a;
  return s;
}

// values/indices at output position j of row r: x[g] and g's position in its row, g = src[j] (src holds `row_len`
// entries per row, global indices into x).
template <class E>
struct WriteFn {
  const char* x;
  const char* src;
  int64_t row_len, n;
  __device__ void operator()(char* const* p) const {
    const int64_t j = (p[2] - src) / static_cast<int64_t>(sizeof(int64_t));
    const int64_t g = *reinterpret_cast<const int64_t*>(p[2]);
    *reinterpret_cast<int64_t*>(p[1]) = g - (j / row_len) * n;
    *reinterpret_cast<E*>(p[0]) = *reinterpret_cast<const E*>(x + g * static_cast<int64_t>(sizeof(E)));
  }
};

// Writes values and indices (their size along dim: m) from src, m global indices per row.
void write_rows(const Tensor& values, const Tensor& indices, int64_t dim, const SortedRows& s, const Tensor& src,
                int64_t src_row_len) {
  const Tensor vv = moved_view(values, dim), iv = moved_view(indices, dim);
  const Tensor sv = make_view(src, vv.sizes(), row_buffer_strides(vv.sizes(), src_row_len), src.storage_offset());
  StridedIter it = StridedIter::make({&vv, &iv, &sv}, vv.sizes());
  const char* x = static_cast<const char*>(s.x.data_ptr());
  const char* sp = static_cast<const char*>(src.data_ptr());
  switch (values.element_size()) {
    case 1: launch_elementwise<3>(it, WriteFn<uint8_t>{x, sp, src_row_len, s.n}); break;
    case 2: launch_elementwise<3>(it, WriteFn<uint16_t>{x, sp, src_row_len, s.n}); break;
    case 4: launch_elementwise<3>(it, WriteFn<uint32_t>{x, sp, src_row_len, s.n}); break;
    default: launch_elementwise<3>(it, WriteFn<uint64_t>{x, sp, src_row_len, s.n}); break;
  }
}

void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim, bool descending) {
  DeviceGuard g(in.device().index);
  const SortedRows s = sort_rows(in, dim, descending);
  write_rows(values, indices, dim, s, s.order, s.n);
}

// Sorted in every case: the CPU's order for sorted=false is unspecified (nth_element's) and so is PyTorch's.
void topk(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, int64_t dim, bool largest,
          bool /*sorted*/) {
  DeviceGuard g(in.device().index);
  const SortedRows s = sort_rows(in, dim, largest);
  write_rows(values, indices, dim, s, s.order, s.n);
}

// ---- slice_select: the pick of each sorted row, as a global index into x

// The first sorted position of a NaN in row r (n when none): NaNs sort last.
template <class T>
__device__ int64_t first_nan(const T* x, const int64_t* order, int64_t r, int64_t n) {
  if constexpr (!is_float_type<T>) {
    return n;
  } else {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (value_is_nan(x[order[r * n + mid]]))
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }
}

struct ModeCandidate {
  int64_t count, end;  // a run's length and its last sorted position (global)
};

struct BetterMode {
  __device__ ModeCandidate operator()(const ModeCandidate& a, const ModeCandidate& b) const {
    return a.count > b.count || (a.count == b.count && a.end < b.end) ? a : b;
  }
};

constexpr int kModeThreads = 128;

// One block per row: the longest run of equal values (the first, i.e. smallest, on ties), from run starts given
// by an inclusive max-scan (start[j]: the sorted position where j's run starts).
__global__ void mode_kernel(const int64_t* start, const int64_t* order, int64_t rows, int64_t n, int64_t* pick) {
  using Reduce = cub::BlockReduce<ModeCandidate, kModeThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    ModeCandidate best{0, INT64_MAX};
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      const int64_t j = r * n + i;
      if (i + 1 == n || start[j + 1] == j + 1) best = BetterMode{}(best, ModeCandidate{j - start[j] + 1, j});
    }
    const ModeCandidate b = Reduce(tmp).Reduce(best, BetterMode{});
    if (threadIdx.x == 0) pick[r] = order[b.end];  // positions ascend within a run: its last occurrence
    __syncthreads();
  }
}

template <class T>
void pick_rows(SelectOp op, const SortedRows& s, int64_t k, int64_t* pk) {
  const int device = s.x.device().index;
  const int64_t rows = s.rows, n = s.n;
  const int64_t* order = ptr<int64_t>(s.order);
  const T* x = static_cast<const T*>(s.x.data_ptr());
  if (op != SelectOp::Mode) {
    launch_flat(device, rows, [=] __device__(int64_t r) {
      int64_t kk = k;
      if (op == SelectOp::Median) {
        const int64_t f = first_nan(x, order, r, n);
        kk = f < n ? f : (n - 1) / 2;  // a NaN in the slice: the first NaN
      } else if (op == SelectOp::NanMedian) {
        const int64_t valid = first_nan(x, order, r, n);
        kk = valid > 0 ? (valid - 1) / 2 : 0;  // all NaN: the first NaN
      }
      pk[r] = order[r * n + kk];
    });
    return;
  }
  const int64_t total = rows * n;
  Tensor start = scratch(s.x.device(), ScalarType::Int64, total);
  int64_t* st = ptr<int64_t>(start);
  launch_flat(device, total,
              [=] __device__(int64_t j) { st[j] = j % n == 0 || !same_value(x[order[j]], x[order[j - 1]]) ? j : 0; });
  cub_run(s.x.device(), [&](void* tmp, size_t& bytes) {
    return cub::DeviceScan::InclusiveScan(tmp, bytes, st, st, ::cuda::maximum<int64_t>{}, total, stream_of(device));
  });
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(rows, 1 << 20));
  mode_kernel<<<blocks, kModeThreads, 0, stream_of(device)>>>(st, order, rows, n, pk);
  after_launch(device);
}

void slice_select(SelectOp op, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim, int64_t k) {
  DeviceGuard g(in.device().index);
  const SortedRows s = sort_rows(in, dim, false);
  Tensor pick = scratch(in.device(), ScalarType::Int64, s.rows);
  dispatch_all(in.dtype(), [&](auto tag) { pick_rows<decltype(tag)>(op, s, k, ptr<int64_t>(pick)); });
  write_rows(values, indices, dim, s, pick, 1);
}

// ---- unique_runs

// rp[i] = 1 where element i starts a run.
template <class T>
void flag_runs(const Tensor& in, int64_t* rp) {
  const T* x = static_cast<const T*>(in.data_ptr());
  launch_flat(in.device().index, in.numel(),
              [=] __device__(int64_t i) { rp[i] = i == 0 || !same_value(x[i], x[i - 1]); });
}

// The first element of each run and the runs' starts (sp[nu] = n), from the runs' numbers + 1 in rp.
template <class E>
void write_runs(const Tensor& in, const Tensor& values, const int64_t* rp, int64_t* sp, int64_t nu) {
  const E* x = static_cast<const E*>(in.data_ptr());
  E* v = static_cast<E*>(values.data_ptr());
  const int64_t n = in.numel();
  launch_flat(in.device().index, n, [=] __device__(int64_t i) {
    const int64_t r = rp[i] - 1;
    if (i == 0) sp[nu] = n;
    if (i == 0 || rp[i - 1] != rp[i]) {
      v[r] = x[i];
      sp[r] = i;
    }
  });
}

void unique_runs(const Tensor& in, const Tensor& perm, const Tensor& inverse, Tensor& values, Tensor& counts) {
  EMBER_CHECK(in.dim() == 1 && in.is_contiguous(), "unique_runs kernel: expected a 1-d contiguous input");
  EMBER_CHECK(!perm.defined() || perm.is_contiguous(), "unique_runs kernel: expected a contiguous perm");
  EMBER_CHECK(!inverse.defined() || inverse.is_contiguous(), "unique_runs kernel: expected a contiguous inverse");
  const Device dev = in.device();
  const int device = dev.index;
  DeviceGuard g(device);
  const int64_t n = in.numel();
  if (n == 0) {
    values = empty({{0}}, TensorOptions(in.dtype()).device(dev));
    counts = empty({{0}}, TensorOptions(ScalarType::Int64).device(dev));
    return;
  }
  Tensor run = scratch(dev, ScalarType::Int64, n);  // after the scan: each element's run + 1
  int64_t* rp = ptr<int64_t>(run);
  dispatch_all(in.dtype(), [&](auto tag) { flag_runs<decltype(tag)>(in, rp); });
  cub_run(dev, [&](void* tmp, size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(tmp, bytes, rp, rp, n, stream_of(device));
  });
  SyncOpName sync_op("unique");                          // Note [Sync debug mode]
  const int64_t nu = read_scalar(rp + (n - 1), device);  // the output size: the one read back
  values = empty({{nu}}, TensorOptions(in.dtype()).device(dev));
  counts = empty({{nu}}, TensorOptions(ScalarType::Int64).device(dev));
  Tensor starts = scratch(dev, ScalarType::Int64, nu + 1);
  int64_t* sp = ptr<int64_t>(starts);
  int64_t* cp = counts.data<int64_t>();
  switch (in.element_size()) {
    case 1: write_runs<uint8_t>(in, values, rp, sp, nu); break;
    case 2: write_runs<uint16_t>(in, values, rp, sp, nu); break;
    case 4: write_runs<uint32_t>(in, values, rp, sp, nu); break;
    default: write_runs<uint64_t>(in, values, rp, sp, nu); break;
  }
  launch_flat(device, nu, [=] __device__(int64_t r) { cp[r] = sp[r + 1] - sp[r]; });
  if (!inverse.defined()) return;
  int64_t* inv = inverse.data<int64_t>();
  const int64_t* pos = perm.defined() ? perm.data<int64_t>() : nullptr;
  launch_flat(device, n, [=] __device__(int64_t i) { inv[pos ? pos[i] : i] = rp[i] - 1; });
}

}  // namespace

EMBER_REGISTER_KERNEL(sort, CUDA, sort)
EMBER_REGISTER_KERNEL(topk, CUDA, topk)
EMBER_REGISTER_KERNEL(slice_select, CUDA, slice_select)
EMBER_REGISTER_KERNEL(unique_runs, CUDA, unique_runs)

}  // namespace ember::cuda
