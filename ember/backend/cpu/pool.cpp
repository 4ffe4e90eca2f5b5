// CPU pooling kernels. float32 goes to oneDNN's pooling (JIT code) wherever it computes what PyTorch does and has a
// JIT kernel for the layout (dnnl.h: max pooling's indices are derived from its workspace, and inputs holding NaN
// stay here, since oneDNN's max skips NaN where PyTorch's propagates it). The rest (float64, 1-d pooling and planes
// oneDNN has only generic loops for, adaptive pooling with uneven windows, divisor_override, ceil_mode overhang in
// include-padding averages, NaNs) runs here. Every window is given per dim as a span of input positions (regular
// and adaptive pooling differ only in how the spans are made); maxima and averages go by rows (Note [Separable max
// pooling]), the average's adjoint by windows. Planes split across threads. Channels-last tensors have their own
// loops (Note [Channels-last pooling]).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/dnnl.h"
#include "ember/backend/kernels/nn/pooling.h"
#include "ember/parallel.h"

namespace ember {
namespace {

// The input positions one output reads along one dim: `count` positions from `first`, `step` apart. div: this
// dim's factor of an average's divisor.
struct Span {
  int64_t first, count, step, div;
};

// The geometry padded to three dims (leading dims of size 1), with the spans of every output position.
struct Plan {
  std::array<std::vector<Span>, 3> spans;
  std::array<int64_t, 3> in{1, 1, 1};
  int64_t in_n = 1, out_n = 1, taps = 1;
  int64_t divisor_override = 0;
};

Span regular_span(int64_t o, int64_t in, int64_t k, int64_t s, int64_t pad, int64_t d, bool count_include_pad) {
  const int64_t start = o * s - pad;
  const int64_t jmin = start < 0 ? (-start + d - 1) / d : 0;  // the first tap inside the input
  const int64_t jmax = in - 1 - start >= 0 ? std::min(k - 1, (in - 1 - start) / d) : -1;
  const int64_t count = std::max<int64_t>(0, jmax - jmin + 1);
  // Average pooling (d = 1): with count_include_pad the divisor counts padding but not ceil_mode's overhang.
  const int64_t padded = std::min(start + k, in + pad) - start;
  return {start + jmin * d, count, d, count_include_pad ? padded : count};
}

Plan make_plan(const PoolGeometry& g) {
  Plan p;
  const size_t nsp = g.in.size(), off = 3 - nsp;
  for (size_t d = 0; d < off; ++d) p.spans[d] = {{0, 1, 1, 1}};
  for (size_t i = 0; i < nsp; ++i) {
    const int64_t in = g.in[i], out = g.out[i];
    std::vector<Span>& v = p.spans[off + i];
    for (int64_t o = 0; o < out; ++o) {
      if (g.adaptive()) {
        const int64_t a = o * in / out, b = ((o + 1) * in + out - 1) / out;
        v.push_back({a, b - a, 1, b - a});
      } else {
        v.push_back(regular_span(o, in, g.kernel[i], g.stride[i], g.padding[i], g.dilation[i], g.count_include_pad));
      }
    }
    p.in[off + i] = in;
    p.in_n *= in;
    p.out_n *= out;
    p.taps *= g.adaptive() ? (in + out - 1) / std::max<int64_t>(out, 1) + 1 : g.kernel[i];
  }
  p.divisor_override = g.divisor_override;
  return p;
}

// f(plane, output index within the plane, spans of the three dims) for every output; outputs of one plane run in
// order on one thread.
template <class F>
void pool_loop(const Plan& p, int64_t planes, F f) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, p.out_n * p.taps));
  parallel_for(0, planes, grain, [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl) {
      int64_t o = 0;
      for (const Span& sd : p.spans[0])
        for (const Span& sh : p.spans[1])
          for (const Span& sw : p.spans[2]) f(pl, o++, sd, sh, sw);
    }
  });
}

// f(offset within the plane of a row's first position, count, step) for every row (innermost-dim run) of one
// window, so that functors run their inner loops over a row.
template <class F>
inline void for_window(const Plan& p, const Span& sd, const Span& sh, const Span& sw, F f) {
  for (int64_t a = 0, id = sd.first; a < sd.count; ++a, id += sd.step)
    for (int64_t b = 0, ih = sh.first; b < sh.count; ++b, ih += sh.step)
      f((id * p.in[1] + ih) * p.in[2] + sw.first, sw.count, sw.step);
}

