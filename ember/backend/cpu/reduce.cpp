// CPU reductions (Note [Reductions]).
//
// Note [Reductions]
// The input's dims (size-1 dims dropped) are sorted by stride and merged where contiguous, then split
// into kept dims (those of the output) and reduced dims. If the innermost dim is reduced, each output
// is the reduction of a strided range ("inner" strategy; pairwise for floating sums, split across
// threads when there are fewer outputs than threads; a contiguous range folds in vector lanes, Note
// [Reduction lanes], and a chunk of outputs walks its rows without a division or a call per output, so a
// mean over a last dim of 3 or 49 runs at memory speed). If the innermost dim is kept, the reduced
// elements of a whole contiguous row of outputs are accumulated together, which vectorizes ("outer"
// strategy, e.g. summing a [N, C] tensor over N; Note [Outer blocking]); blocks of 128 rows are combined
// pairwise, and so are the runs of a strided inner reduction, so float sums keep O(log n) error in every
// layout. The two halves of a pairwise split are computed in memory order (a call's arguments are evaluated
// in no fixed order; GCC took the right half first, which walked 16M floats backwards by leaves and halved
// the bandwidth).
// Accumulators: float for 16-bit floats, int64 for integer sums and products.
#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/binary.h"
#include "ember/backend/cpu/lanes.h"
#include "ember/backend/kernels/reduce.h"
#include "ember/ops.h"

