// CPU kernels of the normalization layers (ember/backend/kernels/nn/normalization.h): layer norm's fused forward and
// backward over rows, and the per-channel sums and affine maps that batch (and instance) norm are built from. Rows are
// reduced with explicit SIMD (lanes.h); statistics are two-pass (mean, then centred squares) for accuracy.
#include <cmath>
#include <vector>

#include "ember/backend/cpu/lanes.h"
#include "ember/backend/kernels/nn/normalization.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

constexpr int64_t kCols = 64;    // columns per task of the column reductions
constexpr int64_t kFlush = 256;  // rows summed in T before adding to the double totals

template <class T>
const T* ptr(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}
template <class T>
T* mut(const Tensor& t) {
  return t.defined() ? static_cast<T*>(t.data_ptr()) : nullptr;
}

// f(w, b) where w(at) and b(at) read the weight and bias, or give 1 and 0 when there are none (one instantiation
// per case, so that no loop tests for them).
template <class T, class F>
void with_affine(const T* w, const T* b, F f) {
  auto one = [](auto) { return T(1); };
  auto zero = [](auto) { return T(0); };
  auto wi = [w](auto at) { return at(w); };
  auto bi = [b](auto at) { return at(b); };
  if (w && b)
    f(wi, bi);
  else if (w)
    f(wi, zero);
  else if (b)
    f(one, bi);
  else
    f(one, zero);
}

template <class T>
void layer_norm_t(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& w,
                  const Tensor& b, double eps) {
  const int64_t M = x.size(0), N = x.size(1);
  const T *X = ptr<T>(x), *W = ptr<T>(w), *B = ptr<T>(b);
  T *Y = mut<T>(y), *mu = mut<T>(mean), *rs = mut<T>(rstd);
  parallel_for(0, M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(N, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = X + r * N;
      T* yr = Y + r * N;
      const T m = lanes::sum<T>(N, [xr](auto at) { return at(xr); }) / T(N);
      const T v = lanes::sum<T>(N,
                                [xr, m](auto at) {
                                  const auto d = at(xr) - m;
                                  return d * d;
                                }) /
                  T(N);
      const T s = T(1) / std::sqrt(v + T(eps));
      mu[r] = m;
      rs[r] = s;
      with_affine(W, B, [&](auto wi, auto bi) {
        // (x - m) * s rather than x * s - m * s: a constant row gives exact zeros (no fused multiply-add residue)
        lanes::for_each<T>(N, [&](auto at) { at.store(yr, (at(xr) - m) * s * wi(at) + bi(at)); });
      });
    }
  });
}

template <class T>
void layer_norm_backward_t(const Tensor& dx, const Tensor& dw, const Tensor& db, const Tensor& g, const Tensor& x,
                           const Tensor& mean, const Tensor& rstd, const Tensor& w) {
  const int64_t M = x.size(0), N = x.size(1);
  const T *G = ptr<T>(g), *X = ptr<T>(x), *mu = ptr<T>(mean), *rs = ptr<T>(rstd), *W = ptr<T>(w);
  if (dx.defined()) {
    // dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = g * w, per row.
    T* DX = mut<T>(dx);
    parallel_for(0, M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(N, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T *gr = G + r * N, *xr = X + r * N;
        T* out = DX + r * N;
        const T m = mu[r], s = rs[r];
        with_affine<T>(W, nullptr, [&](auto wi, auto) {
          const T a = lanes::sum<T>(N, [&](auto at) { return at(gr) * wi(at); }) / T(N);
          const T c = lanes::sum<T>(N, [&](auto at) { return at(gr) * wi(at) * (at(xr) - m); }) * s / T(N);
          lanes::for_each<T>(N, [&](auto at) { at.store(out, s * (at(gr) * wi(at) - a - (at(xr) - m) * s * c)); });
        });
      }
    });
  }
  if (!dw.defined() && !db.defined()) return;
  // dw = sum over rows of g * xhat, db = sum of g: blocks of columns, rows accumulated into contiguous lanes.
  T *DW = mut<T>(dw), *DB = mut<T>(db);
  const int64_t blocks = (N + kCols - 1) / kCols;
  parallel_for(0, blocks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(M * kCols, 1)),
               [&](int64_t b0, int64_t b1) {
                 T aw[kCols], ab[kCols];
                 for (int64_t blk = b0; blk < b1; ++blk) {
                   const int64_t j0 = blk * kCols, n = std::min(kCols, N - j0);
                   std::fill(aw, aw + n, T(0));
                   std::fill(ab, ab + n, T(0));
                   for (int64_t r = 0; r < M; ++r) {
                     const T *gr = G + r * N + j0, *xr = X + r * N + j0;
                     const T m = mu[r], s = rs[r];
                     if (DW) lanes::for_each<T>(n, [&](auto at) { at.store(aw, at(aw) + at(gr) * (at(xr) - m) * s); });
                     if (DB) lanes::for_each<T>(n, [&](auto at) { at.store(ab, at(ab) + at(gr)); });
                   }
                   if (DW) std::copy(aw, aw + n, DW + j0);
                   if (DB) std::copy(ab, ab + n, DB + j0);
                 }
               });
}

