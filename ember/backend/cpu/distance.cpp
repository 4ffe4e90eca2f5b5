// cdist and pdist on the CPU (Note [Distances over transposed rows]).
#if defined(__AVX__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/backend/cpu/lanes.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/nn/distance.h"
#include "ember/backend/math/distance.h"
#include "ember/parallel.h"

namespace ember::cpu {
namespace {

using math::DistKind;

// Note [Distances over transposed rows]: the second operand's rows are copied as columns ([m][ld], ld a whole number
// of vectors past the last row), so that one row a of the first operand is measured against a vector's lanes of rows
// at once: each step broadcasts a[k] and loads the next k of W consecutive rows. Each distance is then a chain over k
// in order (no horizontal sums, no reassociation), and the W results are finished and stored together, contiguous as
// the output's rows are. Measured one pair at a time with the lanes along k, pdist of [256, 32] took 2.4x PyTorch's
// time: most of a short pair went to the horizontal sum and the scalar root. At one thread: pdist of [256, 32] 177 ->
// 95 us (PyTorch 98-122), p = inf of [300, 100] 1500 -> 374 (550-620), cdist p = 1 of [500, 3] by [400, 3] 607 -> 250
// (720-850). pdist's threads split the pairs, not the rows, whose work falls with the row.
template <class T>
using Vec = lanes::Vec<T>;
template <class T>
constexpr int64_t W = lanes::kWidth<T>;

template <class T>
[[gnu::always_inline]] inline Vec<T> broadcast(T x) {
  Vec<T> v;
  for (int64_t l = 0; l < W<T>; ++l) v[l] = x;
  return v;
}

// A vector's bits as integers of its lanes' width, and back.
template <class T>
using Bits = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
template <class T>
struct BitsVecOf {
  typedef Bits<T> type __attribute__((vector_size(32)));
};
template <class T>
using BitsVec = typename BitsVecOf<T>::type;
template <class To, class From>
[[gnu::always_inline]] inline To bit_cast(From v) {
  static_assert(sizeof(To) == sizeof(From));
  To r;
  std::memcpy(&r, &v, sizeof r);
  return r;
}

// |d| by clearing the sign bits (a select on d < 0 took three instructions)
template <class T>
[[gnu::always_inline]] inline Vec<T> abs(Vec<T> d) {
  return bit_cast<Vec<T>>(bit_cast<BitsVec<T>>(d) & std::numeric_limits<Bits<T>>::max());
}

// math::dist_step for W pairs at once, given the differences d.
template <DistKind K, class T>
[[gnu::always_inline]] inline Vec<T> step(Vec<T> acc, Vec<T> d, T p) {
  const Vec<T> ad = abs<T>(d);  // a NaN stays
  if constexpr (K == DistKind::Zero) {
    return acc + (ad > 0 ? broadcast<T>(1) : ad);
  } else if constexpr (K == DistKind::One) {
    return acc + ad;
  } else if constexpr (K == DistKind::Two) {
    return acc + d * d;
  } else if constexpr (K == DistKind::Inf) {
    // Magnitudes' bits order as the magnitudes do, and a NaN's lie above infinity's: their integer maximum is the
    // largest difference with a NaN kept, one instruction for float32 (two float selects took 1.5x p = 1's time)
    const BitsVec<T> x = bit_cast<BitsVec<T>>(acc), y = bit_cast<BitsVec<T>>(ad);
    return bit_cast<Vec<T>>(y > x ? y : x);
  } else {
    for (int64_t l = 0; l < W<T>; ++l) acc[l] += std::pow(ad[l], p);
    return acc;
  }
}

// math::dist_finish for W distances: the square root in one instruction (per lane it was a scalar root each, a
// quarter of pdist's time on rows of 32)
template <DistKind K, class T>
[[gnu::always_inline]] inline Vec<T> finish(Vec<T> acc, T p) {
#if defined(__AVX__)
  if constexpr (K == DistKind::Two) {
    if constexpr (std::is_same_v<T, float>)
      return _mm256_sqrt_ps(acc);
    else
      return _mm256_sqrt_pd(acc);
  }
#endif
  for (int64_t l = 0; l < W<T>; ++l) acc[l] = math::dist_finish<K>(acc[l], p);
  return acc;
}

template <class T>
[[gnu::always_inline]] inline Vec<T> load(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// out[j] = dist(a, b_j) for j in [0, count), with b_j column j of bt ([m][ld]; columns up to count rounded up to W
// readable). U vectors of columns at a time, for independent chains.
template <DistKind K, class T, int U>
[[gnu::always_inline]] inline void block(const T* a, const T* bt, int64_t ld, int64_t m, T p, T* out, int64_t count) {
  Vec<T> acc[U] = {};
  for (int64_t k = 0; k < m; ++k) {
    const Vec<T> ak = broadcast(a[k]);
    for (int u = 0; u < U; ++u) acc[u] = step<K>(acc[u], ak - load(bt + k * ld + u * W<T>), p);
  }
  for (int u = 0; u < U; ++u) {
    const Vec<T> r = finish<K>(acc[u], p);
    std::memcpy(out + u * W<T>, &r, sizeof(T) * static_cast<size_t>(std::clamp<int64_t>(count - u * W<T>, 0, W<T>)));
  }
}

template <DistKind K, class T>
void row_distances(const T* a, const T* bt, int64_t ld, int64_t m, T p, T* out, int64_t count) {
  constexpr int64_t kFour = 4 * W<T>;
  int64_t j = 0;
  for (; count - j > 3 * W<T>; j += kFour) block<K, T, 4>(a, bt + j, ld, m, p, out + j, std::min(kFour, count - j));
  switch ((count - j + W<T> - 1) / W<T>) {  // the rest in as many vectors, side by side
    case 3: return block<K, T, 3>(a, bt + j, ld, m, p, out + j, count - j);
    case 2: return block<K, T, 2>(a, bt + j, ld, m, p, out + j, count - j);
    case 1: return block<K, T, 1>(a, bt + j, ld, m, p, out + j, count - j);
    default: return;
  }
}

// Rows [0, n) of b as the columns of bt ([m][ld], zeros past them).
template <class T>
void transpose_into(const T* b, int64_t n, int64_t m, int64_t ld, T* bt) {
  for (int64_t j = 0; j < n; ++j)
    for (int64_t k = 0; k < m; ++k) bt[k * ld + j] = b[j * m + k];
}

// ld >= n + W, so that a block from any column stays in its row; a buffer of at least one row (m may be 0).
template <class T>
int64_t padded(int64_t n) {
  return (n + 2 * W<T> - 1) / W<T> * W<T>;
}
template <class T>
std::vector<T> columns_buffer(int64_t batch, int64_t m, int64_t ld) {
  return std::vector<T>(static_cast<size_t>(batch * std::max<int64_t>(m, 1) * ld));
}

void cdist_forward(const Tensor& out, const Tensor& x1, const Tensor& x2, double p) {
  const int64_t batch = x1.size(0), rows = x1.size(1), cols = x2.size(1), m = x1.size(2);
  math::dispatch_distance(x1.dtype(), p, "cdist", [&](auto v, auto kind) {
    using T = decltype(v);
    const T* a = static_cast<const T*>(x1.data_ptr());
    const T* b = static_cast<const T*>(x2.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    const T pt = static_cast<T>(p);
    const int64_t ld = padded<T>(cols);
    std::vector<T> bt = columns_buffer<T>(batch, m, ld);
    for (int64_t i = 0; i < batch; ++i) transpose_into(b + i * cols * m, cols, m, ld, bt.data() + i * m * ld);
    parallel_for(0, batch * rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols * m, 1)),
                 [&](int64_t r0, int64_t r1) {
                   for (int64_t r = r0; r < r1; ++r)
                     row_distances<kind()>(a + r * m, bt.data() + r / rows * m * ld, ld, m, pt, o + r * cols, cols);
                 });
  });
}

void pdist_forward(const Tensor& out, const Tensor& x, double p) {
  const int64_t n = x.size(0), m = x.size(1), pairs = out.numel();
  math::dispatch_distance(x.dtype(), p, "pdist", [&](auto v, auto kind) {
    using T = decltype(v);
    const T* a = static_cast<const T*>(x.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    const T pt = static_cast<T>(p);
    const int64_t ld = padded<T>(n);
    std::vector<T> bt = columns_buffer<T>(1, m, ld);
    transpose_into(a, n, m, ld, bt.data());
    // Row i pairs with the n - 1 - i rows after it, from pair number first(i); the threads split the pairs (row i's
    // share of the work falls with i).
    auto first = [n](int64_t i) { return i * n - i * (i + 1) / 2; };
    parallel_for(0, pairs, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(m, 1)), [&](int64_t q0, int64_t q1) {
      int64_t i = 0, hi = n - 2;  // the last row i with first(i) <= q0
      while (i < hi) {
        const int64_t mid = (i + hi + 1) / 2;
        if (first(mid) <= q0)
          i = mid;
        else
          hi = mid - 1;
      }
      for (int64_t q = q0; q < q1; ++i) {
        const int64_t j = i + 1 + (q - first(i)), count = std::min(n - j, q1 - q);
        row_distances<kind()>(a + i * m, bt.data() + j, ld, m, pt, o + q, count);
        q += count;
      }
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(cdist_forward, CPU, cdist_forward)
EMBER_REGISTER_KERNEL(pdist_forward, CPU, pdist_forward)

}  // namespace ember::cpu