int64_t divisor(const Plan& p, const Span& sd, const Span& sh, const Span& sw) {
  return p.divisor_override ? p.divisor_override : sd.div * sh.div * sw.div;
}

// A sum in double over n consecutive elements, in eight independent lanes (which the compiler vectorizes).
template <class T>
double row_sum(const T* x, int64_t n) {
  double lane[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) lane[j] += x[i + j];
  double s = 0;
  for (; i < n; ++i) s += x[i];
  for (double v : lane) s += v;
  return s;
}

// Note [Separable max pooling]
// A window's maximum is the maximum over its rows (runs along the innermost dim) of each row's maximum, and so are
// PyTorch's tie rules: a tap replaces the best so far when it is larger or NaN, so the first maximum in the window's
// order (depth, height, width) wins, and the last NaN. Each plane is pooled in two passes: every input row's windows
// along the width (windows of 2-4 whole taps unrolled, and vectorized by the compiler where they tile the row,
// kernel == stride), then each output row folds its window's rows in order, a
// vectorized compare and select per row (a row in two windows is pooled for each, so no buffer of a plane's rows is
// needed). Walking every tap of every output through the generic window loop took 3-10 ns per output: `max_pool1d`
// of [16, 64, 256] by 2 ran 1665 us here, and 3100 in the generic loops oneDNN picks for row-major inputs it has no
// JIT kernel for (such primitives are declined now: fast_impl in dnnl.h); PyTorch 62.
template <class T>
inline bool takes(T v, T best) {
  return v > best || v != v;
}

// How one row's windows are walked: `spans` (max_pool's plan along the width), and the range [lo, hi) of outputs whose
// windows are whole, k consecutive taps from o * stride - pad, where k is 2, 3 or 4 (0: none such).
// Or, with `fours`, when there are none such and at least four windows, all of them nonempty: four_windows.
struct RowWindows {
  const std::vector<Span>* spans;
  int64_t k = 0, stride = 1, pad = 0, lo = 0, hi = 0;
  bool fours = false;
};

RowWindows row_windows(const Plan& p, const PoolGeometry& g) {
  RowWindows r{&p.spans[2]};
  const size_t w = g.in.size() - 1;
  if (g.adaptive() || g.dilation[w] != 1 || g.kernel[w] < 2 || g.kernel[w] > 4) {
    r.fours = p.spans[2].size() >= 4 && std::ranges::all_of(p.spans[2], [](const Span& s) { return s.count > 0; });
    return r;
  }
  r.k = g.kernel[w], r.stride = g.stride[w], r.pad = g.padding[w];
  const int64_t m = static_cast<int64_t>(p.spans[2].size());
  while (r.lo < m && p.spans[2][static_cast<size_t>(r.lo)].count != r.k) ++r.lo;
  r.hi = r.lo;
  while (r.hi < m && p.spans[2][static_cast<size_t>(r.hi)].count == r.k) ++r.hi;
  return r;
}

// The whole windows [lo, hi) of K taps, S apart (S == 0: `stride` apart, not known at compile time). With S == K
// the compiler vectorizes the loop.
template <class T, bool Index, int K, int S>
void whole_windows(const T* x, int64_t lo, int64_t hi, int64_t stride, int64_t pad, int64_t row_off, T* y,
                   int64_t* iy) {
  const int64_t st = S ? S : stride;
  for (int64_t o = lo; o < hi; ++o) {
    const int64_t first = o * st - pad;
    T best = x[first];
    int64_t at = first;
    for (int j = 1; j < K; ++j) {
      const T v = x[first + j];
      const bool t = takes(v, best);
      best = t ? v : best;
      at = t ? first + j : at;
    }
    y[o] = best;
    if constexpr (Index) iy[o] = row_off + at;
  }
}

template <class T, bool Index, int K>
void whole_windows(const T* x, const RowWindows& r, int64_t row_off, T* y, int64_t* iy) {
  if (r.stride == K) return whole_windows<T, Index, K, K>(x, r.lo, r.hi, K, r.pad, row_off, y, iy);
  whole_windows<T, Index, K, 0>(x, r.lo, r.hi, r.stride, r.pad, row_off, y, iy);
}

