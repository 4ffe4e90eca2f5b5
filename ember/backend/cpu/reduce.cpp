// CPU reductions (Note [Reductions]).
//
// Note [Reductions]
// The input's dims (size-1 dims dropped) are sorted by stride and merged where contiguous, then split
// into kept dims (those of the output) and reduced dims. If the innermost dim is reduced, each output
// is the reduction of a strided range ("inner" strategy; pairwise for floating sums, split across
// threads when there are fewer outputs than threads). If the innermost dim is kept, the reduced
// elements of a whole contiguous row of outputs are accumulated together, which vectorizes ("outer"
// strategy, e.g. summing a [N, C] tensor over N); blocks of 128 rows are combined pairwise, and so are
// the runs of a strided inner reduction, so float sums keep O(log n) error in every layout.
// Accumulators: float for 16-bit floats, int64 for integer sums and products.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/binary.h"
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
  // The accumulator of a single element.
  static Acc first(T v) {
    if constexpr (Op == ReduceOp::Max || Op == ReduceOp::Min)
      return static_cast<Acc>(v);
    else
      return step(init(), v);
  }
  static Acc merge(Acc a, Acc b) {
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

// A contiguous float32 sum, pairwise: leaves of 2048 elements summed in four 8-lane AVX2 accumulators (four registers
// hide the adds' latency; each lane adds 64 elements in a row), leaves combined as a binary tree. On 16M floats one
// core went from 2.5 ms (the generic leaves of 128, whose recursion cost more than the adds) to 1.4 ms, PyTorch
// 2.15's one-thread time.
float sum_floats(const float* x, int64_t n) {
  constexpr int64_t kLeaf = 2048;
  if (n > kLeaf) {
    const int64_t half = (n / 2 + kLeaf - 1) / kLeaf * kLeaf;
    return sum_floats(x, half) + sum_floats(x + half, n - half);
  }
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = _mm256_add_ps(a0, _mm256_loadu_ps(x + i));
    a1 = _mm256_add_ps(a1, _mm256_loadu_ps(x + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_loadu_ps(x + i + 16));
    a3 = _mm256_add_ps(a3, _mm256_loadu_ps(x + i + 24));
  }
  for (; i + 8 <= n; i += 8) a0 = _mm256_add_ps(a0, _mm256_loadu_ps(x + i));
  const __m256 v = _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3));
  const __m128 h = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 q = _mm_add_ps(h, _mm_movehl_ps(h, h));
  float acc = _mm_cvtss_f32(_mm_add_ss(q, _mm_movehdup_ps(q)));
  float tail = 0;
  for (; i < n; ++i) tail += x[i];
  return acc + tail;
}

template <class T, ReduceOp Op>
typename Policy<T, Op>::Acc reduce_strided(const char* p, int64_t n, int64_t s);

// Reduction of n elements at p with byte stride s. Sums are pairwise: blocks of 128 summed with 8
// accumulators (contiguous float32: sum_floats), blocks combined as a binary tree.
template <class T, ReduceOp Op>
typename Policy<T, Op>::Acc reduce_run(const char* p, int64_t n, int64_t s) {
  using P = Policy<T, Op>;
  using Acc = typename P::Acc;
  if constexpr (Op == ReduceOp::Max || Op == ReduceOp::Min) {
    Acc acc = static_cast<Acc>(*reinterpret_cast<const T*>(p));
    for (int64_t i = 1; i < n; ++i) acc = P::step(acc, *reinterpret_cast<const T*>(p + i * s));
    return acc;
  } else if constexpr (std::is_same_v<T, float> && Op == ReduceOp::Sum) {
    if (s == sizeof(float)) return sum_floats(reinterpret_cast<const float*>(p), n);
    return reduce_strided<T, Op>(p, n, s);
  } else {
    return reduce_strided<T, Op>(p, n, s);
  }
}

template <class T, ReduceOp Op>
typename Policy<T, Op>::Acc reduce_strided(const char* p, int64_t n, int64_t s) {
  using P = Policy<T, Op>;
  using Acc = typename P::Acc;
  {
    constexpr int64_t kBlock = 128;
    if (n > kBlock) {
      const int64_t half = (n / 2 + kBlock - 1) / kBlock * kBlock;
      return P::merge(reduce_run<T, Op>(p, half, s), reduce_run<T, Op>(p + half * s, n - half, s));
    }
    Acc acc[8];
    for (Acc& a : acc) a = P::init();
    int64_t i = 0;
    if (s == sizeof(T)) {
      const T* x = reinterpret_cast<const T*>(p);
      for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; ++k) acc[k] = P::step(acc[k], x[i + k]);
    }
    for (; i < n; ++i) acc[0] = P::step(acc[0], *reinterpret_cast<const T*>(p + i * s));
    for (int k = 1; k < 8; ++k) acc[0] = P::merge(acc[0], acc[k]);
    return acc[0];
  }
}

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
  return P::merge(reduce_range<T, Op>(base, red, b, mid), reduce_range<T, Op>(base, red, mid, e));
}

constexpr int64_t kOuterChunk = 256;  // outputs accumulated together by the outer strategy

