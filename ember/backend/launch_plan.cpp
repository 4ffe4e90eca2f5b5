#include "ember/backend/launch_plan.h"

#include <cstdint>
#include <limits>

namespace ember {

LaunchPlan plan_launch(const StridedIter& it, const ScalarType* want, int vec_max) {
  constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
  bool exact = true, index32 = it.numel <= kMax32;
  for (int k = 0; k < it.ntensors; ++k) {
    exact &= it.dtypes[k] == want[k];
    int64_t last = static_cast<int64_t>(element_size(it.dtypes[k]));  // one past the furthest byte touched
    for (int d = 0; d < it.ndim; ++d) last += (it.shape[d] - 1) * it.strides[k][d];
    index32 &= last <= kMax32;
  }
  if (!exact) return {LaunchPlan::Cast, index32, 1};
  if (it.ndim > 1) return {LaunchPlan::Strided, index32, 1};
  int vec = vec_max;
  for (int k = 0; k < it.ntensors; ++k) {
    const int64_t elsize = static_cast<int64_t>(element_size(it.dtypes[k]));
    const int64_t stride = it.ndim == 0 ? 0 : it.strides[k][0];
    if (stride == 0 && k > 0) continue;  // a broadcast input: one address
    if (stride != elsize && !(it.ndim == 0 || it.shape[0] == 1)) return {LaunchPlan::Strided, index32, 1};
    if (reinterpret_cast<uintptr_t>(it.data[k]) % static_cast<uintptr_t>(vec * elsize) != 0) vec = 1;
  }
  return {LaunchPlan::Linear, index32, vec};
}

}  // namespace ember
