// CPU kernels of gather and scatter by index (Note [Index kernels]). Pure data movement copies elements as
// unsigned integers of the element's size, so one instantiation per size serves every dtype.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/dispatch_size.h"
#include "ember/backend/kernels/copy.h"
#include "ember/backend/kernels/index.h"
#include "ember/backend/math/scatter.h"
#include "ember/ops.h"

namespace ember::cpu {
namespace {

[[noreturn, gnu::noinline, gnu::cold]] void out_of_bounds(int64_t k, const IndexDim& d, const char* op) {
  if (op) fail_out_of_bounds(op, op, "(): index ", k, " is out of bounds for dimension ", d.dim, " with size ", d.size);
  fail_out_of_bounds(op, "index ", k, " is out of bounds for dimension ", d.dim, " with size ", d.size);
}

// The element offset idx selects, checked against the dim's size and wrapped when negative.
inline int64_t offset_of(int64_t k, const IndexDim& d, const char* op) {
  if (d.size < 0) return k;
  if (k < (d.wrap ? -d.size : 0) || k >= d.size) [[unlikely]]
    out_of_bounds(k, d, op);
  return (k < 0 ? k + d.size : k) * d.stride;
}

inline int64_t load_index(const char* p) {
  int64_t k;
  std::memcpy(&k, p, sizeof k);
  return k;
}

// Note [Gathering a run]
// A run whose output and index move by one element while the source stays (gather along the innermost dim, take,
// index_select of a 1-d tensor) checks its indices' range first, a minimum and a maximum the compiler vectorizes, then
// loads without a check and a branch per element: `[64, 1024].gather(1, idx)` at one thread, 62 -> 53 us (PyTorch
// 41). Where an index is out of range it returns false, having written nothing, and the element loop reports the
// first such index.
// Whether the n contiguous indices at p are all in [lo, hi] for d, and whether any is negative (else the loops skip
// the wrap: a compare, a select and an add per element, a fifth of a 1-d scatter_add_'s time). k is in range exactly
// when neither k - lo nor hi - k is negative, which (as 64-bit wrapping differences, each within 2^63 of zero) shows in
// their top bits: one OR per index, which vectorizes without the compare-and-blend chain of a running minimum and
// maximum (twice as fast).
enum class IndexRun { OutOfRange, NonNegative, Wrapped };
IndexRun index_run(const char* p, int64_t n, const IndexDim& d) {
  const uint64_t lo = static_cast<uint64_t>(d.wrap ? -d.size : 0), hi = static_cast<uint64_t>(d.size - 1);
  uint64_t acc = 0, neg = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<uint64_t>(load_index(p + i * 8));
    acc |= (k - lo) | (hi - k);
    neg |= k;
  }
  if (acc >> 63) return IndexRun::OutOfRange;
  return neg >> 63 ? IndexRun::Wrapped : IndexRun::NonNegative;
}

// f(std::bool_constant of whether the run's indices need wrapping), or false when one is out of range.
template <class F>
bool with_index_run(const char* p, int64_t n, const IndexDim& d, F f) {
  switch (index_run(p, n, d)) {
    case IndexRun::OutOfRange: return false;
    case IndexRun::NonNegative: f(std::false_type{}); return true;
    case IndexRun::Wrapped: f(std::true_type{}); return true;
  }
  return false;
}

template <class T>
bool gather_run(char** p, int64_t n, const IndexDim& d) {
  T* out = reinterpret_cast<T*>(p[0]);
  const T* base = reinterpret_cast<const T*>(p[1]);
  if (d.size < 0) {  // checked element offsets
    for (int64_t i = 0; i < n; ++i) out[i] = base[load_index(p[2] + i * 8)];
    return true;
  }
  const int64_t size = d.size, stride = d.stride;
  return with_index_run(p[2], n, d, [&](auto wrapped) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = load_index(p[2] + i * 8);
      out[i] = base[(wrapped && k < 0 ? k + size : k) * stride];
    }
  });
}