namespace ember::cpu {

namespace {

struct Dim {
  int64_t size, in_stride, out_stride;  // strides in bytes; out_stride is 0 on reduced dims
  bool reduced;
};

struct Geometry {
  std::vector<Dim> kept, red;  // inner-first
  bool inner;                  // the innermost input dim is reduced
  int64_t n_out = 1, n_red = 1;
};

Geometry make_geometry(const Tensor& out, const Tensor& in) {
  std::vector<Dim> dims;
  const int64_t ei = static_cast<int64_t>(in.element_size()), eo = static_cast<int64_t>(out.element_size());
  for (int64_t d = 0; d < in.dim(); ++d) {
    if (in.sizes()[d] == 1) continue;
    const bool red = out.sizes()[d] == 1;
    dims.push_back({in.sizes()[d], in.strides()[d] * ei, red ? 0 : out.strides()[d] * eo, red});
  }
  std::stable_sort(dims.begin(), dims.end(), [](const Dim& a, const Dim& b) { return a.in_stride < b.in_stride; });
  Geometry g;
  g.inner = !dims.empty() && dims[0].reduced;
  for (const Dim& d : dims) {
    auto& list = d.reduced ? g.red : g.kept;
    if (!list.empty()) {
      Dim& p = list.back();
      if (d.in_stride == p.size * p.in_stride && d.out_stride == p.size * p.out_stride) {
        p.size *= d.size;
        continue;
      }
    }
    list.push_back(d);
  }
  for (const Dim& d : g.kept) g.n_out *= d.size;
  for (const Dim& d : g.red) g.n_red *= d.size;
  return g;
}

// Byte offsets (input, output) of linear index i over `dims` (inner-first).
std::pair<int64_t, int64_t> offsets(const std::vector<Dim>& dims, int64_t i) {
  int64_t a = 0, b = 0;
  for (const Dim& d : dims) {
    const int64_t k = i % d.size;
    i /= d.size;
    a += k * d.in_stride;
    b += k * d.out_stride;
  }
  return {a, b};
}

template <class T, ReduceOp Op>
struct Policy {
  static constexpr bool kSum = Op == ReduceOp::Sum || Op == ReduceOp::NanSum || Op == ReduceOp::Prod;
  using Acc =
      std::conditional_t<Op == ReduceOp::All || Op == ReduceOp::Any, bool,
                         std::conditional_t<Op == ReduceOp::CountNonzero, int64_t,
                                            std::conditional_t<kSum && std::is_integral_v<T>, int64_t, cpu::Acc<T>>>>;
  static Acc init() {
    if constexpr (Op == ReduceOp::Prod || Op == ReduceOp::All)
      return Acc(1);
    else if constexpr (Op == ReduceOp::Max || Op == ReduceOp::Min)
      return Acc(0);  // replaced by the first element
    else
      return Acc(0);
  }
  static Acc step(Acc acc, T v) {
    const cpu::Acc<T> x = static_cast<cpu::Acc<T>>(v);
    if constexpr (Op == ReduceOp::Sum)
      return acc + static_cast<Acc>(x);
    else if constexpr (Op == ReduceOp::NanSum)
      return x != x ? acc : acc + static_cast<Acc>(x);
    else if constexpr (Op == ReduceOp::Prod)
      return acc * static_cast<Acc>(x);
    else if constexpr (Op == ReduceOp::Max)
      return (acc != acc || x <= acc) ? acc : x;  // NaN sticks
    else if constexpr (Op == ReduceOp::Min)
      return (acc != acc || x >= acc) ? acc : x;
    else if constexpr (Op == ReduceOp::All)
      return acc && x != cpu::Acc<T>(0);
    else if constexpr (Op == ReduceOp::Any)
      return acc || x != cpu::Acc<T>(0);
    else
      return acc + (x != cpu::Acc<T>(0));
  }
  // A lane's starting value before it steps over the elements from the first on (Note [Reduction lanes]).
  static Acc lane(T first_element) {
    if constexpr (Op == ReduceOp::Max || Op == ReduceOp::Min)
      return first(first_element);
    else
      return init();
  }
  // The accumulator of a single element.
  static Acc first(T v) {
    if constexpr (Op == ReduceOp::Max || Op == ReduceOp::Min)
      return static_cast<Acc>(v);
    else
      return step(init(), v);
  }
  // Float and double sums and extrema also step whole vectors (lanes::Vec<T>) at once: `combine` and `merge` are
  // written once for scalars and GCC's vector types alike.
  static constexpr bool kVectors = (std::is_same_v<T, float> || std::is_same_v<T, double>)&&(
      Op == ReduceOp::Sum || Op == ReduceOp::NanSum || Op == ReduceOp::Prod || Op == ReduceOp::Max ||
      Op == ReduceOp::Min);
  template <class A>
  static A combine(A acc, A x) {
    if constexpr (Op == ReduceOp::Sum)
      return acc + x;
    else if constexpr (Op == ReduceOp::Prod)
      return acc * x;
    else if constexpr (Op == ReduceOp::NanSum)
      return x != x ? acc : acc + x;
    else if constexpr (Op == ReduceOp::Max)
      return (acc != acc || x <= acc) ? acc : x;  // NaN sticks
    else
      return (acc != acc || x >= acc) ? acc : x;
  }
  template <class A>
  static A merge(A a, A b) {
    if constexpr (Op == ReduceOp::Sum || Op == ReduceOp::NanSum || Op == ReduceOp::CountNonzero)
      return a + b;
    else if constexpr (Op == ReduceOp::Prod)
      return a * b;
    else if constexpr (Op == ReduceOp::Max)
      return (a != a || b <= a) ? a : b;
    else if constexpr (Op == ReduceOp::Min)
      return (a != a || b >= a) ? a : b;
    else if constexpr (Op == ReduceOp::All)
      return a && b;
    else
      return a || b;
  }
};

// Note [Reduction lanes]
// The folds below keep kLanes<Acc> independent accumulators (four 32-byte AVX2 vectors' worth) as plain arrays
// stepped by the policy in unrolled loops, which the compiler turns into vector code for every dtype it can
// (float sums and maxima included: the steps are elementwise selects and adds). Four vectors hide the adds' latency;
// after the wide loop the lanes fold down to one vector, which takes whole vectors of what is left, then to one
// value, which takes the tail (rows shorter than four lanes' worth use one vector; rows shorter than a vector are
// folded one element at a time). The lanes start from the first elements, not from a fill. Sums are pairwise
// above leaves of kLeaf elements (each lane adds at most kLeaf / kLanes elements in a row), so float sums keep
// O(log n) error; every order depends only on the sizes, never on the threads.
template <class Acc>
constexpr int64_t kVector = std::max<int64_t>(1, 32 / static_cast<int64_t>(sizeof(Acc)));
template <class Acc>
constexpr int64_t kLanes = 4 * kVector<Acc>;
// Products use short leaves: a lane's partial product over kLeaf elements overflows long before the whole does (a
// periodic pattern of 2, 0.5, ... gives one lane the 2s and another the 0.5s: inf * 0; PyTorch's product is NaN).
template <ReduceOp Op>
constexpr int64_t kLeaf = Op == ReduceOp::Prod ? 128 : 8192;

// acc[0, To) <- acc[0, W) folded by P::merge, halving W (powers of two; constants, so that the lanes stay in
// registers).
template <class P, int64_t W, int64_t To, class Acc>
[[gnu::always_inline]] inline void fold_lanes(Acc* acc) {
  if constexpr (W > To) {
    for (int64_t k = 0; k < W / 2; ++k) acc[k] = P::merge(acc[k], acc[k + W / 2]);
    fold_lanes<P, W / 2, To>(acc);
  }
}

// The reduction of n >= 1 contiguous elements (n <= kLeaf<Op>, for sums to stay pairwise).
template <class T, ReduceOp Op>
[[gnu::always_inline]] inline typename Policy<T, Op>::Acc fold_leaf(const T* x, int64_t n) {
  using P = Policy<T, Op>;
  using Acc = typename P::Acc;
  constexpr int64_t V = kVector<Acc>, L = kLanes<Acc>;
  if constexpr (P::kVectors) {  // the same folds in vector registers (the compiler leaves short rows scalar)
    using Vec = lanes::Vec<T>;
    static_assert(lanes::kWidth<T> == V);
    if (n >= V) {
      auto at = [x](int64_t i) {
        Vec v;
        std::memcpy(&v, x + i, sizeof v);
        return v;
      };
      auto first = [&](int64_t i) {  // a lane's first step (a sum's from zero: nansum skips a leading NaN too)
        if constexpr (Op == ReduceOp::Max || Op == ReduceOp::Min || Op == ReduceOp::Prod)
          return at(i);
        else
          return P::combine(Vec{}, at(i));
      };
      Vec a0 = first(0);
      int64_t i = V;
      if (n >= 4 * L) {
        Vec a1 = first(V), a2 = first(2 * V), a3 = first(3 * V);
        for (i = L; i + L <= n; i += L) {
          a0 = P::combine(a0, at(i));
          a1 = P::combine(a1, at(i + V));
          a2 = P::combine(a2, at(i + 2 * V));
          a3 = P::combine(a3, at(i + 3 * V));
        }
        a0 = P::merge(P::merge(a0, a1), P::merge(a2, a3));
      }
      for (; i + V <= n; i += V) a0 = P::combine(a0, at(i));
      Acc r = a0[0];
      for (int64_t k = 1; k < V; ++k) r = P::merge(r, static_cast<Acc>(a0[k]));
      for (; i < n; ++i) r = P::step(r, x[i]);
      return r;
    }
  }
  if (n < V) {
    Acc a = P::first(x[0]);
    for (int64_t i = 1; i < n; ++i) a = P::step(a, x[i]);
    return a;
  }
  Acc acc[L];  // lanes start from the first elements (no fill: a memset per short row cost more than its adds)
  int64_t i = 0;
  if (n >= 4 * L) {
    for (; i < L; ++i) acc[i] = P::first(x[i]);
    for (; i + L <= n; i += L)
      for (int64_t k = 0; k < L; ++k) acc[k] = P::step(acc[k], x[i + k]);
    fold_lanes<P, L, V>(acc);
  } else {
    for (; i < V; ++i) acc[i] = P::first(x[i]);
  }
  for (; i + V <= n; i += V)
    for (int64_t k = 0; k < V; ++k) acc[k] = P::step(acc[k], x[i + k]);
  fold_lanes<P, V, 1>(acc);
  for (; i < n; ++i) acc[0] = P::step(acc[0], x[i]);
  return acc[0];
}

// The reduction of n >= 1 contiguous elements: leaves combined as a binary tree. (The lanes replaced a float32-only
// AVX2 sum, which had taken 16M floats on one core from 2.5 ms to 1.4 ms, PyTorch 2.15's one-thread time.)
template <class T, ReduceOp Op>
typename Policy<T, Op>::Acc fold_contiguous(const T* x, int64_t n) {
  constexpr int64_t leaf = kLeaf<Op>;
  if (n > leaf) {
    const int64_t half = (n / 2 + leaf - 1) / leaf * leaf;
    const auto left = fold_contiguous<T, Op>(x, half);  // first: memory in order (arguments have no order)
    return Policy<T, Op>::merge(left, fold_contiguous<T, Op>(x + half, n - half));
  }
  return fold_leaf<T, Op>(x, n);
}

// The reduction of n >= 1 elements at p, s bytes apart (s not the element size): blocks of 128, each with 8
// accumulators, combined as a binary tree.
template <class T, ReduceOp Op>
typename Policy<T, Op>::Acc reduce_strided(const char* p, int64_t n, int64_t s) {
  using P = Policy<T, Op>;
  using Acc = typename P::Acc;
  constexpr int64_t kBlock = 128;
  if (n > kBlock) {
    const int64_t half = (n / 2 + kBlock - 1) / kBlock * kBlock;
    const Acc left = reduce_strided<T, Op>(p, half, s);
    return P::merge(left, reduce_strided<T, Op>(p + half * s, n - half, s));
  }
  auto at = [&](int64_t i) { return *reinterpret_cast<const T*>(p + i * s); };
  Acc acc[8];
  for (Acc& a : acc) a = P::lane(at(0));
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) acc[k] = P::step(acc[k], at(i + k));
  for (; i < n; ++i) acc[0] = P::step(acc[0], at(i));
  fold_lanes<P, 8, 1>(acc);
  return acc[0];
}

// The reduction of n >= 1 elements at p with byte stride s.
template <class T, ReduceOp Op>
typename Policy<T, Op>::Acc reduce_run(const char* p, int64_t n, int64_t s) {
  if (s == static_cast<int64_t>(sizeof(T))) return fold_contiguous<T, Op>(reinterpret_cast<const T*>(p), n);
  return reduce_strided<T, Op>(p, n, s);
}

// Byte offsets (input, output) of consecutive linear indices over `dims` (inner-first), from `i` on: an odometer,
// so that walking outputs or rows costs no division.
struct Walker {
  const std::vector<Dim>& dims;
  std::vector<int64_t> idx;
  int64_t in = 0, out = 0;
  Walker(const std::vector<Dim>& d, int64_t i) : dims(d), idx(d.size()) {
    for (size_t k = 0; k < d.size(); ++k) {
      idx[k] = i % d[k].size;
      i /= d[k].size;
      in += idx[k] * d[k].in_stride;
      out += idx[k] * d[k].out_stride;
    }
  }
  void next() {
    for (size_t k = 0; k < dims.size(); ++k) {
      in += dims[k].in_stride;
      out += dims[k].out_stride;
      if (++idx[k] < dims[k].size) return;
      in -= dims[k].size * dims[k].in_stride;
      out -= dims[k].size * dims[k].out_stride;
      idx[k] = 0;
    }
  }
};

// Reduction of the reduced-space elements [b, e) below the input offset `base`. A range spanning several
// runs of the innermost reduced dim is split at a run boundary near its middle, so that many short runs
// also combine pairwise (not one after the other, which for float sums is naive summation).
template <class T, ReduceOp Op>
typename Policy<T, Op>::Acc reduce_range(const char* base, const std::vector<Dim>& red, int64_t b, int64_t e) {
  using P = Policy<T, Op>;
  const int64_t size = red[0].size;
  if (b / size == (e - 1) / size)  // within one run
    return reduce_run<T, Op>(base + offsets(red, b).first, e - b, red[0].in_stride);
  int64_t mid = (b + (e - b) / 2) / size * size;
  if (mid <= b) mid = (b / size + 1) * size;
  const auto left = reduce_range<T, Op>(base, red, b, mid);
  return P::merge(left, reduce_range<T, Op>(base, red, mid, e));
}

// Note [Outer blocking]
// The outer strategy accumulates a block of up to kOuterBytes of outputs (a whole row of a [4096, 4096] float32
// tensor, 16 KiB, which stays in L1) while it streams the rows below it in memory order; narrower blocks made every
// row a jump to another page, which the prefetchers do not follow (sum(0) of [4096, 4096] ran at 1.29 x PyTorch's
// time with blocks of 256). Rows are taken in blocks of kRowBlock, and the blocks' results combined as a binary tree
// (a binary counter of partial results, level l holding 2^l blocks), so long outer sums keep O(log n) error.
constexpr int64_t kOuterBytes = 16384;
constexpr int64_t kRowBlock = 128;
template <class Acc>
constexpr int64_t kOuterChunk = kOuterBytes / static_cast<int64_t>(sizeof(Acc));

// Scratch for reduce_rows over n rows of m outputs.
template <class Acc>
std::unique_ptr<Acc[]> rows_scratch(int64_t n, int64_t m) {
  const int levels = std::bit_width(static_cast<uint64_t>((n + kRowBlock - 1) / kRowBlock));
  return std::make_unique<Acc[]>(static_cast<size_t>((levels + 1) * m));
}

// Note [Narrow outer reductions]
// Rows of a few outputs (sum(0) of a [4096, 8] tensor) paid the loop over the row's m outputs and the Walker's step
// once per row: 17 us at one thread, PyTorch 2.9. Where such rows follow one another in memory, each row is read as
// kNarrow elements, the ones past m belonging to the next rows and accumulated into lanes that are dropped, by a loop
// the compiler turns into whole vector operations; the last rows, whose reads would leave the range, go element by
// element. The result is the same fold, row by row, in each output's lane.
constexpr int64_t kNarrow = 16;

// a[j] for j < m over the n rows of m contiguous elements at base + w.in along w's one dim, w then moved past them:
// narrow rows that follow one another through the lanes, others stepped by pointer rather than by the Walker (out
// of line: inlined into reduce_rows' block, it slowed the general loop by half).
template <class T, ReduceOp Op>
[[gnu::noinline]] void one_dim_rows(const char* base, Walker& w, int64_t n, int64_t m, typename Policy<T, Op>::Acc* a) {
  using P = Policy<T, Op>;
  using Acc = typename P::Acc;
  const T* x = reinterpret_cast<const T*>(base + w.in);
  const int64_t rs = w.dims[0].in_stride;
  w.idx[0] += n;  // a single reduced dim
  w.in += n * rs;
  if (m >= kNarrow || rs != m * static_cast<int64_t>(sizeof(T)) || n * m < kNarrow) {  // rows stepped by pointer
    for (int64_t j = 0; j < m; ++j) a[j] = P::first(x[j]);
    for (int64_t k = 1; k < n; ++k) {
      const T* __restrict row = reinterpret_cast<const T*>(reinterpret_cast<const char*>(x) + k * rs);
#pragma GCC unroll 4  // (more work per iteration: Note [Loop alignment] in loops.h)
      for (int64_t j = 0; j < m; ++j) a[j] = P::step(a[j], row[j]);
    }
    return;
  }
  const int64_t whole = (n * m - kNarrow) / m + 1;  // rows k with k * m + kNarrow <= n * m
  Acc lanes[kNarrow];
  if constexpr (P::kVectors) {  // in vector registers: GCC leaves the extrema's NaN-keeping select scalar
    using Vec = lanes::Vec<T>;
    constexpr int64_t W = lanes::kWidth<T>, NV = kNarrow / W;
    Vec v[NV];
    for (int64_t q = 0; q < NV; ++q) {
      std::memcpy(&v[q], x + q * W, sizeof(Vec));
      // a sum's lanes start from zero, as fold_leaf's (nansum skips a leading NaN; -0 sums to +0 as elsewhere)
      if constexpr (Op == ReduceOp::Sum || Op == ReduceOp::NanSum) v[q] = P::combine(Vec{}, v[q]);
    }
    for (int64_t k = 1; k < whole; ++k)
      for (int64_t q = 0; q < NV; ++q) {
        Vec r;
        std::memcpy(&r, x + k * m + q * W, sizeof(Vec));
        v[q] = P::combine(v[q], r);
      }
    std::memcpy(lanes, v, sizeof lanes);
  } else {
    for (int64_t j = 0; j < kNarrow; ++j) lanes[j] = P::first(x[j]);
    for (int64_t k = 1; k < whole; ++k) {
      const T* row = x + k * m;
      for (int64_t j = 0; j < kNarrow; ++j) lanes[j] = P::step(lanes[j], row[j]);
    }
  }
  for (int64_t k = whole; k < n; ++k)
    for (int64_t j = 0; j < m; ++j) lanes[j] = P::step(lanes[j], x[k * m + j]);
  std::copy(lanes, lanes + m, a);
}

// acc[j] for j < m: the reduction of rows [r0, r1) of the outer strategy, row k starting at
// base + offsets(red, k) with its m elements `stride` bytes apart (Note [Outer blocking]).
template <class T, ReduceOp Op>
void reduce_rows(const char* base, const std::vector<Dim>& red, int64_t stride, int64_t m, int64_t r0, int64_t r1,
                 typename Policy<T, Op>::Acc* acc, typename Policy<T, Op>::Acc* scratch) {
  using P = Policy<T, Op>;
  using Acc = typename P::Acc;
  Walker w(red, r0);
  const bool one_dim = red.size() == 1 && stride == static_cast<int64_t>(sizeof(T));
  auto block = [&](int64_t k0, int64_t k1, Acc* __restrict a) {
    if (one_dim) return one_dim_rows<T, Op>(base, w, k1 - k0, m, a);
    const char* row = base + w.in;
    for (int64_t j = 0; j < m; ++j) a[j] = P::first(*reinterpret_cast<const T*>(row + j * stride));
    for (int64_t k = k0 + 1; k < k1; ++k) {
      w.next();
      row = base + w.in;
      if (stride == static_cast<int64_t>(sizeof(T))) {
        const T* __restrict x = reinterpret_cast<const T*>(row);
#pragma GCC unroll 4  // (more work per iteration: Note [Loop alignment] in loops.h)
        for (int64_t j = 0; j < m; ++j) a[j] = P::step(a[j], x[j]);
      } else {
        for (int64_t j = 0; j < m; ++j) a[j] = P::step(a[j], *reinterpret_cast<const T*>(row + j * stride));
      }
    }
    w.next();
  };
  const int64_t blocks = (r1 - r0 + kRowBlock - 1) / kRowBlock;
  if (blocks == 1) return block(r0, r1, acc);
  const int levels = std::bit_width(static_cast<uint64_t>(blocks));
  Acc* cur = scratch + levels * m;
  for (int64_t b = 0; b < blocks; ++b) {
    block(r0 + b * kRowBlock, std::min(r1, r0 + (b + 1) * kRowBlock), cur);
    int l = 0;
    for (int64_t c = b; c & 1; c >>= 1, ++l) {
      const Acc* left = scratch + l * m;
      for (int64_t j = 0; j < m; ++j) cur[j] = P::merge(left[j], cur[j]);
    }
    std::copy(cur, cur + m, scratch + l * m);
  }
  bool any = false;  // level l is full where bit l of the block count is set; the highest holds the first rows
  for (int l = levels - 1; l >= 0; --l) {
    if (!(blocks >> l & 1)) continue;
    const Acc* part = scratch + l * m;
    for (int64_t j = 0; j < m; ++j) acc[j] = any ? P::merge(acc[j], part[j]) : part[j];
    any = true;
  }
}

template <class T, ReduceOp Op>
void reduce_typed(const Tensor& out, const Tensor& in) {
  using P = Policy<T, Op>;
  using Acc = typename P::Acc;
  const Geometry g = make_geometry(out, in);
  const char* ip = static_cast<const char*>(in.data_ptr());
  char* op = static_cast<char*>(out.data_ptr());
  const StoreFn store = store_fn(scalar_type_of<Acc>, out.dtype());
  const bool typed = out.dtype() == scalar_type_of<T>;  // sums, maxima: a cast, not a call per output
  auto write = [&](char* dst, Acc v) {
    if (typed)
      *reinterpret_cast<T*>(dst) = static_cast<T>(v);
    else
      store(reinterpret_cast<const char*>(&v), dst, 0, 1);
  };

  if (g.n_red == 0 || g.red.empty()) {  // nothing to reduce: each output is init (empty) or its element
    parallel_for(0, g.n_out, kGrainSize, [&](int64_t b, int64_t e) {
      for (Walker w(g.kept, b); b < e; ++b, w.next())
        write(op + w.out, g.n_red == 0 ? P::init() : P::first(*reinterpret_cast<const T*>(ip + w.in)));
    });
    return;
  }

  const int threads = get_num_threads();
  if (g.inner || g.kept.empty()) {
    // A few long reductions split across threads from two chunks of the elementwise ops up: the tensor reduced was
    // usually just written by such an op, half of it in the other core's cache, which one thread reading it alone
    // pulled across (huber_loss of [64, 1024] at two threads: 29 us, at one 16; split: 13-16). A tensor that
    // stays in one cache pays the handoff instead: sum of 64K floats 3.0 -> 3.6 us.
    if (g.n_out >= threads || g.n_red < 2 * kGrainSize) {
      const int64_t grain = std::max<int64_t>(1, kGrainSize / g.n_red);
      const int64_t n = g.red[0].size, s = g.red[0].in_stride;
      parallel_for(0, g.n_out, grain, [&](int64_t b, int64_t e) {
        Walker w(g.kept, b);
        if (g.red.size() > 1) {
          for (; b < e; ++b, w.next()) write(op + w.out, reduce_range<T, Op>(ip + w.in, g.red, 0, g.n_red));
        } else if (s == static_cast<int64_t>(sizeof(T)) && n <= kLeaf<Op>) {  // short rows: the fold inlined
          for (; b < e; ++b, w.next()) write(op + w.out, fold_leaf<T, Op>(reinterpret_cast<const T*>(ip + w.in), n));
        } else {
          for (; b < e; ++b, w.next()) write(op + w.out, reduce_run<T, Op>(ip + w.in, n, s));
        }
      });
    } else {  // few outputs, long reductions: split each reduction across threads
      for (int64_t i = 0; i < g.n_out; ++i) {
        auto [a, o] = offsets(g.kept, i);
        // Not std::vector<Acc>: for all/any Acc is bool, and std::vector<bool> packs the parts into the bits of one
        // word, so two threads storing theirs raced and one could be lost (x.all() was False for an all-true x).
        std::unique_ptr<Acc[]> parts(new Acc[threads]());
        std::vector<char> used(threads, 0);
        const int64_t per = (g.n_red + threads - 1) / threads;
        parallel_for(0, threads, 1, [&](int64_t b, int64_t e) {
          for (int64_t t = b; t < e; ++t) {
            const int64_t lo = t * per, hi = std::min(g.n_red, lo + per);
            if (lo < hi) {
              parts[t] = reduce_range<T, Op>(ip + a, g.red, lo, hi);
              used[t] = 1;
            }
          }
        });
        Acc acc{};
        bool first = true;
        for (int t = 0; t < threads; ++t)
          if (used[t]) {
            acc = first ? parts[t] : P::merge(acc, parts[t]);
            first = false;
          }
        write(op + o, acc);
      }
    }
    return;
  }

  // Outer strategy: the innermost dim is kept; accumulate whole rows of it (Note [Outer blocking]).
  const Dim k0 = g.kept[0];
  const std::vector<Dim> rest(g.kept.begin() + 1, g.kept.end());
  const int64_t n_rest = g.n_out / k0.size, chunk = std::min(kOuterChunk<Acc>, k0.size);
  const int64_t chunks = (k0.size + chunk - 1) / chunk;
  if (n_rest * chunks < threads && g.n_red * chunk >= 4 * kGrainSize) {
    // Fewer column blocks than threads (a tall, thin input): split the rows instead, then merge.
    const int64_t per = (g.n_red + threads - 1) / threads;
    auto parts = std::make_unique<Acc[]>(static_cast<size_t>(threads * chunk));
    for (int64_t w = 0; w < n_rest * chunks; ++w) {
      const int64_t r = w / chunks, c0 = (w % chunks) * chunk, m = std::min(chunk, k0.size - c0);
      auto [a, o] = offsets(rest, r);
      const char* base = ip + a + c0 * k0.in_stride;
      parallel_for(0, threads, 1, [&](int64_t b, int64_t e) {
        auto scratch = rows_scratch<Acc>(per, m);
        for (int64_t t = b; t < e; ++t)
          if (t * per < g.n_red)
            reduce_rows<T, Op>(base, g.red, k0.in_stride, m, t * per, std::min(g.n_red, (t + 1) * per),
                               parts.get() + t * chunk, scratch.get());
      });
      for (int64_t j = 0; j < m; ++j) {
        Acc acc = parts[j];
        for (int64_t t = 1; t < threads && t * per < g.n_red; ++t) acc = P::merge(acc, parts[t * chunk + j]);
        write(op + o + (c0 + j) * k0.out_stride, acc);
      }
    }
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kGrainSize / (chunk * g.n_red));
  parallel_for(0, n_rest * chunks, grain, [&](int64_t b, int64_t e) {
    auto acc = std::make_unique<Acc[]>(static_cast<size_t>(chunk));
    auto scratch = rows_scratch<Acc>(g.n_red, chunk);
    for (int64_t w = b; w < e; ++w) {
      const int64_t r = w / chunks, c0 = (w % chunks) * chunk, m = std::min(chunk, k0.size - c0);
      auto [a, o] = offsets(rest, r);
      const char* base = ip + a + c0 * k0.in_stride;
      reduce_rows<T, Op>(base, g.red, k0.in_stride, m, 0, g.n_red, acc.get(), scratch.get());
      for (int64_t j = 0; j < m; ++j) write(op + o + (c0 + j) * k0.out_stride, acc[j]);
    }
  });
}

void reduce(ReduceOp op, const Tensor& out, const Tensor& in) {
  if (is_complex(in.dtype())) {  // sums (pairwise, as the real ones; a NaN part makes x != x) and products
    dispatch_complex(in.dtype(), [&](auto v) {
      using T = decltype(v);
      switch (op) {
        case ReduceOp::Sum: return reduce_typed<T, ReduceOp::Sum>(out, in);
        case ReduceOp::NanSum: return reduce_typed<T, ReduceOp::NanSum>(out, in);
        case ReduceOp::Prod: return reduce_typed<T, ReduceOp::Prod>(out, in);
        default:
          fail<NotImplementedError>("\"", reduce_op_name(op), "_cpu\" not implemented for '", type_label(in.dtype()),
                                    "'");
      }
    });
    return;
  }
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    switch (op) {
      case ReduceOp::Sum: return reduce_typed<T, ReduceOp::Sum>(out, in);
      case ReduceOp::NanSum: return reduce_typed<T, ReduceOp::NanSum>(out, in);
      case ReduceOp::Prod: return reduce_typed<T, ReduceOp::Prod>(out, in);
      case ReduceOp::Max: return reduce_typed<T, ReduceOp::Max>(out, in);
      case ReduceOp::Min: return reduce_typed<T, ReduceOp::Min>(out, in);
      case ReduceOp::All: return reduce_typed<T, ReduceOp::All>(out, in);
      case ReduceOp::Any: return reduce_typed<T, ReduceOp::Any>(out, in);
      case ReduceOp::CountNonzero: return reduce_typed<T, ReduceOp::CountNonzero>(out, in);
    }
  });
}

