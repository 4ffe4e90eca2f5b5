// CPU sorting and selection: each slice along the dim is copied into a buffer of (key, position) pairs, ordered
// there with the standard algorithms (stable_sort, partial_sort, nth_element) or, for sorts of long slices, radix
// sort (Note [Radix sort]), and written back; slices run in parallel. Keys are the values widened to Acc<T> (float for
// 16-bit floats); NaN orders above every number. Also the counting kernels: unique's runs, bincount and histc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/binary.h"
#include "ember/backend/kernels/histogram.h"
#include "ember/backend/kernels/sort.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember::cpu {

namespace {

template <class K>
bool is_nan(K v) {
  if constexpr (std::is_floating_point_v<K>)
    return v != v;
  else
    return false;
}

// Strict orders on keys with NaN the largest value (all NaNs equivalent).
template <class K>
bool key_less(K a, K b) {
  return a < b || (is_nan(b) && !is_nan(a));
}
template <class K>
bool key_greater(K a, K b) {
  return key_less(b, a);
}

template <class K>
struct Entry {
  K key;
  int64_t pos;
};

// Total orders (ties by position), which make selection deterministic.
template <class K>
bool entry_less(const Entry<K>& a, const Entry<K>& b) {
  return key_less(a.key, b.key) || (!key_less(b.key, a.key) && a.pos < b.pos);
}
template <class K>
bool entry_greater(const Entry<K>& a, const Entry<K>& b) {
  return key_greater(a.key, b.key) || (!key_greater(b.key, a.key) && a.pos < b.pos);
}

// A slice of `n` elements at byte stride `stride` loaded into buf as entries.
template <class T>
void load_slice(std::vector<Entry<Acc<T>>>& buf, const char* p, int64_t n, int64_t stride) {
  buf.resize(n);
  for (int64_t i = 0; i < n; ++i) buf[i] = {static_cast<Acc<T>>(*reinterpret_cast<const T*>(p + i * stride)), i};
}

// The first m entries of buf written to the value and index slices.
template <class T>
void store_slice(const std::vector<Entry<Acc<T>>>& buf, int64_t m, char* vp, int64_t vs, char* ip, int64_t is) {
  for (int64_t i = 0; i < m; ++i) {
    *reinterpret_cast<T*>(vp + i * vs) = static_cast<T>(buf[i].key);
    *reinterpret_cast<int64_t*>(ip + i * is) = buf[i].pos;
  }
}

// Note [Short slices]
// Slices of up to kShortSlice elements are sorted by insertion (stable: an entry moves only past greater ones), where
// std::stable_sort asked malloc for a temporary buffer on every call and topk's nth_element and sort cost about as
// much again: sort(1) of [4096, 8] at one thread took 418 us, topk(2) 274 (PyTorch 110 and 98).
constexpr int64_t kShortSlice = 32;

template <class E, class Less>
void insertion_sort(E* b, int64_t n, Less less) {
  for (int64_t i = 1; i < n; ++i) {
    const E e = b[i];
    int64_t j = i;
    for (; j > 0 && less(e, b[j - 1]); --j) b[j] = b[j - 1];
    b[j] = e;
  }
}

// Note [Top k by insertion]
// topk with k <= kInsertTop keeps b's first k entries sorted and inserts a later entry only when it beats the k-th:
// on most inputs (where the top entries are spread out, not arriving in order) few of the n entries are inserted, and
// the comparisons against the k-th predict well, where sorting a short slice whole mispredicted most of its branches
// and nth_element walked a long one several times. At worst (an input already in order) each entry shifts k others,
// which on long slices lost to partial_sort's heap (topk(5) of ascending rows of 1000: 1128 -> 1649 us), so slices
// longer than kInsertTopSlice keep the other ways. At one thread: topk(4) of [2048, 32] 990 -> 400 us (PyTorch 696),
// topk(2) of [8192, 8] 734 -> 422 (565).
constexpr int64_t kInsertTop = 8, kInsertTopSlice = 128;

// b's first k entries become its k least by less (a strict total order), in order; the rest are left in any order.
template <class E, class Less>
void insertion_top(E* b, int64_t n, int64_t k, Less less) {
  insertion_sort(b, k, less);
  for (int64_t i = k; i < n; ++i) {
    if (!less(b[i], b[k - 1])) continue;
    const E e = b[i];
    int64_t j = k - 1;
    for (; j > 0 && less(e, b[j - 1]); --j) b[j] = b[j - 1];
    b[j] = e;
  }
}

// Calls f(buf, values slice, indices slice, input slice) for every slice along dim, in parallel, with a scratch
// Buffer (a vector of entries) reused across a thread's slices. The operands differ only in their size along dim.
template <class Buffer, class F>
void for_each_slice(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim, F f) {
  DimVector sz(in.sizes());
  sz[dim] = 1;
  auto collapse = [&](const Tensor& t) { return make_view(t, sz, t.strides(), t.storage_offset()); };
  const Tensor vv = collapse(values), iv = collapse(indices), xv = collapse(in);
  const StridedIter it = StridedIter::make({&vv, &iv, &xv}, sz);
  const int64_t n = std::max<int64_t>(in.sizes()[dim], 1);
  for_each_run(
      it,
      [&](char** p, const int64_t* st, int64_t m) {
        Buffer buf;
        for (int64_t i = 0; i < m; ++i) f(buf, p[0] + i * st[0], p[1] + i * st[1], p[2] + i * st[2]);
      },
      std::max<int64_t>(1, kGrainSize / n));
}

// Byte strides along dim of (values, indices, in).
struct Strides {
  int64_t v, i, x;
  Strides(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim)
      : v(values.strides()[dim] * static_cast<int64_t>(values.element_size())), i(indices.strides()[dim] * 8),
        x(in.strides()[dim] * static_cast<int64_t>(in.element_size())) {}
};

// Note [Radix sort]
// A slice of kRadixMin elements or more is sorted by LSD radix sort on its keys mapped to unsigned integers whose
// order is the keys' (integers with the sign bit flipped; floats by their bits, negatives inverted, -0 as +0, and
// every NaN as the largest key, so NaNs tie among themselves as in key_less), a byte at a time, skipping the bytes
// all keys share (int64 labels below 2^16 take two passes). Each pass is stable, so ties keep their order, as
// stable_sort's do; descending sorts the inverted keys. The values are then read back through the permutation, so
// they keep their bits (a NaN's payload, -0). 64K int64 at one thread: 3.4 ms with stable_sort, here 0.3 (PyTorch
// 2.15: 1.6); float32 5.2 -> 0.6 (5.0).
constexpr int64_t kRadixMin = 256;

template <class K>
auto radix_key(K v) {
  if constexpr (std::is_same_v<K, bool>) {
    return static_cast<uint8_t>(v);
  } else if constexpr (std::is_integral_v<K>) {
    using U = std::make_unsigned_t<K>;
    U u = static_cast<U>(v);
    if constexpr (std::is_signed_v<K>) u ^= U(1) << (8 * sizeof(U) - 1);
    return u;
  } else {
    using U = std::conditional_t<sizeof(K) == 4, uint32_t, uint64_t>;
    constexpr U sign = U(1) << (8 * sizeof(U) - 1);
    if (v != v) return static_cast<U>(~U(0));
    if (v == K(0)) v = K(0);  // -0 sorts as +0
    U u;
    std::memcpy(&u, &v, sizeof u);
    return (u & sign) ? static_cast<U>(~u) : static_cast<U>(u | sign);
  }
}

// Scratch for radix_sort from ember's caching allocator (a std::vector's fresh pages faulted on every call: a third
// of a 64K sort's time).
template <class U>
struct RadixBuffer {
  Tensor mem;
  U *key = nullptr, *key2 = nullptr;
  int64_t *pos = nullptr, *pos2 = nullptr;
  void reserve(int64_t n) {
    const int64_t bytes = n * 2 * static_cast<int64_t>(sizeof(int64_t) + sizeof(U));
    if (mem.defined() && mem.numel() >= bytes) return;
    mem = empty({{bytes}}, TensorOptions(ScalarType::UInt8));
    auto* base = static_cast<char*>(mem.data_ptr());
    pos = reinterpret_cast<int64_t*>(base);
    pos2 = pos + n;
    key = reinterpret_cast<U*>(pos2 + n);
    key2 = key + n;
  }
};

// Sorts the n keys in b.key (their positions in b.pos), stably.
template <class U>
void radix_sort(RadixBuffer<U>& b, int64_t n) {
  constexpr int kBytes = sizeof(U);
  int64_t count[kBytes][256] = {};
  for (int64_t i = 0; i < n; ++i)
    for (int d = 0; d < kBytes; ++d) ++count[d][(b.key[i] >> (8 * d)) & 0xff];
  for (int d = 0; d < kBytes; ++d) {
    int64_t* c = count[d];
    if (c[(b.key[0] >> (8 * d)) & 0xff] == n) continue;  // every key has this byte
    for (int64_t k = 0, sum = 0; k < 256; ++k) {
      const int64_t m = c[k];
      c[k] = sum;
      sum += m;
    }
    const U* key = b.key;
    const int64_t* pos = b.pos;
    U* key2 = b.key2;
    int64_t* pos2 = b.pos2;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t to = c[(key[i] >> (8 * d)) & 0xff]++;
      key2[to] = key[i];
      pos2[to] = pos[i];
    }
    std::swap(b.key, b.key2);
    std::swap(b.pos, b.pos2);
  }
}