// Four windows of any spans, none empty, at once, as the lanes of GCC vectors: a compare and two selects per tap for
// all four, with no branch (a scalar window's compare and select, which GCC turns into a branch that random data
// mispredicts half the time, cost adaptive_max_pool2d of [8, 32, 32, 32] to 7x7 1684 us; PyTorch 808). A window
// shorter than the longest rereads its last tap, which changes nothing (a tap does not replace an equal best, and a
// NaN replaces itself at the same position).
template <class T>
struct Four;
template <>
struct Four<float> {
  typedef float V __attribute__((vector_size(16)));
  typedef int32_t M __attribute__((vector_size(16)));
};
template <>
struct Four<double> {
  typedef double V __attribute__((vector_size(32)));
  typedef int64_t M __attribute__((vector_size(32)));
};
typedef int64_t Index4 __attribute__((vector_size(32)));

template <class T, bool Index>
void four_windows(const T* x, const Span* s, int64_t row_off, T* y, int64_t* iy) {
  using V = typename Four<T>::V;
  using M = typename Four<T>::M;
  const Index4 first{s[0].first, s[1].first, s[2].first, s[3].first};
  const Index4 step{s[0].step, s[1].step, s[2].step, s[3].step};
  const Index4 last{s[0].count - 1, s[1].count - 1, s[2].count - 1, s[3].count - 1};
  const int64_t n = std::max({s[0].count, s[1].count, s[2].count, s[3].count});
  V best = V{} - std::numeric_limits<T>::infinity();
  Index4 at = first;
  for (int64_t c = 0; c < n; ++c) {
    const Index4 cv = Index4{} + c;
    const Index4 i = first + (cv < last ? cv : last) * step;
    const V v{x[i[0]], x[i[1]], x[i[2]], x[i[3]]};
    const M t = (v > best) | (v != v);
    best = t ? v : best;
    at = __builtin_convertvector(t, Index4) ? i : at;
  }
  for (int k = 0; k < 4; ++k) {
    y[k] = best[k];
    if constexpr (Index) iy[k] = row_off + at[k];
  }
}

// Row maxima over the windows of the row at x: y[o], and the position (row_off + column) of each in iy when indices
// are wanted.
template <class T, bool Index>
void row_max(const T* x, const RowWindows& r, int64_t row_off, T* y, int64_t* iy) {
  const std::vector<Span>& spans = *r.spans;
  const int64_t m = static_cast<int64_t>(spans.size());
  if (r.k == 2) whole_windows<T, Index, 2>(x, r, row_off, y, iy);
  if (r.k == 3) whole_windows<T, Index, 3>(x, r, row_off, y, iy);
  if (r.k == 4) whole_windows<T, Index, 4>(x, r, row_off, y, iy);
  if (r.fours) {  // the last four may start earlier and redo some windows, with the same results
    for (int64_t o = 0; o < m; o += 4) {
      const int64_t g = std::min(o, m - 4);
      four_windows<T, Index>(x, &spans[static_cast<size_t>(g)], row_off, y + g, Index ? iy + g : nullptr);
    }
    return;
  }
  for (int64_t o = 0; o < m; ++o) {
    if (o == r.lo && r.k) o = r.hi;
    if (o >= m) break;
    const Span& sw = spans[static_cast<size_t>(o)];
    T best = -std::numeric_limits<T>::infinity();
    int64_t at = sw.first;
    for (int64_t c = 0, i = sw.first; c < sw.count; ++c, i += sw.step) {
      const bool t = takes(x[i], best);
      best = t ? x[i] : best;
      at = t ? i : at;
    }
    y[o] = best;
    if constexpr (Index) iy[o] = row_off + at;
  }
}