// Max or Min with the index of the first occurrence (NaN first of all). A contiguous reduced dim takes two passes
// over each row (the second stops at the index and reads what the first brought into cache): the extremum by the
// vector-lane folds, then a scan for the first element equal to it (argmax over rows of 4096 floats: twice as fast
// as one branchy pass). A reduced dim across adjacent outputs' columns is walked row by row for blocks of columns.
void reduce_with_index(ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  const int64_t n = in.dim() ? in.sizes()[dim] : 1, s = in.dim() ? in.strides()[dim] : 0;
  // Iterate the outputs through a view of the input with the reduced dim collapsed to size 1.
  DimVector osz(in.sizes());
  if (in.dim()) osz[dim] = 1;
  Tensor base = as_strided(in, osz, in.strides(), in.storage_offset());
  StridedIter it = StridedIter::make({&values, &indices, &base}, values.sizes());
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    using A = Acc<T>;
    const bool is_max = op == ReduceOp::Max;
    for_each_run(
        it,
        [&](char** p, const int64_t* st, int64_t m) {
          if (s != 1 && n > 1 && m > 1 && st[2] == static_cast<int64_t>(sizeof(T))) {
            // Adjacent outputs read adjacent columns: walk the rows in memory order, a block of columns at a time
            // (one column at a time reads a cache line per element), with selects that vectorize.
            constexpr int64_t kCols = 1024;
            A best[kCols];
            int64_t at[kCols];
            for (int64_t j0 = 0; j0 < m; j0 += kCols) {
              const int64_t w = std::min(kCols, m - j0);
              const T* x0 = reinterpret_cast<const T*>(p[2]) + j0;
              for (int64_t j = 0; j < w; ++j) {
                best[j] = static_cast<A>(x0[j]);
                at[j] = 0;
              }
              for (int64_t k = 1; k < n; ++k) {
                const T* row = x0 + k * s;
                for (int64_t j = 0; j < w; ++j) {  // NaN wins, and the first of equals stays
                  const A y = static_cast<A>(row[j]), b = best[j];
                  const bool take = b == b && (y != y || (is_max ? y > b : y < b));
                  best[j] = take ? y : b;
                  at[j] = take ? k : at[j];
                }
              }
              for (int64_t j = 0; j < w; ++j) {
                *reinterpret_cast<T*>(p[0] + (j0 + j) * st[0]) = static_cast<T>(best[j]);
                *reinterpret_cast<int64_t*>(p[1] + (j0 + j) * st[1]) = at[j];
              }
            }
            return;
          }
          for (int64_t i = 0; i < m; ++i) {
            const T* x = reinterpret_cast<const T*>(p[2] + i * st[2]);
            if (s == 1) {  // a contiguous row: its extremum by the vector folds, then the first element equal to it
              const A best = is_max ? fold_contiguous<T, ReduceOp::Max>(x, n) : fold_contiguous<T, ReduceOp::Min>(x, n);
              int64_t bi = 0;
              if (best != best) {
                while (bi + 1 < n && !(static_cast<A>(x[bi]) != static_cast<A>(x[bi]))) ++bi;
              } else {
                while (bi + 1 < n && static_cast<A>(x[bi]) != best) ++bi;
              }
              *reinterpret_cast<T*>(p[0] + i * st[0]) = x[bi];
              *reinterpret_cast<int64_t*>(p[1] + i * st[1]) = bi;
              continue;
            }
            A best = static_cast<A>(x[0]);
            int64_t bi = 0;
            for (int64_t k = 1; k < n && best == best; ++k) {
              const A y = static_cast<A>(x[k * s]);
              if (y != y || (is_max ? y > best : y < best)) {
                best = y;
                bi = k;
              }
            }
            *reinterpret_cast<T*>(p[0] + i * st[0]) = static_cast<T>(best);
            *reinterpret_cast<int64_t*>(p[1] + i * st[1]) = bi;
          }
        },
        std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n, 1)));
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(reduce, CPU, reduce)
EMBER_REGISTER_KERNEL(reduce_with_index, CPU, reduce_with_index)

}  // namespace ember::cpu
