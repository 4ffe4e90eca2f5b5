// Strided, casting loads and stores between any two dtypes: what lets one kernel instantiation per
// compute type serve inputs and outputs of every dtype (Note [Casting on load]).
#pragma once

#include <cstdint>

#include "ember/dtype.h"

namespace ember::cpu {

// dst[i] = convert(src[i * stride]) for i < n; dst is contiguous of type `to`. stride 0 broadcasts.
using LoadFn = void (*)(const char* src, int64_t stride, char* dst, int64_t n);
// dst[i * stride] = convert(src[i]); src is contiguous of type `from`.
using StoreFn = void (*)(const char* src, char* dst, int64_t stride, int64_t n);

LoadFn load_fn(ScalarType from, ScalarType to);
StoreFn store_fn(ScalarType from, ScalarType to);

}  // namespace ember::cpu