template <class T>
void channel_moments_t(const Tensor& s1, const Tensor& s2, const Tensor& g, const Tensor& x, const Tensor& m,
                       IntArrayRef acb) {
  const int64_t A = acb[0], C = acb[1], B = acb[2];
  const T *G = ptr<T>(g), *X = ptr<T>(x);
  const double* Mu = ptr<double>(m);
  double *S1 = mut<double>(s1), *S2 = mut<double>(s2);
  if (B == 1) {  // [A, C]: blocks of channels, rows accumulated into contiguous lanes (in T, flushed to double)
    const int64_t blocks = (C + kCols - 1) / kCols;
    parallel_for(0, blocks, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(A * kCols, 1)),
                 [&](int64_t b0, int64_t b1) {
                   T a1[kCols], a2[kCols], mc[kCols];
                   double d1[kCols], d2[kCols];
                   for (int64_t blk = b0; blk < b1; ++blk) {
                     const int64_t c0 = blk * kCols, n = std::min(kCols, C - c0);
                     for (int64_t j = 0; j < n; ++j) d1[j] = d2[j] = 0, mc[j] = Mu ? T(Mu[c0 + j]) : T(0);
                     for (int64_t a0 = 0; a0 < A; a0 += kFlush) {
                       std::fill(a1, a1 + n, T(0));
                       std::fill(a2, a2 + n, T(0));
                       for (int64_t a = a0; a < std::min(A, a0 + kFlush); ++a) {
                         const T *gr = G + a * C + c0, *xr = X + a * C + c0;
                         lanes::for_each<T>(n, [&](auto at) { at.store(a1, at(a1) + at(gr)); });
                         if (S2)
                           lanes::for_each<T>(n, [&](auto at) { at.store(a2, at(a2) + at(gr) * (at(xr) - at(mc))); });
                       }
                       for (int64_t j = 0; j < n; ++j) d1[j] += a1[j], d2[j] += a2[j];
                     }
                     std::copy(d1, d1 + n, S1 + c0);
                     if (S2) std::copy(d2, d2 + n, S2 + c0);
                   }
                 });
    return;
  }
  // Each channel is A contiguous runs of B elements.
  parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(A * B, 1)), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const T mc = Mu ? T(Mu[c]) : T(0);
      double a1 = 0, a2 = 0;
      for (int64_t a = 0; a < A; ++a) {
        const T *gr = G + (a * C + c) * B, *xr = X + (a * C + c) * B;
        a1 += lanes::sum<T>(B, [gr](auto at) { return at(gr); });
        if (S2) a2 += lanes::sum<T>(B, [gr, xr, mc](auto at) { return at(gr) * (at(xr) - mc); });
      }
      S1[c] = a1;
      if (S2) S2[c] = a2;
    }
  });
}

