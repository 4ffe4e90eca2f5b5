// CPU softmax and log_softmax: three passes over each slice (max, exp and sum, write); their gradients two (sum,
// write). When the softmax dim is the last one, each slice is a contiguous row; otherwise a block of up to kCols
// neighbouring slices is processed together, so that every pass still runs over contiguous memory (the inner dim) and
// vectorizes.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/backend/cpu/lanes.h"
#include "ember/backend/cpu/vec_math.h"
#include "ember/backend/kernels/nn/softmax.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

constexpr int64_t kCols = 256;

// y[i] = exp(y[i]), through Sleef where this build has it.
template <class T>
void exp_inplace(T* y, int64_t n) {
  if (vec_unary(UnaryOp::Exp, y, y, n)) return;
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(y[i]);
}

// Softmax along rows of n; with causal = l > 0, row r only over its first min(n, r % l + 1) entries (the rest 0).
template <class T>
void softmax_rows(const T* in, T* out, int64_t rows, int64_t n, bool log, int64_t causal = 0) {
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / n), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const T* x = in + r * n;
      T* y = out + r * n;
      const int64_t k = causal ? std::min(n, r % causal + 1) : n;
      const T m = lanes::max_of<T>(k, -std::numeric_limits<T>::infinity(), [x](auto at) { return at(x); });
      const T s = exp_shift_sum(x, m, y, k);  // y = exp(x - m) and its sum in one pass
      if (log) {                              // (x - m) - log(s): m + log(s) would round to the precision of m
        const T ls = std::log(s);
        lanes::for_each<T>(k, [x, y, m, ls](auto at) { at.store(y, (at(x) - m) - ls); });
      } else {
        const T inv = T(1) / s;
        lanes::for_each<T>(k, [y, inv](auto at) { at.store(y, at(y) * inv); });
      }
      std::fill(y + k, y + n, T(0));
    }
  });
}

// Softmax along the middle dim of [outer, n, inner], inner > 1: blocks of up to kCols columns of one outer index,
// each pass a row of the block at a time (contiguous), the per-column state in mx and acc.
template <class T>
void softmax_strided(const T* in, T* out, int64_t outer, int64_t n, int64_t inner, bool log) {
  const int64_t blocks = (inner + kCols - 1) / kCols;
  parallel_for(0, outer * blocks, std::max<int64_t>(1, kGrainSize / (n * std::min(inner, kCols))),
               [&](int64_t b, int64_t e) {
                 T mx[kCols], acc[kCols];
                 for (int64_t task = b; task < e; ++task) {
                   const int64_t o = task / blocks, j0 = task % blocks * kCols, w = std::min(kCols, inner - j0);
                   const T* x = in + o * n * inner + j0;
                   T* y = out + o * n * inner + j0;
                   std::fill(mx, mx + w, -std::numeric_limits<T>::infinity());
                   std::fill(acc, acc + w, T(0));
                   for (int64_t k = 0; k < n; ++k) {
                     const T* xr = x + k * inner;
                     lanes::for_each<T>(w, [&](auto at) { at.store(mx, lanes::max(at(mx), at(xr))); });
                   }
                   for (int64_t k = 0; k < n; ++k) {
                     const T* xr = x + k * inner;
                     T* yr = y + k * inner;
                     lanes::for_each<T>(w, [&](auto at) { at.store(yr, at(xr) - at(mx)); });
                     exp_inplace(yr, w);
                     lanes::for_each<T>(w, [&](auto at) { at.store(acc, at(acc) + at(yr)); });
                   }
                   if (log) {
                     for (int64_t j = 0; j < w; ++j) acc[j] = std::log(acc[j]);
                     for (int64_t k = 0; k < n; ++k) {
                       const T* xr = x + k * inner;
                       T* yr = y + k * inner;
                       lanes::for_each<T>(w, [&](auto at) { at.store(yr, (at(xr) - at(mx)) - at(acc)); });
                     }
                   } else {
                     for (int64_t j = 0; j < w; ++j) acc[j] = T(1) / acc[j];
                     for (int64_t k = 0; k < n; ++k) {
                       T* yr = y + k * inner;
                       lanes::for_each<T>(w, [&](auto at) { at.store(yr, at(yr) * at(acc)); });
                     }
                   }
                 }
               });
}

template <class T>
void run(const Tensor& out, const Tensor& in, int64_t outer, int64_t n, int64_t inner, bool log) {
  const T* x = static_cast<const T*>(in.data_ptr());
  T* y = static_cast<T*>(out.data_ptr());
  if (inner == 1)
    softmax_rows(x, y, outer, n, log);
  else
    softmax_strided(x, y, outer, n, inner, log);
}