// b.pos = the slice's positions in (stable) order of its keys.
template <class T, class U>
void radix_order(RadixBuffer<U>& b, const char* xp, int64_t n, int64_t stride, bool descending) {
  b.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    const U k = radix_key(static_cast<Acc<T>>(*reinterpret_cast<const T*>(xp + i * stride)));
    b.key[i] = descending ? static_cast<U>(~k) : k;
    b.pos[i] = i;
  }
  radix_sort(b, n);
}

void sort(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim, bool descending) {
  const int64_t n = in.sizes()[dim];
  const Strides s(values, indices, in, dim);
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    using E = Entry<Acc<T>>;
    if (n >= kRadixMin) {
      using U = decltype(radix_key(Acc<T>{}));
      for_each_slice<RadixBuffer<U>>(
          values, indices, in, dim, [&](RadixBuffer<U>& b, char* vp, char* ip, const char* xp) {
            radix_order<T>(b, xp, n, s.x, descending);
            for (int64_t i = 0; i < n; ++i) {
              const int64_t p = b.pos[i];
              *reinterpret_cast<T*>(vp + i * s.v) = *reinterpret_cast<const T*>(xp + p * s.x);
              *reinterpret_cast<int64_t*>(ip + i * s.i) = p;
            }
          });
      return;
    }
    auto run = [&](auto cmp) {
      for_each_slice<std::vector<E>>(values, indices, in, dim,
                                     [&](std::vector<E>& buf, char* vp, char* ip, const char* xp) {
                                       load_slice<T>(buf, xp, n, s.x);
                                       if (n <= kShortSlice)  // Note [Short slices]
                                         insertion_sort(buf.data(), n, cmp);
                                       else
                                         std::stable_sort(buf.begin(), buf.end(), cmp);
                                       store_slice<T>(buf, n, vp, s.v, ip, s.i);
                                     });
    };
    if (descending)
      run([](const E& a, const E& b) { return key_greater(a.key, b.key); });
    else
      run([](const E& a, const E& b) { return key_less(a.key, b.key); });
  });
}

