// Explicit SIMD for the row kernels of softmax and the normalization layers, with GCC/Clang vector extensions:
// reductions (sums, maxima) are not vectorized by the compiler without -ffast-math, so these loops say it. A
// kernel body is written once as a generic lambda of an index `at`: at(p) loads a vector (or, for the tail, one
// element) of p at the current position and at.store(p, v) writes it, so the same expression serves both.
#pragma once

#include <cstdint>
#include <cstring>

namespace ember::cpu::lanes {

// (An alias template cannot carry the attribute on a dependent type: one specialization per element type.)
template <class T>
struct VecOf;
template <>
struct VecOf<float> {
  typedef float type __attribute__((vector_size(32)));
};
template <>
struct VecOf<double> {
  typedef double type __attribute__((vector_size(32)));
};
template <class T>
using Vec = typename VecOf<T>::type;
template <class T>
constexpr int64_t kWidth = 32 / sizeof(T);

template <class T>
struct VecAt {
  int64_t i;
  Vec<T> operator()(const T* p) const {
    Vec<T> v;
    std::memcpy(&v, p + i, sizeof v);
    return v;
  }
  void store(T* p, Vec<T> v) const { std::memcpy(p + i, &v, sizeof v); }
};

template <class T>
struct OneAt {
  int64_t i;
  T operator()(const T* p) const { return p[i]; }
  void store(T* p, T v) const { p[i] = v; }
};

// The larger of a and b, for scalars and vectors alike (a NaN b is skipped, a NaN a kept: either way a NaN in a
// softmax row still reaches every output through the sum).
template <class V>
V max(V a, V b) {
  return a > b ? a : b;
}

// f(at) for every position of [0, n): whole vectors, then the tail one element at a time.
template <class T, class F>
void for_each(int64_t n, F f) {
  int64_t i = 0;
  for (; i + kWidth<T> <= n; i += kWidth<T>) f(VecAt<T>{i});
  for (; i < n; ++i) f(OneAt<T>{i});
}

// Folds f(at) over [0, n) with `op` (two vector accumulators, then the lanes, then the tail).
template <class T, class F, class Op>
T fold(int64_t n, T init, F f, Op op) {
  constexpr int64_t W = kWidth<T>;
  Vec<T> a0 = Vec<T>{} + init, a1 = a0;
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    a0 = op(a0, f(VecAt<T>{i}));
    a1 = op(a1, f(VecAt<T>{i + W}));
  }
  if (i + W <= n) {
    a0 = op(a0, f(VecAt<T>{i}));
    i += W;
  }
  a0 = op(a0, a1);
  T r = a0[0];
  for (int64_t k = 1; k < W; ++k) r = op(r, a0[k]);
  for (; i < n; ++i) r = op(r, f(OneAt<T>{i}));
  return r;
}

template <class T, class F>
T sum(int64_t n, F f) {
  return fold<T>(n, T(0), f, [](auto a, auto b) { return a + b; });
}

template <class T, class F>
T max_of(int64_t n, T init, F f) {
  return fold<T>(n, init, f, [](auto a, auto b) { return max(a, b); });
}

// Transposes the W x W matrix whose rows are v[0..W) (lane k of v[l] becomes lane l of v[k]): AVX's unpack, shuffle
// and 128-bit permute steps, written as generic shuffles. (Inlined, so that v stays in registers.)
template <class T>
[[gnu::always_inline]] inline void transpose(Vec<T>* v) {
  using V = Vec<T>;
  if constexpr (std::is_same_v<T, float>) {
    V t[8], u[8];
    for (int p = 0; p < 8; p += 2) {
      t[p] = __builtin_shufflevector(v[p], v[p + 1], 0, 8, 1, 9, 4, 12, 5, 13);
      t[p + 1] = __builtin_shufflevector(v[p], v[p + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int p = 0; p < 8; p += 4) {
      u[p] = __builtin_shufflevector(t[p], t[p + 2], 0, 1, 8, 9, 4, 5, 12, 13);
      u[p + 1] = __builtin_shufflevector(t[p], t[p + 2], 2, 3, 10, 11, 6, 7, 14, 15);
      u[p + 2] = __builtin_shufflevector(t[p + 1], t[p + 3], 0, 1, 8, 9, 4, 5, 12, 13);
      u[p + 3] = __builtin_shufflevector(t[p + 1], t[p + 3], 2, 3, 10, 11, 6, 7, 14, 15);
    }
    for (int k = 0; k < 4; ++k) {
      v[k] = __builtin_shufflevector(u[k], u[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
      v[k + 4] = __builtin_shufflevector(u[k], u[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
  } else {
    const V t0 = __builtin_shufflevector(v[0], v[1], 0, 4, 2, 6), t1 = __builtin_shufflevector(v[0], v[1], 1, 5, 3, 7);
    const V t2 = __builtin_shufflevector(v[2], v[3], 0, 4, 2, 6), t3 = __builtin_shufflevector(v[2], v[3], 1, 5, 3, 7);
    v[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
    v[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    v[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
    v[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
  }
}

}  // namespace ember::cpu::lanes
