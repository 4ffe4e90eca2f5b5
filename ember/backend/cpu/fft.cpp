// The CPU FFT kernels: gather each line of the transformed dim into a contiguous buffer, run the plan (fft_plan.h,
// Note [FFT engine]), scatter it scaled. Lines go in groups of a vector's width (8 float, 4 double), one per lane,
// so that every butterfly of a batched transform is SIMD; the remaining lines (and a single transform) run scalar.
// Groups are split across threads with parallel_for.
#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/fft_plan.h"
#include "ember/backend/kernels/fft.h"
#include "ember/parallel.h"
#include "ember/tensor.h"

namespace ember::cpu {

namespace {

using fft::Cx;

// The batch of a transform along `dim`: every other dim of the (complex or real) index space, with the strides of
// the two tensors (elements).
struct Batch {
  std::vector<int64_t> sizes, sa, sb;
  int64_t count = 1;

  // The base offsets of line `idx` in a and b.
  void offsets(int64_t idx, int64_t& a, int64_t& b) const {
    a = b = 0;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      const int64_t q = idx % sizes[d];
      idx /= sizes[d];
      a += q * sa[d], b += q * sb[d];
    }
  }
};

// dims: the index space's rank (a complex tensor's dim() - 1).
Batch batch_of(const Tensor& a, const Tensor& b, int64_t dim, int64_t dims) {
  Batch r;
  for (int64_t d = 0; d < dims; ++d) {
    if (d == dim) continue;
    r.sizes.push_back(a.size(d));
    r.sa.push_back(a.stride(d));
    r.sb.push_back(b.stride(d));
    r.count *= a.size(d);
  }
  return r;
}

template <class T, class V>
constexpr int64_t kLanes = std::is_same_v<T, V> ? 1 : lanes::kWidth<T>;

template <class T, class V>
T get(const V& v, int64_t l) {
  if constexpr (std::is_same_v<T, V>)
    return v;
  else
    return v[l];
}
template <class T, class V>
void set(V& v, int64_t l, T x) {
  if constexpr (std::is_same_v<T, V>)
    v = x;
  else
    v[l] = x;
}

// The W complex numbers at p (2W interleaved values) as one complex of lanes, and back: two vector loads and two
// shuffles instead of 2W lane inserts, for lines whose elements are adjacent complex numbers.
template <class T>
Cx<lanes::Vec<T>> load_pairs(const T* p) {
  lanes::Vec<T> a, b;
  std::memcpy(&a, p, sizeof a);
  std::memcpy(&b, p + lanes::kWidth<T>, sizeof b);
  if constexpr (std::is_same_v<T, float>)
    return {__builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14),
            __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15)};
  else
    return {__builtin_shufflevector(a, b, 0, 2, 4, 6), __builtin_shufflevector(a, b, 1, 3, 5, 7)};
}
template <class T>
void store_pairs(T* p, Cx<lanes::Vec<T>> v) {
  lanes::Vec<T> a, b;
  if constexpr (std::is_same_v<T, float>) {
    a = __builtin_shufflevector(v.r, v.i, 0, 8, 1, 9, 2, 10, 3, 11);
    b = __builtin_shufflevector(v.r, v.i, 4, 12, 5, 13, 6, 14, 7, 15);
  } else {
    a = __builtin_shufflevector(v.r, v.i, 0, 4, 1, 5);
    b = __builtin_shufflevector(v.r, v.i, 2, 6, 3, 7);
  }
  std::memcpy(p, &a, sizeof a);
  std::memcpy(p + lanes::kWidth<T>, &b, sizeof b);
}

// c[j] for j < n from W lines of contiguous complex numbers starting at p[l] (a block of W x W at a time through
// transposes, the tail lane by lane).
template <class T>
void gather_rows(Cx<lanes::Vec<T>>* c, const T* const* p, int64_t n) {
  constexpr int64_t W = lanes::kWidth<T>;
  int64_t j = 0;
  for (; j + W <= n; j += W) {
    lanes::Vec<T> re[W], im[W];
    for (int64_t l = 0; l < W; ++l) {
      const auto v = load_pairs(p[l] + 2 * j);
      re[l] = v.r, im[l] = v.i;
    }
    lanes::transpose<T>(re);
    lanes::transpose<T>(im);
    for (int64_t k = 0; k < W; ++k) c[j + k] = {re[k], im[k]};
  }
  for (; j < n; ++j)
    for (int64_t l = 0; l < W; ++l) c[j].r[l] = p[l][2 * j], c[j].i[l] = p[l][2 * j + 1];
}