void topk(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k, int64_t dim, bool largest,
          bool sorted) {
  const int64_t n = in.sizes()[dim];
  const Strides s(values, indices, in, dim);
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    using E = Entry<Acc<T>>;
    auto run = [&](auto cmp) {
      for_each_slice<std::vector<E>>(values, indices, in, dim,
                                     [&](std::vector<E>& buf, char* vp, char* ip, const char* xp) {
                                       load_slice<T>(buf, xp, n, s.x);
                                       // partial_sort costs n log k, nth_element n: the first wins only for small k
                                       // (PyTorch's rule too); a short slice is sorted whole (Note [Short slices]).
                                       if (k <= kInsertTop && n <= kInsertTopSlice) {  // Note [Top k by insertion]
                                         if (k > 0) insertion_top(buf.data(), n, k, cmp);
                                       } else if (n <= kShortSlice) {
                                         insertion_sort(buf.data(), n, cmp);
                                       } else if (sorted && k * 64 <= n) {
                                         std::partial_sort(buf.begin(), buf.begin() + k, buf.end(), cmp);
                                       } else {
                                         if (k < n)
                                           std::nth_element(buf.begin(), buf.begin() + (k - 1), buf.end(), cmp);
                                         if (sorted) std::sort(buf.begin(), buf.begin() + k, cmp);
                                       }
                                       store_slice<T>(buf, k, vp, s.v, ip, s.i);
                                     });
    };
    if (largest)
      run([](const E& a, const E& b) { return entry_greater(a, b); });
    else
      run([](const E& a, const E& b) { return entry_less(a, b); });
  });
}

