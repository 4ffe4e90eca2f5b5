// cdist and pdist on the CPU: each distance a loop over the two rows with a vector's lanes of accumulators (so that
// the sum vectorizes without reassociating), rows of the output split across threads.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ember/backend/cpu/lanes.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/nn/distance.h"
#include "ember/backend/math/distance.h"
#include "ember/parallel.h"

namespace ember::cpu {
namespace {

using math::DistKind;

// The lanes are combined as a tree (pairs, then pairs of pairs): added in a chain, their latency was most of a short
// row's time.
template <DistKind K, class T>
[[gnu::always_inline]] inline T row_distance(const T* a, const T* b, int64_t m, T p) {
  constexpr int kLanes = 32 / sizeof(T);  // one AVX2 vector
  T acc[kLanes] = {};
  int64_t i = 0;
  if constexpr (K == DistKind::Inf) {
    // GCC leaves the NaN-keeping select of dist_step scalar: here, in explicit vectors (lanes.h), the largest
    // difference (a NaN drops out of the comparison) and a mask of NaNs seen, the NaN put back at the end (cdist of
    // [500, 128] by [400, 128]: 70 -> 4.3 ms, PyTorch 13.6)
    using V = lanes::Vec<T>;
    V mx = {};
    decltype(mx != mx) nan = {};
    for (; i + kLanes <= m; i += kLanes) {
      V x, y;
      std::memcpy(&x, a + i, sizeof x);
      std::memcpy(&y, b + i, sizeof y);
      V d = x - y;
      d = d < 0 ? -d : d;
      mx = d > mx ? d : mx;
      nan |= d != d;
    }
    for (int l = 0; l < kLanes; ++l) acc[l] = nan[l] ? std::numeric_limits<T>::quiet_NaN() : mx[l];
  } else {
    for (; i + kLanes <= m; i += kLanes)
      for (int l = 0; l < kLanes; ++l) acc[l] = math::dist_step<K>(acc[l], a[i + l], b[i + l], p);
  }
  for (int w = kLanes / 2; w >= 1; w /= 2)
    for (int l = 0; l < w; ++l) acc[l] = math::dist_combine<K>(acc[l], acc[l + w]);
  T r = acc[0];
  for (; i < m; ++i) r = math::dist_step<K>(r, a[i], b[i], p);
  return math::dist_finish<K>(r, p);
}

void cdist_forward(const Tensor& out, const Tensor& x1, const Tensor& x2, double p) {
  const int64_t batch = x1.size(0), rows = x1.size(1), cols = x2.size(1), m = x1.size(2);
  math::dispatch_distance(x1.dtype(), p, "cdist", [&](auto v, auto kind) {
    using T = decltype(v);
    const T* a = static_cast<const T*>(x1.data_ptr());
    const T* b = static_cast<const T*>(x2.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    const T pt = static_cast<T>(p);
    parallel_for(0, batch * rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(cols * m, 1)),
                 [&](int64_t r0, int64_t r1) {
                   for (int64_t r = r0; r < r1; ++r) {
                     const T* ai = a + r * m;
                     const T* bb = b + r / rows * cols * m;
                     for (int64_t j = 0; j < cols; ++j) o[r * cols + j] = row_distance<kind()>(ai, bb + j * m, m, pt);
                   }
                 });
  });
}

void pdist_forward(const Tensor& out, const Tensor& x, double p) {
  const int64_t n = x.size(0), m = x.size(1);
  math::dispatch_distance(x.dtype(), p, "pdist", [&](auto v, auto kind) {
    using T = decltype(v);
    const T* a = static_cast<const T*>(x.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    const T pt = static_cast<T>(p);
    // Row i pairs with the n - 1 - i rows after it; its first pair is number i n - i (i + 1) / 2.
    parallel_for(0, n, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(n * m / 2, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t i = r0; i < r1; ++i) {
        T* oi = o + (i * n - i * (i + 1) / 2);
        for (int64_t j = i + 1; j < n; ++j) oi[j - i - 1] = row_distance<kind()>(a + i * m, a + j * m, m, pt);
      }
    });
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(cdist_forward, CPU, cdist_forward)
EMBER_REGISTER_KERNEL(pdist_forward, CPU, pdist_forward)

}  // namespace ember::cpu