void index_gather(const Tensor& out, const Tensor& src, const Tensor& idx, const IndexDim& d, const char* op) {
  StridedIter it = StridedIter::make({&out, &src, &idx}, out.sizes());
  dispatch_size(out.element_size(), [&](auto tag) {
    using T = decltype(tag);
    constexpr int64_t es = sizeof(T);
    for_each_run(it, [&](char** p, const int64_t* s, int64_t n) {
      if (s[2] == 0) {  // Note [Runs of one index]
        const char* from = p[1] + offset_of(load_index(p[2]), d, op) * es;
        if (s[0] == es && s[1] == es) {
          std::memcpy(p[0], from, static_cast<size_t>(n * es));
        } else {
          for (int64_t i = 0; i < n; ++i)
            *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(from + i * s[1]);
        }
        return;
      }
      if (s[0] == es && s[1] == 0 && s[2] == 8 && gather_run<T>(p, n, d)) return;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t off = offset_of(load_index(p[2] + i * s[2]), d, op);
        *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(p[1] + i * s[1] + off * es);
      }
    });
  });
}

// Runs body(iter) over parts of the iteration that write disjoint elements of dst: dst (which does not overlap
// itself) is split along a dim where it moves, so that two parts never meet even with repeated indices. The
// parts' iterators are built here and run on the pool; below the grain size, one part runs on the caller.
template <class Body>
void for_each_disjoint_part(const Tensor& dst, const Tensor& src, const Tensor& idx, Body&& body) {
  const int64_t numel = dst.numel();
  int64_t split = -1;
  for (int64_t k = 0; k < dst.dim(); ++k)
    if (dst.strides()[k] != 0 && dst.sizes()[k] > 1 && (split < 0 || dst.sizes()[k] > dst.sizes()[split])) split = k;
  int64_t parts = 1;
  if (split >= 0 && numel > kGrainSize && !in_parallel_region())
    parts = std::min<int64_t>({get_num_threads(), dst.sizes()[split], numel / kGrainSize});
  if (parts <= 1) {
    body(StridedIter::make({&dst, &src, &idx}, dst.sizes()));
    return;
  }
  std::vector<StridedIter> iters;
  const int64_t size = dst.sizes()[split];
  for (int64_t k = 0; k < parts; ++k) {
    const int64_t b = size * k / parts, e = size * (k + 1) / parts;
    Tensor dv = slice(dst, split, b, e), sv = slice(src, split, b, e), iv = slice(idx, split, b, e);
    iters.push_back(StridedIter::make({&dv, &sv, &iv}, dv.sizes()));
  }
  parallel_for(0, parts, 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) body(iters[k]);
  });
}

// Note [Runs of one index]
// index_select, index_add and index_copy along any dim but the innermost (an embedding's rows and their gradient)
// see one index for a whole run of the iteration (the index broadcast with stride 0): it is read and checked once and
// the run moves as a block, where it was read, checked and applied once per element. An embedding's forward ([700]
// indices into [10000, 256]) at one thread: 177 us -> about 20 (PyTorch 21.5).

// dst[off(i)] = f(dst[off(i)], src[i]) in iteration order (so the last of repeated indices wins a Copy). Runs of one
// index (Note [Runs of one index]) take `block(dst, src, src stride, n)` over the run: a loop the compiler vectorizes.
// A run whose source and index move by one element while dst stays (scatter along the innermost dim): the gather's
// range check first (Note [Gathering a run]), then no check per element. Where an index is out of range it returns
// false, having written nothing, and the element loop reports the first bad index.
template <class T, class F>
bool scatter_run(char** p, int64_t n, const IndexDim& d, F f) {
  if (d.size < 0) return false;
  T* base = reinterpret_cast<T*>(p[0]);
  const T* src = reinterpret_cast<const T*>(p[1]);
  const int64_t size = d.size, stride = d.stride;
  return with_index_run(p[2], n, d, [&](auto wrapped) {
#pragma GCC unroll 4  // (Note [Loop alignment] in loops.h)
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = load_index(p[2] + i * 8);
      T* o = base + (wrapped && k < 0 ? k + size : k) * stride;
      *o = f(*o, src[i]);
    }
  });
}