// The most frequent key of buf (sorted in place), the smallest on ties, and its last position.
template <class K>
Entry<K> mode_of(std::vector<Entry<K>>& buf) {
  std::sort(buf.begin(), buf.end(), entry_less<K>);
  Entry<K> best = buf[0];
  int64_t best_count = 0, count = 0;
  const int64_t n = static_cast<int64_t>(buf.size());
  for (int64_t i = 0; i < n; ++i) {
    ++count;
    if (i + 1 == n || buf[i + 1].key != buf[i].key) {  // NaN != NaN: each NaN is its own run, as in PyTorch
      if (count > best_count) {
        best = buf[i];  // positions ascend within a run: this is the last occurrence
        best_count = count;
      }
      count = 0;
    }
  }
  return best;
}

// The entry of buf at rank k of the total order, for slice_select's ops.
template <class K>
Entry<K> select_entry(std::vector<Entry<K>>& buf, SelectOp op, int64_t k) {
  const int64_t n = static_cast<int64_t>(buf.size());
  if (op == SelectOp::Mode) return mode_of(buf);
  if (op == SelectOp::Median) {
    for (const Entry<K>& e : buf)
      if (is_nan(e.key)) return e;  // the first NaN
    k = (n - 1) / 2;
  } else if (op == SelectOp::NanMedian) {
    const int64_t valid = n - std::count_if(buf.begin(), buf.end(), [](const Entry<K>& e) { return is_nan(e.key); });
    k = valid > 0 ? (valid - 1) / 2 : 0;  // all NaN: the first NaN
  }
  std::nth_element(buf.begin(), buf.begin() + k, buf.end(), entry_less<K>);
  return buf[k];
}

// mode_of over a radix-ordered slice: runs of equal values (each NaN its own), positions ascending within a run.
template <class T, class U>
int64_t radix_mode(RadixBuffer<U>& b, const char* xp, int64_t n, int64_t stride) {
  radix_order<T>(b, xp, n, stride, false);
  auto at = [&](int64_t i) { return static_cast<Acc<T>>(*reinterpret_cast<const T*>(xp + b.pos[i] * stride)); };
  int64_t best = b.pos[0], best_count = 0, count = 0;
  for (int64_t i = 0; i < n; ++i) {
    ++count;
    if (i + 1 == n || at(i + 1) != at(i)) {
      if (count > best_count) {
        best = b.pos[i];
        best_count = count;
      }
      count = 0;
    }
  }
  return best;
}

void slice_select(SelectOp op, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim, int64_t k) {
  const int64_t n = in.sizes()[dim];
  const Strides s(values, indices, in, dim);
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    using E = Entry<Acc<T>>;
    if (op == SelectOp::Mode && n >= kRadixMin) {
      using U = decltype(radix_key(Acc<T>{}));
      for_each_slice<RadixBuffer<U>>(values, indices, in, dim,
                                     [&](RadixBuffer<U>& b, char* vp, char* ip, const char* xp) {
                                       const int64_t p = radix_mode<T>(b, xp, n, s.x);
                                       *reinterpret_cast<T*>(vp) = *reinterpret_cast<const T*>(xp + p * s.x);
                                       *reinterpret_cast<int64_t*>(ip) = p;
                                     });
      return;
    }
    for_each_slice<std::vector<E>>(values, indices, in, dim,
                                   [&](std::vector<E>& buf, char* vp, char* ip, const char* xp) {
                                     load_slice<T>(buf, xp, n, s.x);
                                     const E e = select_entry(buf, op, k);
                                     *reinterpret_cast<T*>(vp) = static_cast<T>(e.key);
                                     *reinterpret_cast<int64_t*>(ip) = e.pos;
                                   });
  });
}