// The inverse: c[j] * s to W lines of contiguous complex numbers at p[l].
template <class T>
void scatter_rows(T* const* p, const Cx<lanes::Vec<T>>* c, int64_t n, T s) {
  constexpr int64_t W = lanes::kWidth<T>;
  int64_t j = 0;
  for (; j + W <= n; j += W) {
    lanes::Vec<T> re[W], im[W];
    for (int64_t k = 0; k < W; ++k) re[k] = c[j + k].r * s, im[k] = c[j + k].i * s;
    lanes::transpose<T>(re);
    lanes::transpose<T>(im);
    for (int64_t l = 0; l < W; ++l) store_pairs(p[l] + 2 * j, {re[l], im[l]});
  }
  for (; j < n; ++j)
    for (int64_t l = 0; l < W; ++l) p[l][2 * j] = c[j].r[l] * s, p[l][2 * j + 1] = c[j].i[l] * s;
}

// Whether L lines at offsets off[] are adjacent complex numbers (stride 2, the pair's stride 1).
template <int64_t L>
bool adjacent(const int64_t* off, int64_t pair_stride) {
  if (L == 1 || pair_stride != 1) return false;
  for (int64_t l = 1; l < L; ++l)
    if (off[l] != off[0] + 2 * l) return false;
  return true;
}

// Work memory of one thread for lines of V.
template <class V>
struct Buf {
  std::vector<Cx<V>> c;
  std::vector<V> r;
};

// body.template operator()<V>(buf, first_line) for every line (V = T) or group of lines (V = a vector of T), split
// across threads; per_line: the elements one line costs, for the grain.
template <class T, class Body>
void over_lines(int64_t count, int64_t per_line, const Body& body) {
  using Vec = lanes::Vec<T>;
  constexpr int64_t W = lanes::kWidth<T>;
  const int64_t groups = count / W, tasks = groups + count % W;
  // a point of a transform costs several elementwise operations: a task takes 8 grains' worth of points, so that
  // batches under a few hundred microseconds stay on one thread (waking workers costs more on a busy machine)
  const int64_t grain = std::max<int64_t>(1, 8 * kGrainSize / std::max<int64_t>(per_line, 1) / W);
  parallel_for(0, tasks, grain, [&](int64_t t0, int64_t t1) {
    Buf<T> one;
    Buf<Vec> many;
    for (int64_t t = t0; t < t1; ++t) {
      if (t < groups)
        body.template operator()<Vec>(many, t * W);
      else
        body.template operator()<T>(one, groups * W + (t - groups));
    }
  });
}

// Note [Long transforms]
// One long line (a single 1-d transform of n = n1 n2 >= 512 points whose plan is not Bluestein's) gets neither the
// lanes nor the threads of a batch. It is transformed in the "six-step" way instead: as an n1 x n2 matrix
// a[j1][j2] = x[j1 n2 + j2], transform the n2 columns (length n1), multiply by exp(-+2 pi i j2 k1 / n), transform the
// n1 rows (length n2), and read the result transposed: X[k1 + n1 k2]. Both steps are batches of short transforms, so
// they run on the vector lanes and the thread pool, and each short transform stays in cache.
constexpr int64_t kSplitMin = 1 << 9;

// n = n1 * n2 with n1 the largest divisor <= sqrt(n) (at least 16), or false.
bool split_of(int64_t n, int64_t& n1, int64_t& n2) {
  if (n < kSplitMin) return false;
  int64_t d = 1;
  while ((d + 1) * (d + 1) <= n) ++d;
  for (; d >= 16; --d)
    if (n % d == 0) {
      n1 = d, n2 = n / d;
      return true;
    }
  return false;
}