template <class T, bool Index>
void max_pool_planes(const Plan& p, const RowWindows& rw, const T* x, T* y, int64_t* ix, int64_t planes) {
  const int64_t W = p.in[2], Wo = static_cast<int64_t>(p.spans[2].size());
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, p.in_n));
  parallel_for(0, planes, grain, [&](int64_t b, int64_t e) {
    std::vector<T> rv(static_cast<size_t>(Wo));  // one input row's maxima, folded into the output row
    std::vector<int64_t> ri(Index ? static_cast<size_t>(Wo) : 0);
    for (int64_t pl = b; pl < e; ++pl) {
      const T* xp = x + pl * p.in_n;
      T* yr = y + pl * p.out_n;
      int64_t* ir = Index ? ix + pl * p.out_n : nullptr;
      for (const Span& sd : p.spans[0])
        for (const Span& sh : p.spans[1]) {
          bool first = true;
          for (int64_t a = 0, id = sd.first; a < sd.count; ++a, id += sd.step)
            for (int64_t c = 0, ih = sh.first; c < sh.count; ++c, ih += sh.step) {
              const int64_t row = (id * p.in[1] + ih) * W;
              if (first) {  // the window's first row: straight into the output row
                row_max<T, Index>(xp + row, rw, row, yr, ir);
                first = false;
                continue;
              }
              row_max<T, Index>(xp + row, rw, row, rv.data(), ri.data());
              for (int64_t o = 0; o < Wo; ++o) {
                const bool t = takes(rv[o], yr[o]);
                yr[o] = t ? rv[o] : yr[o];
                if constexpr (Index) ir[o] = t ? ri[o] : ir[o];
              }
            }
          if (first) {  // a window with no rows inside the input
            std::fill(yr, yr + Wo, -std::numeric_limits<T>::infinity());
            if constexpr (Index)
              for (int64_t o = 0; o < Wo; ++o) ir[o] = (sd.first * p.in[1] + sh.first) * W + p.spans[2][o].first;
          }
          yr += Wo;
          if constexpr (Index) ir += Wo;
        }
    }
  });
}

template <class T>
void max_pool_impl(const Tensor& out, const Tensor& indices, const Tensor& input, const PoolGeometry& g) {
  const Plan p = make_plan(g);
  const RowWindows rw = row_windows(p, g);
  const int64_t planes = input.numel() / std::max<int64_t>(p.in_n, 1);
  if (indices.defined())
    max_pool_planes<T, true>(p, rw, input.data<T>(), out.data<T>(), indices.data<int64_t>(), planes);
  else
    max_pool_planes<T, false>(p, rw, input.data<T>(), out.data<T>(), nullptr, planes);
}

// Averages go by rows as maxima do (Note [Separable max pooling]): each window row's sum, in double, is added to its
// output's, in the order (and so with the bits) of a walk over the window's taps.
template <class T, int K, int S>
void add_whole_window_sums(const T* x, const RowWindows& r, double* acc) {
  const int64_t st = S ? S : r.stride;
  for (int64_t o = r.lo; o < r.hi; ++o) {
    const T* w = x + o * st - r.pad;
    double sum = 0;
    for (int j = 0; j < K; ++j) sum += w[j];
    acc[o] += sum;
  }
}

template <class T, int K>
void add_whole_window_sums(const T* x, const RowWindows& r, double* acc) {
  if (r.stride == K) return add_whole_window_sums<T, K, K>(x, r, acc);
  add_whole_window_sums<T, K, 0>(x, r, acc);
}

template <class T>
void add_row_sums(const T* x, const RowWindows& r, double* acc) {
  const std::vector<Span>& spans = *r.spans;
  const int64_t m = static_cast<int64_t>(spans.size());
  if (r.k == 2) add_whole_window_sums<T, 2>(x, r, acc);
  if (r.k == 3) add_whole_window_sums<T, 3>(x, r, acc);
  if (r.k == 4) add_whole_window_sums<T, 4>(x, r, acc);
  for (int64_t o = 0; o < m; ++o) {
    if (o == r.lo && r.k) o = r.hi;
    if (o >= m) break;
    const Span& sw = spans[static_cast<size_t>(o)];
    if (sw.step == 1) {
      acc[o] += row_sum(x + sw.first, sw.count);
    } else {
      double sum = 0;
      for (int64_t c = 0, i = sw.first; c < sw.count; ++c, i += sw.step) sum += x[i];
      acc[o] += sum;
    }
  }
}