// The gradient along rows (inner == 1): one pass for the row's sum, one to write, over memory the first brought into
// the cache (the formula as ops made four passes, each writing a tensor).
template <class T>
void softmax_backward_rows(T* gx, const T* g, const T* y, int64_t rows, int64_t n, bool log) {
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / n), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const T *gr = g + r * n, *yr = y + r * n;
      T* o = gx + r * n;
      if (log) {
        const T s = lanes::sum<T>(n, [gr](auto at) { return at(gr); });
        lanes::for_each<T>(n, [o, yr](auto at) { at.store(o, at(yr)); });
        exp_inplace(o, n);
        lanes::for_each<T>(n, [o, gr, s](auto at) { at.store(o, at(gr) - at(o) * s); });
      } else {
        const T s = lanes::sum<T>(n, [gr, yr](auto at) { return at(gr) * at(yr); });
        lanes::for_each<T>(n, [o, gr, yr, s](auto at) { at.store(o, at(yr) * (at(gr) - s)); });
      }
    }
  });
}

// The gradient along the middle dim of [outer, n, inner], inner > 1, in column blocks as softmax_strided.
template <class T>
void softmax_backward_strided(T* gx, const T* g, const T* y, int64_t outer, int64_t n, int64_t inner, bool log) {
  const int64_t blocks = (inner + kCols - 1) / kCols;
  parallel_for(0, outer * blocks, std::max<int64_t>(1, kGrainSize / (n * std::min(inner, kCols))),
               [&](int64_t b, int64_t e) {
                 T acc[kCols];
                 for (int64_t task = b; task < e; ++task) {
                   const int64_t o = task / blocks, j0 = task % blocks * kCols, w = std::min(kCols, inner - j0);
                   const int64_t base = o * n * inner + j0;
                   std::fill(acc, acc + w, T(0));
                   for (int64_t k = 0; k < n; ++k) {
                     const T *gr = g + base + k * inner, *yr = y + base + k * inner;
                     if (log)
                       lanes::for_each<T>(w, [&](auto at) { at.store(acc, at(acc) + at(gr)); });
                     else
                       lanes::for_each<T>(w, [&](auto at) { at.store(acc, at(acc) + at(gr) * at(yr)); });
                   }
                   for (int64_t k = 0; k < n; ++k) {
                     const T *gr = g + base + k * inner, *yr = y + base + k * inner;
                     T* out = gx + base + k * inner;
                     if (log) {
                       lanes::for_each<T>(w, [&](auto at) { at.store(out, at(yr)); });
                       exp_inplace(out, w);
                       lanes::for_each<T>(w, [&](auto at) { at.store(out, at(gr) - at(out) * at(acc)); });
                     } else {
                       lanes::for_each<T>(w, [&](auto at) { at.store(out, at(yr) * (at(gr) - at(acc))); });
                     }
                   }
                 }
               });
}

template <class T>
void run_backward(const Tensor& gx, const Tensor& g, const Tensor& y, int64_t outer, int64_t n, int64_t inner,
                  bool log) {
  T* o = static_cast<T*>(gx.data_ptr());
  const T *gp = static_cast<const T*>(g.data_ptr()), *yp = static_cast<const T*>(y.data_ptr());
  if (inner == 1)
    softmax_backward_rows(o, gp, yp, outer, n, log);
  else
    softmax_backward_strided(o, gp, yp, outer, n, inner, log);
}

void softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y, int64_t outer, int64_t n, int64_t inner,
                      bool log) {
  if (y.dtype() == ScalarType::Float64)
    run_backward<double>(gx, g, y, outer, n, inner, log);
  else
    run_backward<float>(gx, g, y, outer, n, inner, log);
}

void softmax(const Tensor& out, const Tensor& in, int64_t outer, int64_t n, int64_t inner, bool log) {
  if (in.dtype() == ScalarType::Float64)
    run<double>(out, in, outer, n, inner, log);
  else
    run<float>(out, in, outer, n, inner, log);
}

void causal_softmax(const Tensor& out, const Tensor& in, int64_t rows, int64_t n, int64_t l) {
  if (in.dtype() == ScalarType::Float64)
    softmax_rows(static_cast<const double*>(in.data_ptr()), static_cast<double*>(out.data_ptr()), rows, n, false, l);
  else
    softmax_rows(static_cast<const float*>(in.data_ptr()), static_cast<float*>(out.data_ptr()), rows, n, false, l);
}

}  // namespace

EMBER_REGISTER_KERNEL(softmax, CPU, softmax)
EMBER_REGISTER_KERNEL(causal_softmax, CPU, causal_softmax)
EMBER_REGISTER_KERNEL(softmax_backward, CPU, softmax_backward)

}  // namespace ember::cpu