// y = the unnormalised DFT of the contiguous a (n1 n2 points); a is overwritten.
template <class T>
void split_transform(Cx<T>* a, Cx<T>* y, int64_t n1, int64_t n2, bool forward) {
  const int64_t n = n1 * n2;
  const auto p1 = fft::complex_plan<T>(n1), p2 = fft::complex_plan<T>(n2);
  const auto w = fft::roots<T>(n);
  over_lines<T>(n2, n1, [&]<class V>(Buf<V>& buf, int64_t j0) {  // columns j0.. : length n1, stride n2
    constexpr int64_t L = kLanes<T, V>;
    buf.c.resize(n1 + p1->work_size());
    Cx<V>* c = buf.c.data();
    for (int64_t j1 = 0; j1 < n1; ++j1) {
      if constexpr (L > 1) {
        c[j1] = load_pairs(&a[j1 * n2 + j0].r);
      } else {
        c[j1] = a[j1 * n2 + j0];
      }
    }
    p1->exec(c, c + n1, forward);
    // the twiddle exponent m = j k1 of each lane as (m / B, m % B), stepped by j without divisions
    const int64_t B = w->block();
    int64_t q[L], r[L], dq[L], dr[L];
    for (int64_t l = 0; l < L; ++l) q[l] = r[l] = 0, dq[l] = (j0 + l) / B, dr[l] = (j0 + l) % B;
    for (int64_t k1 = 0; k1 < n1; ++k1) {
      Cx<V> t;
      for (int64_t l = 0; l < L; ++l) {
        const Cx<T> e = w->at(q[l], r[l]);
        set(t.r, l, e.r);
        set(t.i, l, e.i);
        q[l] += dq[l], r[l] += dr[l];
        if (r[l] >= B) r[l] -= B, ++q[l];
      }
      const Cx<V> v = forward ? fft::twiddle<true>(c[k1], t) : fft::twiddle<false>(c[k1], t);
      if constexpr (L > 1) {
        store_pairs(&a[k1 * n2 + j0].r, v);
      } else {
        a[k1 * n2 + j0] = v;
      }
    }
  });
  over_lines<T>(n1, n2, [&]<class V>(Buf<V>& buf, int64_t k0) {  // rows k0.. : length n2, contiguous
    constexpr int64_t L = kLanes<T, V>;
    buf.c.resize(n2 + p2->work_size());
    Cx<V>* c = buf.c.data();
    if constexpr (L > 1) {
      const T* p[L];
      for (int64_t l = 0; l < L; ++l) p[l] = &a[(k0 + l) * n2].r;
      gather_rows<T>(c, p, n2);
    } else {
      for (int64_t j2 = 0; j2 < n2; ++j2) c[j2] = a[k0 * n2 + j2];
    }
    p2->exec(c, c + n2, forward);
    for (int64_t k2 = 0; k2 < n2; ++k2) {
      if constexpr (L > 1) {
        store_pairs(&y[k0 + n1 * k2].r, c[k2]);
      } else {
        y[k0 + n1 * k2] = c[k2];
      }
    }
  });
}

template <class T>
void c2c_typed(const Tensor& out, const Tensor& in, int64_t dim, bool forward, double scale) {
  const int64_t n = in.size(dim), last = in.dim() - 1;
  const auto plan = fft::complex_plan<T>(n);
  const Batch b = batch_of(in, out, dim, last);
  const T* src = in.data<T>();
  T* dst = out.data<T>();
  const int64_t is = in.stride(dim), ii = in.stride(last), os = out.stride(dim), oi = out.stride(last);
  const T s = static_cast<T>(scale);
  int64_t n1, n2;
  if (b.count == 1 && !plan->bluestein() && split_of(n, n1, n2)) {  // Note [Long transforms]
    // uninitialised buffers (no zero-filling pass); a contiguous output receives the rows' results directly
    std::unique_ptr<Cx<T>[]> a(new Cx<T>[n]), tmp;
    for (int64_t j = 0; j < n; ++j) a[j] = {src[j * is], src[j * is + ii]};
    const bool direct = os == 2 && oi == 1;
    if (!direct) tmp.reset(new Cx<T>[n]);
    Cx<T>* y = direct ? reinterpret_cast<Cx<T>*>(dst) : tmp.get();
    split_transform(a.get(), y, n1, n2, forward);
    if (direct && s != T(1))
      for (int64_t j = 0; j < n; ++j) y[j] = fft::scale(y[j], s);
    if (!direct)
      for (int64_t j = 0; j < n; ++j) dst[j * os] = y[j].r * s, dst[j * os + oi] = y[j].i * s;
    return;
  }
  over_lines<T>(b.count, n, [&]<class V>(Buf<V>& buf, int64_t line0) {
    constexpr int64_t L = kLanes<T, V>;
    int64_t ia[L], oa[L];
    for (int64_t l = 0; l < L; ++l) b.offsets(line0 + l, ia[l], oa[l]);
    buf.c.resize(n + plan->work_size());
    Cx<V>* c = buf.c.data();
    if constexpr (L > 1) {
      if (adjacent<L>(ia, ii)) {
        for (int64_t j = 0; j < n; ++j) c[j] = load_pairs(src + ia[0] + j * is);
      } else if (is == 2 && ii == 1) {  // lines of contiguous complex numbers
        const T* p[L];
        for (int64_t l = 0; l < L; ++l) p[l] = src + ia[l];
        gather_rows<T>(c, p, n);
      } else {
        for (int64_t j = 0; j < n; ++j)
          for (int64_t l = 0; l < L; ++l) set(c[j].r, l, src[ia[l] + j * is]), set(c[j].i, l, src[ia[l] + j * is + ii]);
      }
    } else {
      for (int64_t j = 0; j < n; ++j) c[j] = {src[ia[0] + j * is], src[ia[0] + j * is + ii]};
    }
    plan->exec(c, c + n, forward);
    if constexpr (L > 1) {
      if (os == 2 && oi == 1 && !adjacent<L>(oa, oi)) {
        T* p[L];
        for (int64_t l = 0; l < L; ++l) p[l] = dst + oa[l];
        scatter_rows<T>(p, c, n, s);
        return;
      }
    }
    const bool pairs = adjacent<L>(oa, oi);
    for (int64_t j = 0; j < n; ++j) {
      const Cx<V> v = fft::scale(c[j], s);
      if constexpr (L > 1) {
        if (pairs) {
          store_pairs(dst + oa[0] + j * os, v);
          continue;
        }
      }
      for (int64_t l = 0; l < L; ++l) {
        T* p = dst + oa[l] + j * os;
        p[0] = get<T>(v.r, l);
        p[oi] = get<T>(v.i, l);
      }
    }
  });
}