template <class T, class F, class Block>
void scatter_loop(const StridedIter& it, const IndexDim& d, const char* op, F f, Block block) {
  for_each_run_range(it, 0, it.numel, [&](char** p, const int64_t* s, int64_t n) {
    if (s[2] == 0 && s[0] == static_cast<int64_t>(sizeof(T))) {
      T* o = reinterpret_cast<T*>(p[0] + offset_of(load_index(p[2]), d, op) * static_cast<int64_t>(sizeof(T)));
      block(o, p[1], s[1], n);
      return;
    }
    if (s[0] == 0 && s[1] == static_cast<int64_t>(sizeof(T)) && s[2] == 8 && scatter_run<T>(p, n, d, f)) return;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t off = offset_of(load_index(p[2] + i * s[2]), d, op);
      T* o = reinterpret_cast<T*>(p[0] + i * s[0] + off * static_cast<int64_t>(sizeof(T)));
      *o = f(*o, *reinterpret_cast<const T*>(p[1] + i * s[1]));
    }
  });
}

// f(std::integral_constant of mode): the combining modes (ember/backend/math/scatter.h) as compile-time constants, so
// that the per-element loops hold no switch (scatter_add_ over [64, 1024] at one thread: 183 -> 66 us, PyTorch 51).
template <class F>
void with_mode(ScatterMode mode, F f) {
  switch (mode) {
    case ScatterMode::Add: return f(std::integral_constant<ScatterMode, ScatterMode::Add>{});
    case ScatterMode::Mul: return f(std::integral_constant<ScatterMode, ScatterMode::Mul>{});
    case ScatterMode::Max: return f(std::integral_constant<ScatterMode, ScatterMode::Max>{});
    case ScatterMode::Min: return f(std::integral_constant<ScatterMode, ScatterMode::Min>{});
    case ScatterMode::Copy: return f(std::integral_constant<ScatterMode, ScatterMode::Copy>{});
  }
}

// Note [Sums into a short dst]
// A scatter_add_ whose dst moves only along the indexed dim (a 1-d scatter_add_ or index_add_: a histogram, segment
// sums) has no part of dst to give each thread, so it ran on one. When dst is short beside the source, the source is
// cut into chunks of kGrainSize elements, each summed from zero into a dst of its own, and the chunks' sums are added
// into dst in order: a fixed split, so that the bits are the same at every thread count. At two threads (one thread
// unchanged), 1-d scatter_add_ of 64K into 1000: 43-53 -> 30 us (PyTorch's best 47), of 1M into 4096: 650-970 -> 370-
// 450 (PyTorch's best 654). An out-of-range index is reported as the first one in the source, and nothing is written.
constexpr int64_t kShortDst = kGrainSize / 8;  // so that zeroing and adding the chunks' sums costs at most 1/8 more

bool sum_into_short_dst(const Tensor& dst, const Tensor& src, const Tensor& idx, const IndexDim& d, const char* op) {
  const int64_t numel = src.numel();
  if (d.size < 0 || d.size > kShortDst || numel < 2 * kGrainSize || in_parallel_region() ||
      dst.dtype() == ScalarType::Bool)
    return false;
  int64_t along = 0;  // dst's view may move along no dim: all but one have size 1
  for (int64_t k = 0; k < dst.dim(); ++k) {
    if (dst.strides()[k] != 0 && dst.sizes()[k] > 1) return false;
    if (dst.sizes()[k] > dst.sizes()[along]) along = k;
  }
  const int64_t chunks = (numel + kGrainSize - 1) / kGrainSize, length = dst.sizes()[along];
  const Tensor sums = empty({chunks, d.size}, TensorOptions().dtype(dst.dtype()));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(chunks));
  const IndexDim own{d.size, 1, d.dim, d.wrap};
  dispatch_all(dst.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const auto add = [](T a, T b) { return math::scatter_combine(ScatterMode::Add, a, b); };
    T* all = static_cast<T*>(sums.data_ptr());
    parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        try {
          const int64_t b = length * c / chunks, e = length * (c + 1) / chunks;
          T* mine = all + c * d.size;
          std::fill(mine, mine + d.size, T{});
          DimVector part(dst.sizes());
          part[along] = e - b;
          const Tensor to = as_strided(sums, part, DimVector(dst.dim(), 0), c * d.size), sv = slice(src, along, b, e),
                       iv = slice(idx, along, b, e);
          scatter_loop<T>(StridedIter::make({&to, &sv, &iv}, to.sizes()), own, op, add,
                          [&](T* o, const char* from, int64_t sb, int64_t n) {  // (dst never moves here)
                            for (int64_t i = 0; i < n; ++i)
                              o[i] = add(o[i], *reinterpret_cast<const T*>(from + i * sb));
                          });
        } catch (...) {
          errors[static_cast<size_t>(c)] = std::current_exception();
        }
      }
    });
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
    T* out = static_cast<T*>(dst.data_ptr());
    // chunk by chunk into the first (by position, sums a whole dst apart all fell in one cache set)
    for (int64_t c = 1; c < chunks; ++c)
      for (int64_t k = 0; k < d.size; ++k) all[k] = add(all[k], all[c * d.size + k]);
    for (int64_t k = 0; k < d.size; ++k) out[k * d.stride] = add(out[k * d.stride], all[k]);
  });
  return true;
}

