// The p-norm distance between two vectors, for the CPU and CUDA kernels of cdist and pdist (Note [Shared elementwise
// math]): |a - b| folded into an accumulator per kind of p, then finished.
// p = 0 counts the nonzero differences, 1 sums them, 2 is the root of the sum of squares, inf takes the largest (a
// NaN difference is kept, for every p), and any other p is (sum |a - b|^p)^(1/p), as PyTorch's kernels compute them.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ember/backend/math/common.h"
#include "ember/dtype.h"
#include "ember/error.h"

namespace ember::math {

enum class DistKind : uint8_t { Zero, One, Two, Inf, General };

inline DistKind dist_kind(double p) {
  if (p == 0) return DistKind::Zero;
  if (p == 1) return DistKind::One;
  if (p == 2) return DistKind::Two;
  if (std::isinf(p)) return DistKind::Inf;
  return DistKind::General;
}

template <DistKind K, class T>
EMBER_HOST_DEVICE T dist_step(T acc, T a, T b, T p) {
  const T d = std::abs(a - b);  // NaN when either is (a branch-free fabs, which vectorizes)
  if constexpr (K == DistKind::Zero)
    return acc + (d > T(0) ? T(1) : d);  // 1 for a difference, 0 for none, and a NaN kept (PyTorch's)
  else if constexpr (K == DistKind::One)
    return acc + d;
  else if constexpr (K == DistKind::Two)
    return acc + d * d;
  else if constexpr (K == DistKind::Inf) {
    const T m = d > acc ? d : acc;  // (a NaN drops out of the comparison: kept by the second select)
    return d != d ? d : m;
  } else
    return acc + std::pow(d, p);
}

template <DistKind K, class T>
EMBER_HOST_DEVICE T dist_finish(T acc, T p) {
  if constexpr (K == DistKind::Two)
    return std::sqrt(acc);
  else if constexpr (K == DistKind::General)
    return std::pow(acc, T(1) / p);
  else
    return acc;
}

// Calls f(kind tag) with the kind of p as a compile-time constant.
template <class F>
void dispatch_dist_kind(double p, F&& f) {
  switch (dist_kind(p)) {
    case DistKind::Zero: return f(std::integral_constant<DistKind, DistKind::Zero>());
    case DistKind::One: return f(std::integral_constant<DistKind, DistKind::One>());
    case DistKind::Two: return f(std::integral_constant<DistKind, DistKind::Two>());
    case DistKind::Inf: return f(std::integral_constant<DistKind, DistKind::Inf>());
    default: return f(std::integral_constant<DistKind, DistKind::General>());
  }
}

// Calls f(T{}, kind tag) for the kernels' element type t (float32 or float64) and p's kind.
template <class F>
void dispatch_distance(ScalarType t, double p, const char* op, F&& f) {
  dispatch_dist_kind(p, [&](auto kind) {
    switch (t) {
      case ScalarType::Float32: return f(float(), kind);
      case ScalarType::Float64: return f(double(), kind);
      default: fail<Error>(op, ": unsupported dtype ", t);
    }
  });
}

}  // namespace ember::math