void unique_runs(const Tensor& in, const Tensor& perm, const Tensor& inverse, Tensor& values, Tensor& counts) {
  const int64_t n = in.numel();
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    const T* x = static_cast<const T*>(in.data_ptr());
    std::vector<int64_t> starts;
    for (int64_t i = 0; i < n; ++i)
      if (i == 0 || static_cast<Acc<T>>(x[i]) != static_cast<Acc<T>>(x[i - 1])) starts.push_back(i);
    const int64_t nu = static_cast<int64_t>(starts.size());
    starts.push_back(n);
    values = empty({{nu}}, TensorOptions(in.dtype()));
    counts = empty({{nu}}, TensorOptions(ScalarType::Int64));
    T* vals = static_cast<T*>(values.data_ptr());
    auto* cnt = static_cast<int64_t*>(counts.data_ptr());
    for (int64_t r = 0; r < nu; ++r) {
      vals[r] = x[starts[r]];
      cnt[r] = starts[r + 1] - starts[r];
    }
    if (!inverse.defined()) return;
    auto* inv = static_cast<int64_t*>(inverse.data_ptr());
    const int64_t* pos = perm.defined() ? static_cast<const int64_t*>(perm.data_ptr()) : nullptr;
    for (int64_t r = 0; r < nu; ++r)
      for (int64_t i = starts[r]; i < starts[r + 1]; ++i) inv[pos ? pos[i] : i] = r;
  });
}

void bincount(const Tensor& out, const Tensor& in, const Tensor& weights) {
  const int64_t n = in.numel(), xs = in.strides()[0];
  dispatch_all(in.dtype(), [&](auto v) {
    using I = decltype(v);
    if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool>) {
      const I* x = static_cast<const I*>(in.data_ptr());
      dispatch_all(out.dtype(), [&](auto w) {
        using W = decltype(w);
        if constexpr (std::is_same_v<W, int64_t> || std::is_same_v<W, float> || std::is_same_v<W, double>) {
          W* o = static_cast<W*>(out.data_ptr());
          std::fill(o, o + out.numel(), W(0));
          if (!weights.defined()) {
            for (int64_t i = 0; i < n; ++i) o[static_cast<int64_t>(x[i * xs])] += W(1);
            return;
          }
          const W* wp = static_cast<const W*>(weights.data_ptr());
          const int64_t ws = weights.strides()[0];
          for (int64_t i = 0; i < n; ++i) o[static_cast<int64_t>(x[i * xs])] += wp[i * ws];
        }
      });
    }
  });
}

// The bin of x as PyTorch's histc computes it: in T's arithmetic, rounding after each operation.
template <class T>
int64_t histc_bin(Acc<T> x, Acc<T> lo, Acc<T> width, int64_t bins) {
  using A = Acc<T>;
  const A scaled = static_cast<A>(static_cast<T>(static_cast<A>(static_cast<T>(x - lo)) * static_cast<A>(bins)));
  const int64_t b = static_cast<int64_t>(static_cast<A>(static_cast<T>(scaled / width)));
  return std::clamp<int64_t>(b, 0, bins - 1);  // x == max lands in the last bin
}

void histc(const Tensor& out, const Tensor& in, double min, double max) {
  const int64_t bins = out.numel();
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    if constexpr (is_fp<T>) {
      using A = Acc<T>;
      const A lo = static_cast<A>(static_cast<T>(min)), hi = static_cast<A>(static_cast<T>(max));
      const A width = static_cast<A>(static_cast<T>(hi - lo));
      std::vector<int64_t> counts(bins, 0);
      const Tensor x = contiguous(in);
      const T* p = static_cast<const T*>(x.data_ptr());
      for (int64_t i = 0; i < x.numel(); ++i) {
        const A e = static_cast<A>(p[i]);
        if (e >= lo && e <= hi) ++counts[histc_bin<T>(e, lo, width, bins)];  // NaN fails both tests
      }
      T* o = static_cast<T*>(out.data_ptr());
      for (int64_t b = 0; b < bins; ++b) o[b] = static_cast<T>(static_cast<A>(counts[b]));
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(sort, CPU, sort)
EMBER_REGISTER_KERNEL(topk, CPU, topk)
EMBER_REGISTER_KERNEL(slice_select, CPU, slice_select)
EMBER_REGISTER_KERNEL(unique_runs, CPU, unique_runs)
EMBER_REGISTER_KERNEL(bincount, CPU, bincount)
EMBER_REGISTER_KERNEL(histc, CPU, histc)

}  // namespace ember::cpu