template <class T>
void r2c_typed(const Tensor& out, const Tensor& in, int64_t dim, double scale) {
  const int64_t n = in.size(dim), h = n / 2 + 1, m = out.size(dim), last = out.dim() - 1;
  const auto plan = fft::real_plan<T>(n);
  const Batch b = batch_of(in, out, dim, in.dim());
  const T* src = in.data<T>();
  T* dst = out.data<T>();
  const int64_t is = in.stride(dim), os = out.stride(dim), oi = out.stride(last);
  const T s = static_cast<T>(scale);
  auto store = [&](const Cx<T>* c, int64_t oa) {  // bins past n / 2: the conjugates of the mirrored ones
    for (int64_t k = 0; k < m; ++k) {
      const Cx<T> v = fft::scale(k < h ? c[k] : fft::conj(c[n - k]), s);
      dst[oa + k * os] = v.r, dst[oa + k * os + oi] = v.i;
    }
  };
  int64_t n1, n2;
  if (b.count == 1 && n % 2 == 0 && !fft::complex_plan<T>(n / 2)->bluestein() && split_of(n / 2, n1, n2)) {
    std::unique_ptr<Cx<T>[]> z(new Cx<T>[n / 2]), y(new Cx<T>[n / 2]);  // Note [Long transforms] on the pairs
    std::vector<Cx<T>> c(h);
    for (int64_t j = 0; j < n / 2; ++j) z[j] = {src[2 * j * is], src[(2 * j + 1) * is]};
    split_transform(z.get(), y.get(), n1, n2, true);
    plan->untangle(y.get(), c.data());
    store(c.data(), 0);
    return;
  }
  over_lines<T>(b.count, n, [&]<class V>(Buf<V>& buf, int64_t line0) {
    constexpr int64_t L = kLanes<T, V>;
    int64_t ia[L], oa[L];
    for (int64_t l = 0; l < L; ++l) b.offsets(line0 + l, ia[l], oa[l]);
    buf.r.resize(n);
    buf.c.resize(h + plan->work_size());
    V* x = buf.r.data();
    Cx<V>* c = buf.c.data();
    int64_t j = 0;
    if constexpr (L > 1) {
      for (; is == 1 && j + L <= n; j += L) {  // contiguous rows: a block of L x L through a transpose
        V block[L];
        for (int64_t l = 0; l < L; ++l) std::memcpy(&block[l], src + ia[l] + j, sizeof(V));
        lanes::transpose<T>(block);
        for (int64_t k = 0; k < L; ++k) x[j + k] = block[k];
      }
    }
    for (; j < n; ++j)
      for (int64_t l = 0; l < L; ++l) set(x[j], l, src[ia[l] + j * is]);
    plan->r2c(x, c, c + h);
    if constexpr (L > 1) {
      if (m == h && os == 2 && oi == 1) {
        T* p[L];
        for (int64_t l = 0; l < L; ++l) p[l] = dst + oa[l];
        scatter_rows<T>(p, c, h, s);
        return;
      }
    }
    for (int64_t k = 0; k < m; ++k) {  // past n / 2: the conjugates of the mirrored bins (the whole spectrum)
      const Cx<V> v = fft::scale(k < h ? c[k] : fft::conj(c[n - k]), s);
      for (int64_t l = 0; l < L; ++l) {
        T* p = dst + oa[l] + k * os;
        p[0] = get<T>(v.r, l);
        p[oi] = get<T>(v.i, l);
      }
    }
  });
}

