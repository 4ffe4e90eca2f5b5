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

}  // namespace ember::cpu::lanes