template <class T>
void avg_pool_impl(const Tensor& out, const Tensor& input, const PoolGeometry& g) {
  const Plan p = make_plan(g);
  const RowWindows rw = row_windows(p, g);
  const T* x = input.data<T>();
  T* y = out.data<T>();
  const int64_t W = p.in[2], Wo = static_cast<int64_t>(p.spans[2].size());
  const int64_t planes = input.numel() / std::max<int64_t>(p.in_n, 1);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, p.in_n));
  parallel_for(0, planes, grain, [&](int64_t b, int64_t e) {
    std::vector<double> acc(static_cast<size_t>(Wo));
    for (int64_t pl = b; pl < e; ++pl) {
      const T* xp = x + pl * p.in_n;
      T* yr = y + pl * p.out_n;
      for (const Span& sd : p.spans[0])
        for (const Span& sh : p.spans[1]) {
          std::fill(acc.begin(), acc.end(), 0.0);
          for (int64_t a = 0, id = sd.first; a < sd.count; ++a, id += sd.step)
            for (int64_t c = 0, ih = sh.first; c < sh.count; ++c, ih += sh.step)
              add_row_sums(xp + (id * p.in[1] + ih) * W, rw, acc.data());
          for (int64_t o = 0; o < Wo; ++o) {
            const int64_t div = divisor(p, sd, sh, p.spans[2][static_cast<size_t>(o)]);
            yr[o] = div ? static_cast<T>(acc[static_cast<size_t>(o)] / div) : T(0);
          }
          yr += Wo;
        }
    }
  });
}

template <class T>
void avg_pool_backward_impl(const Tensor& grad_input, const Tensor& grad_out, const PoolGeometry& g) {
  const Plan p = make_plan(g);
  T* gx = grad_input.data<T>();
  const T* gy = grad_out.data<T>();
  pool_loop(p, grad_input.numel() / p.in_n, [&](int64_t pl, int64_t o, const Span& sd, const Span& sh, const Span& sw) {
    T* gp = gx + pl * p.in_n;
    if (o == 0) std::memset(gp, 0, sizeof(T) * p.in_n);
    const int64_t div = divisor(p, sd, sh, sw);
    if (!div) return;
    const T v = static_cast<T>(static_cast<double>(gy[pl * p.out_n + o]) / div);
    for_window(p, sd, sh, sw, [&](int64_t off, int64_t n, int64_t step) {
      for (int64_t c = 0, i = off; c < n; ++c, i += step) gp[i] += v;
    });
  });
}

// Note [Channels-last pooling]
// A channels-last tensor [N, C, *sp] is laid out as [N, *sp, C]: every pixel is a run of C consecutive values. So an
// output pixel is an elementwise max or sum over its window's pixels, each a C-vector read in memory order, and the
// inner loops run along C (which the compiler vectorizes); no copy to row-major and back. Forward: rows of output
// pixels (one image, one output row) split across threads. The average's adjoint adds into overlapping windows, so
// it splits images and blocks of channels instead. The windows, divisors and indices (the flat position within the
// image's D*H*W, as PyTorch's) are the row-major loops', so both layouts agree; the averages sum in T, as PyTorch's
// channels-last kernels do (the row-major loops sum in double). Max pooling tracks indices in an integer as wide as
// T, so the compare and both selects vectorize together.

// The pixel (flat position within an image's input) of each tap of one window, in the row-major loops' order.
template <class F>
inline void for_taps(const Plan& p, const Span& sd, const Span& sh, const Span& sw, F f) {
  for_window(p, sd, sh, sw, [&](int64_t off, int64_t n, int64_t step) {
    for (int64_t c = 0, i = off; c < n; ++c, i += step) f(i);
  });
}

// make() returns a functor f(image, output pixel (flat over the batch), spans); one per chunk of output rows.
template <class Make>
void cl_rows(const Plan& p, int64_t batch, int64_t channels, Make make) {
  const int64_t od = static_cast<int64_t>(p.spans[0].size()), oh = static_cast<int64_t>(p.spans[1].size()),
                ow = static_cast<int64_t>(p.spans[2].size());
  const int64_t row_work = std::max<int64_t>(1, ow * channels * p.taps);
  parallel_for(0, batch * od * oh, std::max<int64_t>(1, kGrainSize / row_work), [&](int64_t b, int64_t e) {
    auto f = make();
    for (int64_t r = b; r < e; ++r) {
      const int64_t h = r % oh, d = (r / oh) % od, n = r / (oh * od);
      for (int64_t w = 0; w < ow; ++w)
        f(n, r * ow + w, p.spans[0][static_cast<size_t>(d)], p.spans[1][static_cast<size_t>(h)],
          p.spans[2][static_cast<size_t>(w)]);
    }
  });
}

// Indices while searching: an integer as wide as T, so that the compare and both selects vectorize together.
template <class T>
using LaneIndex = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;