template <class T>
void c2r_typed(const Tensor& out, const Tensor& in, int64_t dim, double scale) {
  const int64_t n = out.size(dim), h = n / 2 + 1, last = in.dim() - 1;
  const auto plan = fft::real_plan<T>(n);
  const Batch b = batch_of(in, out, dim, last);
  const T* src = in.data<T>();
  T* dst = out.data<T>();
  const int64_t is = in.stride(dim), ii = in.stride(last), os = out.stride(dim);
  const T s = static_cast<T>(scale);
  int64_t n1, n2;
  if (b.count == 1 && n % 2 == 0 && !fft::complex_plan<T>(n / 2)->bluestein() && split_of(n / 2, n1, n2)) {
    std::unique_ptr<Cx<T>[]> c(new Cx<T>[h]), z(new Cx<T>[n / 2]), y(new Cx<T>[n / 2]);  // Note [Long transforms]
    for (int64_t k = 0; k < h; ++k) c[k] = {src[k * is], src[k * is + ii]};
    plan->pack(c.get(), z.get());
    split_transform(z.get(), y.get(), n1, n2, false);
    for (int64_t j = 0; j < n / 2; ++j) dst[2 * j * os] = y[j].r * s, dst[(2 * j + 1) * os] = y[j].i * s;
    return;
  }
  over_lines<T>(b.count, n, [&]<class V>(Buf<V>& buf, int64_t line0) {
    constexpr int64_t L = kLanes<T, V>;
    int64_t ia[L], oa[L];
    for (int64_t l = 0; l < L; ++l) b.offsets(line0 + l, ia[l], oa[l]);
    buf.r.resize(n);
    buf.c.resize(h + plan->work_size());
    V* x = buf.r.data();
    Cx<V>* c = buf.c.data();
    for (int64_t k = 0; k < h; ++k)
      for (int64_t l = 0; l < L; ++l) {
        const T* p = src + ia[l] + k * is;
        set(c[k].r, l, p[0]);
        set(c[k].i, l, p[ii]);
      }
    plan->c2r(c, x, c + h);
    for (int64_t j = 0; j < n; ++j) {
      const V v = x[j] * s;
      for (int64_t l = 0; l < L; ++l) dst[oa[l] + j * os] = get<T>(v, l);
    }
  });
}

template <class F>
void dispatch_fft(const Tensor& t, const char* name, F&& f) {
  switch (t.dtype()) {
    case ScalarType::Float32: return f(float{});
    case ScalarType::Float64: return f(double{});
    default: fail<Error>(name, ": unsupported dtype ", t.dtype());
  }
}

void fft_c2c(const Tensor& out, const Tensor& in, int64_t dim, bool forward, double scale) {
  dispatch_fft(in, "fft_c2c", [&](auto v) { c2c_typed<decltype(v)>(out, in, dim, forward, scale); });
}
void fft_r2c(const Tensor& out, const Tensor& in, int64_t dim, double scale) {
  dispatch_fft(in, "fft_r2c", [&](auto v) { r2c_typed<decltype(v)>(out, in, dim, scale); });
}
void fft_c2r(const Tensor& out, const Tensor& in, int64_t dim, double scale) {
  dispatch_fft(in, "fft_c2r", [&](auto v) { c2r_typed<decltype(v)>(out, in, dim, scale); });
}

}  // namespace

EMBER_REGISTER_KERNEL(fft_c2c, CPU, fft_c2c)
EMBER_REGISTER_KERNEL(fft_r2c, CPU, fft_r2c)
EMBER_REGISTER_KERNEL(fft_c2r, CPU, fft_c2r)

}  // namespace ember::cpu