template <class T>
void channel_affine_t(const Tensor& out, const Tensor& a, const Tensor& ka, const Tensor& x, const Tensor& kx,
                      const Tensor& k0, IntArrayRef acb) {
  const int64_t A = acb[0], C = acb[1], B = acb[2];
  // The coefficients in T, once.
  std::vector<T> cka(C), ckx(x.defined() ? C : 0), ck0(C);
  for (int64_t c = 0; c < C; ++c) {
    cka[c] = T(ptr<double>(ka)[c]);
    ck0[c] = T(ptr<double>(k0)[c]);
    if (x.defined()) ckx[c] = T(ptr<double>(kx)[c]);
  }
  const T *Ap = ptr<T>(a), *Xp = ptr<T>(x);
  T* O = mut<T>(out);
  if (B == 1) {
    parallel_for(0, A, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(C, 1)), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* ar = Ap + r * C;
        T* o = O + r * C;
        const T *ka = cka.data(), *k0 = ck0.data();
        if (Xp) {
          const T *xr = Xp + r * C, *kx = ckx.data();
          lanes::for_each<T>(C, [&](auto at) { at.store(o, at(ar) * at(ka) + at(xr) * at(kx) + at(k0)); });
        } else {
          lanes::for_each<T>(C, [&](auto at) { at.store(o, at(ar) * at(ka) + at(k0)); });
        }
      }
    });
    return;
  }
  parallel_for(0, A * C, std::max<int64_t>(1, kGrainSize / B), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t c = r % C;
      const T* ar = Ap + r * B;
      T* o = O + r * B;
      const T p = cka[c], q = Xp ? ckx[c] : T(0), k = ck0[c];
      if (Xp) {
        const T* xr = Xp + r * B;
        lanes::for_each<T>(B, [&](auto at) { at.store(o, at(ar) * p + at(xr) * q + k); });
      } else {
        lanes::for_each<T>(B, [&](auto at) { at.store(o, at(ar) * p + k); });
      }
    }
  });
}

template <class T>
void channel_coefficients_t(const Tensor& scale, const Tensor& shift, const Tensor& invstd, const Tensor& mean,
                            const Tensor& var, const Tensor& w, const Tensor& b, double eps) {
  const T *m = ptr<T>(mean), *v = ptr<T>(var), *wp = w.defined() ? ptr<T>(w) : nullptr;
  const T* bp = b.defined() ? ptr<T>(b) : nullptr;
  double *sc = mut<double>(scale), *sh = mut<double>(shift), *is = mut<double>(invstd);
  for (int64_t c = 0; c < mean.numel(); ++c) {
    is[c] = 1.0 / std::sqrt(static_cast<double>(v[c]) + eps);
    sc[c] = wp ? is[c] * static_cast<double>(wp[c]) : is[c];
    sh[c] = -(static_cast<double>(m[c]) * sc[c]) + (bp ? static_cast<double>(bp[c]) : 0.0);
  }
}

// The kernels run in float32 or float64 (the ops convert 16-bit floats).
template <class F>
void by_dtype(const Tensor& t, F f) {
  if (t.dtype() == ScalarType::Float64)
    f(double());
  else
    f(float());
}

void layer_norm(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& w,
                const Tensor& b, double eps) {
  by_dtype(x, [&](auto v) { layer_norm_t<decltype(v)>(y, mean, rstd, x, w, b, eps); });
}
void layer_norm_backward(const Tensor& dx, const Tensor& dw, const Tensor& db, const Tensor& g, const Tensor& x,
                         const Tensor& mean, const Tensor& rstd, const Tensor& w) {
  by_dtype(x, [&](auto v) { layer_norm_backward_t<decltype(v)>(dx, dw, db, g, x, mean, rstd, w); });
}
void channel_moments(const Tensor& s1, const Tensor& s2, const Tensor& g, const Tensor& x, const Tensor& m,
                     IntArrayRef acb) {
  by_dtype(g, [&](auto v) { channel_moments_t<decltype(v)>(s1, s2, g, x, m, acb); });
}
void channel_coefficients(const Tensor& scale, const Tensor& shift, const Tensor& invstd, const Tensor& mean,
                          const Tensor& var, const Tensor& w, const Tensor& b, double eps) {
  by_dtype(mean, [&](auto v) { channel_coefficients_t<decltype(v)>(scale, shift, invstd, mean, var, w, b, eps); });
}
void channel_affine(const Tensor& out, const Tensor& a, const Tensor& ka, const Tensor& x, const Tensor& kx,
                    const Tensor& k0, IntArrayRef acb) {
  by_dtype(a, [&](auto v) { channel_affine_t<decltype(v)>(out, a, ka, x, kx, k0, acb); });
}

}  // namespace

EMBER_REGISTER_KERNEL(layer_norm, CPU, layer_norm)
EMBER_REGISTER_KERNEL(layer_norm_backward, CPU, layer_norm_backward)
EMBER_REGISTER_KERNEL(channel_moments, CPU, channel_moments)
EMBER_REGISTER_KERNEL(channel_coefficients, CPU, channel_coefficients)
EMBER_REGISTER_KERNEL(channel_affine, CPU, channel_affine)

}  // namespace ember::cpu