// max_pool_cl with int64 indices throughout (images of 2^31 positions or more).
template <class T>
void max_pool_cl_wide(const Plan& p, int64_t c, const Tensor& input, T* y, int64_t* ix) {
  const T* x = input.data<T>();
  cl_rows(p, input.size(0), c, [&] {
    return [&](int64_t n, int64_t o, const Span& sd, const Span& sh, const Span& sw) {
      const T* xn = x + n * p.in_n * c;
      T* __restrict yo = y + o * c;
      int64_t* __restrict io = ix + o * c;
      std::fill(yo, yo + c, -std::numeric_limits<T>::infinity());
      std::fill(io, io + c, (sd.first * p.in[1] + sh.first) * p.in[2] + sw.first);
      for_taps(p, sd, sh, sw, [&](int64_t i) {
        const T* __restrict xv = xn + i * c;
        for (int64_t k = 0; k < c; ++k) {
          const T v = xv[k];
          const bool take = v > yo[k] || v != v;
          yo[k] = take ? v : yo[k];
          io[k] = take ? i : io[k];
        }
      });
    };
  });
}

template <class T>
void max_pool_cl(const Tensor& out, const Tensor& indices, const Tensor& input, const PoolGeometry& g) {
  const Plan p = make_plan(g);
  const int64_t c = input.size(1);
  const T* x = input.data<T>();
  T* y = out.data<T>();
  int64_t* ix = indices.defined() ? indices.data<int64_t>() : nullptr;
  if (ix && p.in_n > std::numeric_limits<LaneIndex<T>>::max()) return max_pool_cl_wide<T>(p, c, input, y, ix);
  cl_rows(p, input.size(0), c, [&] {
    return [&, lanes = std::vector<LaneIndex<T>>(ix ? static_cast<size_t>(c) : 0)](
               int64_t n, int64_t o, const Span& sd, const Span& sh, const Span& sw) mutable {
      const T* xn = x + n * p.in_n * c;
      T* __restrict yo = y + o * c;
      std::fill(yo, yo + c, -std::numeric_limits<T>::infinity());
      if (ix) {
        LaneIndex<T>* __restrict at = lanes.data();
        std::fill(at, at + c, static_cast<LaneIndex<T>>((sd.first * p.in[1] + sh.first) * p.in[2] + sw.first));
        for_taps(p, sd, sh, sw, [&](int64_t i) {
          const T* __restrict xv = xn + i * c;
          const auto li = static_cast<LaneIndex<T>>(i);
          for (int64_t k = 0; k < c; ++k) {
            const T v = xv[k];
            const bool take = v > yo[k] || v != v;  // NaN propagates, as in PyTorch
            yo[k] = take ? v : yo[k];
            at[k] = take ? li : at[k];
          }
        });
        int64_t* __restrict io = ix + o * c;
        for (int64_t k = 0; k < c; ++k) io[k] = at[k];
      } else {
        for_taps(p, sd, sh, sw, [&](int64_t i) {
          const T* __restrict xv = xn + i * c;
          for (int64_t k = 0; k < c; ++k) {
            const T v = xv[k];
            yo[k] = v > yo[k] || v != v ? v : yo[k];
          }
        });
      }
    };
  });
}

template <class T>
void avg_pool_cl(const Tensor& out, const Tensor& input, const PoolGeometry& g) {
  const Plan p = make_plan(g);
  const int64_t c = input.size(1);
  const T* x = input.data<T>();
  T* y = out.data<T>();
  cl_rows(p, input.size(0), c, [&] {
    return [&](int64_t n, int64_t o, const Span& sd, const Span& sh, const Span& sw) {
      const T* xn = x + n * p.in_n * c;
      T* __restrict yo = y + o * c;  // the sums in T (as PyTorch's channels-last kernel), then the averages
      std::fill(yo, yo + c, T(0));
      for_taps(p, sd, sh, sw, [&](int64_t i) {
        const T* __restrict xv = xn + i * c;
        for (int64_t k = 0; k < c; ++k) yo[k] += xv[k];
      });
      const int64_t div = divisor(p, sd, sh, sw);
      if (!div) {
        std::fill(yo, yo + c, T(0));
        return;
      }
      const T d = static_cast<T>(div);
      for (int64_t k = 0; k < c; ++k) yo[k] /= d;
    };
  });
}

