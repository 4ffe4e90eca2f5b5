// Array conversions between float32 and the 16-bit floats, bit-identical to ember/half.h's scalar ones (NaN
// included) but written branch-free so that the compiler vectorizes them (Note [Vectorized 16-bit conversion]).
#pragma once

#include <cstdint>

#include "ember/dtype.h"

namespace ember::cpu {

// Whether convert_contiguous takes (from, to).
inline bool fast_convert_pair(ScalarType from, ScalarType to) {
  const auto half = [](ScalarType t) { return t == ScalarType::BFloat16 || t == ScalarType::Float16; };
  return (from == ScalarType::Float32 && half(to)) || (half(from) && to == ScalarType::Float32);
}

// dst[i] = convert(src[i]) for i < n, both contiguous, when (from, to) is float32 <-> bfloat16/float16; false,
// having done nothing, for any other pair.
bool convert_contiguous(ScalarType from, ScalarType to, const void* src, void* dst, int64_t n);

}  // namespace ember::cpu
