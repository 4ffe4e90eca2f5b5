// How a scatter combines a value into its destination (index_add_, scatter_reduce_, index_reduce_), for every
// backend (Note [Shared elementwise math] in common.h).
#pragma once

#include <type_traits>

#include "ember/backend/kernels/index.h"
#include "ember/backend/math/common.h"
#include "ember/detail/convert.h"

namespace ember::math {

// dst a combined with src b in T's arithmetic: 16-bit floats through float, bool as logical or (add, max) and and
// (mul, min); a NaN from src wins max and min, and one already in dst stays.
template <class T>
EMBER_HOST_DEVICE T scatter_combine(ScatterMode mode, T a_, T b_) {
  using C = Acc<T>;
  const C a = convert<C>(a_), b = convert<C>(b_);
  if constexpr (std::is_same_v<T, bool>) {
    return mode == ScatterMode::Add || mode == ScatterMode::Max ? (a || b) : (a && b);
  } else {
    switch (mode) {
      case ScatterMode::Add: return static_cast<T>(a + b);
      case ScatterMode::Mul: return static_cast<T>(a * b);
      case ScatterMode::Max:
        if constexpr (std::is_floating_point_v<C>)
          if (b != b) return b_;
        return a < b ? b_ : a_;
      default:
        if constexpr (std::is_floating_point_v<C>)
          if (b != b) return b_;
        return b < a ? b_ : a_;
    }
  }
}

}  // namespace ember::math