template <class T>
void avg_pool_backward_cl(const Tensor& grad_input, const Tensor& grad_out, const PoolGeometry& g) {
  const Plan p = make_plan(g);
  const int64_t batch = grad_input.size(0), c = grad_input.size(1);
  constexpr int64_t kBlock = 64;  // channels per task
  const int64_t blocks = (c + kBlock - 1) / kBlock;
  T* gx = grad_input.data<T>();
  const T* gy = grad_out.data<T>();
  const int64_t work = std::max<int64_t>(1, (p.out_n * p.taps + p.in_n) * std::min(c, kBlock));
  parallel_for(0, batch * blocks, std::max<int64_t>(1, kGrainSize / work), [&](int64_t b, int64_t e) {
    std::vector<T> v(static_cast<size_t>(std::min(c, kBlock)));
    for (int64_t u = b; u < e; ++u) {
      const int64_t n = u / blocks, c0 = (u % blocks) * kBlock, cn = std::min(kBlock, c - c0);
      T* gn = gx + n * p.in_n * c + c0;
      const T* gyn = gy + n * p.out_n * c + c0;
      for (int64_t i = 0; i < p.in_n; ++i) std::fill(gn + i * c, gn + i * c + cn, T(0));
      int64_t o = 0;
      for (const Span& sd : p.spans[0])
        for (const Span& sh : p.spans[1])
          for (const Span& sw : p.spans[2]) {
            const int64_t div = divisor(p, sd, sh, sw);
            const T* gyo = gyn + o++ * c;
            if (!div) continue;
            T* __restrict vv = v.data();
            for (int64_t k = 0; k < cn; ++k) vv[k] = static_cast<T>(static_cast<double>(gyo[k]) / div);
            for_taps(p, sd, sh, sw, [&](int64_t i) {
              T* __restrict gi = gn + i * c;
              for (int64_t k = 0; k < cn; ++k) gi[k] += vv[k];
            });
          }
    }
  });
}

template <template <class> class K>
struct FloatDispatch {
  template <class... A>
  static void run(ScalarType t, const char* op, const A&... a) {
    if (t == ScalarType::Float32) return K<float>::run(a...);
    if (t == ScalarType::Float64) return K<double>::run(a...);
    fail<NotImplementedError>(op, ": the CPU kernel supports float32 and float64, not ", t);
  }
};
template <class T>
struct MaxK {
  static void run(const Tensor& o, const Tensor& i, const Tensor& x, const PoolGeometry& g) {
    g.channels_last ? max_pool_cl<T>(o, i, x, g) : max_pool_impl<T>(o, i, x, g);
  }
};
template <class T>
struct AvgK {
  static void run(const Tensor& o, const Tensor& x, const PoolGeometry& g) {
    g.channels_last ? avg_pool_cl<T>(o, x, g) : avg_pool_impl<T>(o, x, g);
  }
};
template <class T>
struct AvgBackK {
  static void run(const Tensor& gi, const Tensor& go, const PoolGeometry& g) {
    g.channels_last ? avg_pool_backward_cl<T>(gi, go, g) : avg_pool_backward_impl<T>(gi, go, g);
  }
};

bool is_f32(const Tensor& t) { return t.dtype() == ScalarType::Float32; }

void max_pool_cpu(const Tensor& out, const Tensor& indices, const Tensor& input, const PoolGeometry& g) {
  if (!g.channels_last && is_f32(input) && dnnl_cpu::max_pool(out, indices, input, g)) return;
  FloatDispatch<MaxK>::run(input.dtype(), "max_pool", out, indices, input, g);
}
void avg_pool_cpu(const Tensor& out, const Tensor& input, const PoolGeometry& g) {
  if (!g.channels_last && is_f32(input) && dnnl_cpu::avg_pool(out, input, g)) return;
  FloatDispatch<AvgK>::run(input.dtype(), "avg_pool", out, input, g);
}
void avg_pool_backward_cpu(const Tensor& grad_input, const Tensor& grad_out, const PoolGeometry& g) {
  if (!g.channels_last && is_f32(grad_out) && dnnl_cpu::avg_pool_backward(grad_input, grad_out, g)) return;
  FloatDispatch<AvgBackK>::run(grad_out.dtype(), "avg_pool_backward", grad_input, grad_out, g);
}

}  // namespace

EMBER_REGISTER_KERNEL(max_pool, CPU, max_pool_cpu)
EMBER_REGISTER_KERNEL(avg_pool, CPU, avg_pool_cpu)
EMBER_REGISTER_KERNEL(avg_pool_backward, CPU, avg_pool_backward_cpu)

}  // namespace ember