void index_scatter(ScatterMode mode, const Tensor& dst, const Tensor& src, const Tensor& idx, const IndexDim& d,
                   const char* op) {
  EMBER_CHECK(src.dtype() == dst.dtype(), "index_scatter: src (", src.dtype(), ") must have dst's dtype (", dst.dtype(),
              ")");
  if (mode == ScatterMode::Add && sum_into_short_dst(dst, src, idx, d, op)) return;
  for_each_disjoint_part(dst, src, idx, [&](const StridedIter& it) {
    if (mode == ScatterMode::Copy) {
      dispatch_size(dst.element_size(), [&](auto tag) {
        using T = decltype(tag);
        scatter_loop<T>(
            it, d, op, [](T, T b) { return b; },
            [](T* o, const char* b, int64_t sb, int64_t n) {
              if (sb == static_cast<int64_t>(sizeof(T))) {
                std::memmove(o, b, static_cast<size_t>(n) * sizeof(T));
              } else {
                for (int64_t i = 0; i < n; ++i) o[i] = *reinterpret_cast<const T*>(b + i * sb);
              }
            });
      });
      return;
    }
    dispatch_all(dst.dtype(), [&](auto tag) {
      using T = decltype(tag);
      with_mode(mode, [&](auto m) {
        const auto f = [](T a, T b) { return math::scatter_combine(decltype(m)::value, a, b); };
        scatter_loop<T>(it, d, op, f, [&](T* o, const char* b, int64_t sb, int64_t n) {
          if (sb == static_cast<int64_t>(sizeof(T))) {  // (index_add_ of rows: a vector loop)
            const T* src = reinterpret_cast<const T*>(b);
            for (int64_t i = 0; i < n; ++i) o[i] = f(o[i], src[i]);
            return;
          }
          for (int64_t i = 0; i < n; ++i) o[i] = f(o[i], *reinterpret_cast<const T*>(b + i * sb));
        });
      });
    });
  });
}

// Up to three indices per pass: offsets = offsets + sum of wrap(idx_k) * stride_k.
template <int N>
void add_offsets(const Tensor& offsets, const Tensor* idx, const IndexDim* dims, const char* op) {
  StridedIter it = N == 1   ? StridedIter::make({&offsets, &offsets, &idx[0]}, offsets.sizes())
                   : N == 2 ? StridedIter::make({&offsets, &offsets, &idx[0], &idx[1]}, offsets.sizes())
                            : StridedIter::make({&offsets, &offsets, &idx[0], &idx[1], &idx[2]}, offsets.sizes());
  for_each_run(it, [&](char** p, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      int64_t acc = load_index(p[1] + i * s[1]);
      for (int k = 0; k < N; ++k) acc += offset_of(load_index(p[2 + k] + i * s[2 + k]), dims[k], op);
      std::memcpy(p[0] + i * s[0], &acc, sizeof acc);
    }
  });
}

void index_offsets(const Tensor& offsets, const std::vector<Tensor>& indices, const std::vector<IndexDim>& dims,
                   const char* op) {
  fill_kernel[offsets.device()](offsets, 0);
  for (size_t k = 0; k < indices.size(); k += 3) {
    switch (std::min<size_t>(3, indices.size() - k)) {
      case 1: add_offsets<1>(offsets, &indices[k], &dims[k], op); break;
      case 2: add_offsets<2>(offsets, &indices[k], &dims[k], op); break;
      default: add_offsets<3>(offsets, &indices[k], &dims[k], op); break;
    }
  }
}

}  // namespace

EMBER_REGISTER_KERNEL(index_gather, CPU, index_gather)
EMBER_REGISTER_KERNEL(index_scatter, CPU, index_scatter)
EMBER_REGISTER_KERNEL(index_offsets, CPU, index_offsets)

}  // namespace ember::cpu