// acc[j] for j < m: the reduction of rows [r0, r1) of the outer strategy, row k starting at
// base + offsets(red, k) with its m elements `stride` bytes apart. Blocks of rows are combined pairwise,
// as reduce_run does along a row, so that long outer sums keep O(log n) error.
template <class T, ReduceOp Op>
void reduce_rows(const char* base, const std::vector<Dim>& red, int64_t stride, int64_t m, int64_t r0, int64_t r1,
                 typename Policy<T, Op>::Acc* acc) {
  using P = Policy<T, Op>;
  constexpr int64_t kBlock = 128;
  if (r1 - r0 > kBlock) {
    const int64_t half = ((r1 - r0) / 2 + kBlock - 1) / kBlock * kBlock;
    typename P::Acc tmp[kOuterChunk];
    reduce_rows<T, Op>(base, red, stride, m, r0, r0 + half, acc);
    reduce_rows<T, Op>(base, red, stride, m, r0 + half, r1, tmp);
    for (int64_t j = 0; j < m; ++j) acc[j] = P::merge(acc[j], tmp[j]);
    return;
  }
  const char* row = base + offsets(red, r0).first;
  for (int64_t j = 0; j < m; ++j) acc[j] = P::first(*reinterpret_cast<const T*>(row + j * stride));
  for (int64_t k = r0 + 1; k < r1; ++k) {
    row = base + offsets(red, k).first;
    if (stride == sizeof(T)) {
      const T* x = reinterpret_cast<const T*>(row);
      for (int64_t j = 0; j < m; ++j) acc[j] = P::step(acc[j], x[j]);
    } else {
      for (int64_t j = 0; j < m; ++j) acc[j] = P::step(acc[j], *reinterpret_cast<const T*>(row + j * stride));
    }
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
  auto write = [&](char* dst, Acc v) { store(reinterpret_cast<const char*>(&v), dst, 0, 1); };

  if (g.n_red == 0 || g.red.empty()) {  // nothing to reduce: each output is init (empty) or its element
    parallel_for(0, g.n_out, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        auto [a, o] = offsets(g.kept, i);
        write(op + o, g.n_red == 0 ? P::init() : P::first(*reinterpret_cast<const T*>(ip + a)));
      }
    });
    return;
  }

  const int threads = get_num_threads();
  if (g.inner || g.kept.empty()) {
    if (g.n_out >= threads || g.n_red < 4 * kGrainSize) {
      const int64_t grain = std::max<int64_t>(1, kGrainSize / g.n_red);
      parallel_for(0, g.n_out, grain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          auto [a, o] = offsets(g.kept, i);
          write(op + o, reduce_range<T, Op>(ip + a, g.red, 0, g.n_red));
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

  // Outer strategy: the innermost dim is kept; accumulate whole rows of it.
  const Dim k0 = g.kept[0];
  const std::vector<Dim> rest(g.kept.begin() + 1, g.kept.end());
  const int64_t n_rest = g.n_out / k0.size, chunk = kOuterChunk;
  const int64_t chunks = (k0.size + chunk - 1) / chunk;
  if (n_rest * chunks < threads && g.n_red * std::min(chunk, k0.size) >= 4 * kGrainSize) {
    // Fewer column blocks than threads (a tall, thin input): split the rows instead, then merge.
    for (int64_t w = 0; w < n_rest * chunks; ++w) {
      const int64_t r = w / chunks, c0 = (w % chunks) * chunk, m = std::min(chunk, k0.size - c0);
      auto [a, o] = offsets(rest, r);
      const char* base = ip + a + c0 * k0.in_stride;
      std::vector<std::array<Acc, chunk>> parts(threads);
      const int64_t per = (g.n_red + threads - 1) / threads;
      parallel_for(0, threads, 1, [&](int64_t b, int64_t e) {
        for (int64_t t = b; t < e; ++t)
          if (t * per < g.n_red)
            reduce_rows<T, Op>(base, g.red, k0.in_stride, m, t * per, std::min(g.n_red, (t + 1) * per),
                               parts[t].data());
      });
      for (int64_t j = 0; j < m; ++j) {
        Acc acc = parts[0][j];
        for (int64_t t = 1; t < threads && t * per < g.n_red; ++t) acc = P::merge(acc, parts[t][j]);
        write(op + o + (c0 + j) * k0.out_stride, acc);
      }
    }
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kGrainSize / (chunk * g.n_red));
  parallel_for(0, n_rest * chunks, grain, [&](int64_t b, int64_t e) {
    Acc acc[chunk];
    for (int64_t w = b; w < e; ++w) {
      const int64_t r = w / chunks, c0 = (w % chunks) * chunk, m = std::min(chunk, k0.size - c0);
      auto [a, o] = offsets(rest, r);
      const char* base = ip + a + c0 * k0.in_stride;
      reduce_rows<T, Op>(base, g.red, k0.in_stride, m, 0, g.n_red, acc);
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
          for (int64_t i = 0; i < m; ++i) {
            const T* x = reinterpret_cast<const T*>(p[2] + i * st[2]);
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
