// Small helpers shared by the CPU kernels that take float32 or float64 only (spatial.cpp, vision.cpp).
#pragma once

#include <algorithm>
#include <cstdint>

#include "ember/dtype.h"
#include "ember/parallel.h"

namespace ember::cpu {

// f(double{}) for float64, else f(float{}): the value type a float32/float64 kernel runs in.
template <class F>
void dispatch_float(ScalarType t, F&& f) {
  if (t == ScalarType::Float64)
    f(double{});
  else
    f(float{});
}

// parallel_for's grain for items that each take `work_per_item` elements' worth of work.
inline int64_t grain_for(int64_t work_per_item) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work_per_item, 1));
}

}  // namespace ember::cpu
