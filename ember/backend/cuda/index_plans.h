// Host-side logic of the CUDA indexing, sorting and spatial kernels: the sorts' key encoding and plan (sort.cu) and
// the resampling adjoint's gather lists (spatial.cu), kept free of the CUDA runtime so that the C++ tests check them
// on any machine.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ember/backend/kernels/nn/spatial.h"
#include "ember/error.h"
#include "ember/half.h"
#include "ember/macros.h"
#include "ember/tensor.h"

namespace ember::cuda {

// Note [Sort keys]
// The CPU orders slices by Acc<T> values with NaN above every number (all NaNs equal) and ties by position. A
// radix sort orders unsigned integers, so each value becomes the unsigned key of its order: floats by the usual
// sign flip (with -0 folded onto +0 and every NaN onto the largest key), signed integers by flipping the sign
// bit. Descending sorts complement the key. CUB's radix sort is stable, so equal keys keep their positions'
// order, as the CPU's stable_sort and its (key, position) total order do. Values are gathered from the input by
// the sorted positions, never decoded from keys.
template <class T>
using KeyOf = std::conditional_t<
    sizeof(T) == 1, uint8_t,
    std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;

// The CPU's comparison type (ember/backend/cpu/binary.h): 16-bit floats compare as float.
template <class T>
using Acc = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float, T>;

template <class T>
constexpr bool is_float_type = std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <class T>
EMBER_HOST_DEVICE KeyOf<T> radix_key(T v) {
  using U = KeyOf<T>;
  constexpr U sign = U(1) << (8 * sizeof(T) - 1);
  U bits;
  __builtin_memcpy(&bits, &v, sizeof bits);
  if constexpr (std::is_same_v<T, bool>) {
    return v ? 1 : 0;
  } else if constexpr (is_float_type<T>) {
    const Acc<T> a = static_cast<Acc<T>>(v);
    if (a != a) return static_cast<U>(~U(0));
    if (a == Acc<T>(0)) bits = 0;
    return (bits & sign) ? static_cast<U>(~bits) : static_cast<U>(bits | sign);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<U>(bits ^ sign);
  } else {
    return static_cast<U>(v);
  }
}

// nonzero: the output row of element i given `scan`, the inclusive sum of the elements' nonzero flags (1 or 0), or
// -1 when element i is zero (the sum did not step there).
EMBER_HOST_DEVICE int64_t nonzero_row(const int64_t* scan, int64_t i) {
  const int64_t before = i ? scan[i - 1] : 0;
  return scan[i] == before ? -1 : before;
}

// A segmented sort as two stable radix sorts (Note [Sort keys] in sort.cu): all elements by key, then by row,
// which needs only the bits of the largest row number. row_bits 0: a single row, one pass.
struct SortPlan {
  int row_bits = 0;
};

inline SortPlan plan_sort(int64_t rows, int64_t n) {
  EMBER_CHECK(rows >= 0 && n >= 0, "sort: invalid geometry (", rows, " rows of ", n, ")");
  if (rows <= 1) return {};
  return {static_cast<int>(std::bit_width(static_cast<uint64_t>(rows - 1)))};
}

// Strides (in elements) that view a buffer holding `row_len` entries per row, rows in row-major order over all dims
// but the last, as a tensor of `sizes` (its last dim: the first sizes.back() entries of each row).
inline DimVector row_buffer_strides(IntArrayRef sizes, int64_t row_len) {
  DimVector strides(sizes.size(), 1);
  int64_t s = row_len;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 2; d >= 0; --d) {
    strides[d] = s;
    s *= sizes[d];
  }
  return strides;
}

// The transpose of a resampling map (Note [Separable resampling]) as lists per input position i: entries
// first[i]..first[i+1] name the outputs that read i and their weights as T, in the order the CPU's adjoint adds them
// (outputs ascending, then taps), without the weights that are zero in T (the CPU skips those). Summing a list in
// order reproduces the CPU's sum for that element exactly, without atomics.
template <class T>
struct AdjointTaps {
  std::vector<int64_t> first, output;
  std::vector<T> weight;
};

template <class T>
AdjointTaps<T> adjoint_taps(const ResampleTaps& taps) {
  const int64_t isz = taps.in_size, w = taps.width;
  AdjointTaps<T> a;
  a.first.assign(isz + 1, 0);
  for (int64_t o = 0; o < taps.out_size; ++o)
    for (int64_t k = 0; k < w; ++k)
      if (static_cast<T>(taps.weight[o * w + k]) != T(0)) ++a.first[taps.index[o * w + k] + 1];
  for (int64_t i = 0; i < isz; ++i) a.first[i + 1] += a.first[i];
  a.output.resize(a.first[isz]);
  a.weight.resize(a.first[isz]);
  std::vector<int64_t> fill(a.first.begin(), a.first.end() - 1);
  for (int64_t o = 0; o < taps.out_size; ++o)
    for (int64_t k = 0; k < w; ++k) {
      const T wt = static_cast<T>(taps.weight[o * w + k]);
      if (wt == T(0)) continue;
      const int64_t at = fill[taps.index[o * w + k]]++;
      a.output[at] = o;
      a.weight[at] = wt;
    }
  return a;
}

}  // namespace ember::cuda
