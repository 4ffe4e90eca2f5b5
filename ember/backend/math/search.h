// The binary search of searchsorted/bucketize, for every backend (Note [searchsorted kernel] in ops/search.h,
// Note [Shared elementwise math] in common.h).
#pragma once

#include <cstdint>

#include "ember/backend/math/common.h"

namespace ember::math {

// The first position p in [0, n) of row `seq` (through `sort`, a row of positions, when not null) with
// !(seq[p] < v) (right: !(seq[p] <= v)); n when there is none. Written with PyTorch's negated comparisons, so NaNs
// behave as in PyTorch: a NaN value goes to n, a NaN in the sequence counts as below every value.
template <class T>
EMBER_HOST_DEVICE int64_t search_row(const T* seq, const int64_t* sort, int64_t n, T value, bool right) {
  using A = Acc<T>;
  const A v = static_cast<A>(value);
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    const A m = static_cast<A>(sort ? seq[sort[mid]] : seq[mid]);
    if (right ? !(m > v) : !(m >= v))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace ember::math
