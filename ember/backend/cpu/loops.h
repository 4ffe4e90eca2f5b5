// Generic CPU loops over a StridedIter (Note [Strided iteration]). Kernels are tiny functors; the
// loops supply the contiguous fast path (a flat loop the compiler vectorizes) and the strided walk.
#pragma once

#include "ember/convert.h"
#include "ember/iterator.h"

namespace ember::cpu {

// Calls body(data pointers, inner byte strides, n) once per run of the innermost dim.
template <class Body>
void for_each_run(const StridedIter& it, Body&& body) {
  if (it.numel == 0) return;
  const int nt = it.ntensors;
  std::array<char*, StridedIter::kMaxOperands> ptr = it.data;
  std::array<int64_t, StridedIter::kMaxOperands> inner{};
  for (int i = 0; i < nt; ++i) inner[i] = it.ndim ? it.strides[i][0] : 0;
  const int64_t n = it.ndim ? it.shape[0] : 1;
  if (it.ndim <= 1) {
    body(ptr.data(), inner.data(), n);
    return;
  }
  DimVector idx(it.ndim, 0);
  for (;;) {
    body(ptr.data(), inner.data(), n);
    int d = 1;
    for (; d < it.ndim; ++d) {  // odometer increment over the outer dims
      for (int i = 0; i < nt; ++i) ptr[i] += it.strides[i][d];
      if (++idx[d] < it.shape[d]) break;
      for (int i = 0; i < nt; ++i) ptr[i] -= it.strides[i][d] * it.shape[d];
      idx[d] = 0;
    }
    if (d == it.ndim) return;
  }
}

// out[i] = f(in[i]) with out of type Out and in of type In.
template <class Out, class In, class F>
void unary_loop(const StridedIter& it, F f) {
  for_each_run(it, [&](char** p, const int64_t* s, int64_t n) {
    auto* o = reinterpret_cast<Out*>(p[0]);
    auto* a = reinterpret_cast<const In*>(p[1]);
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
    } else if (s[0] == sizeof(Out) && s[1] == 0) {  // broadcast scalar input
      const Out v = f(*a);
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const In*>(p[1] + i * s[1]));
    }
  });
}

// out[i] = f() (fills).
template <class Out, class F>
void nullary_loop(const StridedIter& it, F f) {
  for_each_run(it, [&](char** p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(Out)) {
      auto* o = reinterpret_cast<Out*>(p[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = f();
    } else {
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<Out*>(p[0] + i * s[0]) = f();
    }
  });
}

}  // namespace ember::cpu
